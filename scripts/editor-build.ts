/**
 * The editor's build, made once and reused while what it was made from is unchanged.
 *
 *   node scripts/editor-build.ts [--force]
 *
 * `npm start` and `npm run studio` run this before starting: it builds dist/renderer only when
 * the sources changed since the last build, and says nothing when they did not. `--force` (what
 * `npm run build` runs) builds afresh whatever the record says.
 *
 * A build is recorded beside it (dist/renderer.build.json for dist/renderer): the files it read
 * and a content hash of them together with what shapes every build — the Vite and TypeScript
 * configs, package.json and package-lock.json (the installed packages), the build options, and
 * the listing of the node-type folders the editor globs (`@nodes/*\/spec.ts`…), so a new node
 * type is seen although no file that existed before changed. A build is reused when hashing the
 * files it read, as they are now, gives the same hash. Only files of this repository count: the
 * packages are covered by the lock file.
 *
 * The end-to-end tests (tests/e2e/global-setup.ts) keep builds of their own, each in a folder
 * named by its hash, moved into place only when complete, so a run never sees another run's
 * build half written.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { z } from 'zod';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The folder `npm start`, `npm run studio` and the packaged app serve. */
export const DIST_RENDERER_DIR = path.join(ROOT, 'dist', 'renderer');

/** Files every build reads whatever the module graph: configs and the installed packages. */
const CONFIG_FILES = [
  'vite.config.ts',
  // How the build is made here (its options, what it records).
  'scripts/editor-build.ts',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'renderer/tsconfig.json',
  'renderer/index.html',
];

/** How a build is made. */
export interface EditorBuildOptions {
  /** Source maps beside the bundle (the tests read them). */
  sourcemap: boolean;
  /** The folders whose node types the editor bundles (default: nodes/). */
  nodeDirs?: string[];
}

const BuildRecordSchema = z.object({
  key: z.string(),
  options: z.string(),
  /** Repository-relative paths of the files the build read. */
  inputs: z.array(z.string()),
});
/** What is recorded beside a build: enough to tell later whether it is still current. */
export type BuildRecord = z.infer<typeof BuildRecordSchema>;

function relative(file: string): string {
  return path.relative(ROOT, file).split(path.sep).join('/');
}

function describeOptions(options: EditorBuildOptions): string {
  const nodeDirs = (options.nodeDirs ?? [path.join(ROOT, 'nodes')]).map(relative);
  return JSON.stringify({ sourcemap: options.sourcemap, nodeDirs });
}

/** The files directly in each node type's folder: what the editor's globs choose from. */
function nodeListing(options: EditorBuildOptions): string[] {
  const out: string[] = [];
  for (const dir of options.nodeDirs ?? [path.join(ROOT, 'nodes')]) {
    if (!existsSync(dir)) continue;
    for (const type of readdirSync(dir, { withFileTypes: true })) {
      if (!type.isDirectory()) continue;
      for (const file of readdirSync(path.join(dir, type.name), { withFileTypes: true })) {
        if (file.isFile() && !file.name.includes('.test.')) {
          out.push(`${relative(dir)}/${type.name}/${file.name}`);
        }
      }
    }
  }
  return out.sort();
}

/** The hash of a build made with `options` from `inputs`, as the files are now. */
export function buildKey(options: EditorBuildOptions, inputs: readonly string[]): string {
  const hash = createHash('sha256');
  hash.update(`options ${describeOptions(options)}\n`);
  for (const name of nodeListing(options)) hash.update(`listed ${name}\n`);
  for (const name of [...new Set([...CONFIG_FILES, ...inputs])].sort()) {
    const file = path.join(ROOT, name);
    hash.update(`file ${name}\n`);
    // A file that is gone hashes as such: the build that read it is stale.
    hash.update(existsSync(file) ? readFileSync(file) : '\0absent');
    hash.update('\n');
  }
  return hash.digest('hex').slice(0, 16);
}

/** The record of a build made with `options` from `inputs`, as the files are now. */
export function recordOf(options: EditorBuildOptions, inputs: string[]): BuildRecord {
  return { key: buildKey(options, inputs), options: describeOptions(options), inputs };
}

/** The record of the build at `file`, or undefined when there is none or it is unreadable. */
export function readRecord(file: string): BuildRecord | undefined {
  try {
    return BuildRecordSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return undefined;
  }
}

/** Whether the recorded build is current: made with `options`, from files that are unchanged. */
export function isCurrent(record: BuildRecord | undefined, options: EditorBuildOptions): boolean {
  return (
    !!record &&
    record.options === describeOptions(options) &&
    record.key === buildKey(options, record.inputs)
  );
}

/**
 * Runs `vite build` into `outDir` and returns its record: the repository files the bundle was
 * made from, and their hash. `stable` is false when one of them changed during the build: the
 * bundle may hold the older text, so the record must not vouch for the newer one.
 */
export async function runBuild(
  outDir: string,
  options: EditorBuildOptions & { nodesAlias?: string; logLevel?: 'warn' | 'info' },
): Promise<{ record: BuildRecord; stable: boolean }> {
  const [{ build }, { NODES_ALIAS }] = await Promise.all([
    import('vite'),
    import('../vite.config.ts'),
  ]);
  const read = new Set<string>();
  const startedAt = Date.now();
  await build({
    configFile: path.join(ROOT, 'vite.config.ts'),
    logLevel: options.logLevel ?? 'warn',
    ...(options.nodesAlias ? { resolve: { alias: { [NODES_ALIAS]: options.nodesAlias } } } : {}),
    plugins: [
      {
        name: 'society:editor-inputs',
        // Packages are covered by package-lock.json; only the repository's own files count.
        transform: {
          filter: { id: { exclude: /node_modules/ } },
          handler(_code: string, id: string) {
            const file = id.split('?')[0]!;
            if (!file.startsWith('\0') && file.startsWith(ROOT) && existsSync(file)) {
              read.add(relative(file));
            }
            return null;
          },
        },
      },
    ],
    build: { outDir, emptyOutDir: true, sourcemap: options.sourcemap },
  });
  const inputs = [...read].sort();
  const stable = [...CONFIG_FILES, ...inputs].every((name) => {
    const file = path.join(ROOT, name);
    return !existsSync(file) || statSync(file).mtimeMs < startedAt;
  });
  return { record: recordOf(options, inputs), stable };
}

/**
 * Makes sure dist/renderer holds a build of the current sources: builds when it is missing, its
 * record is missing or the sources changed, or when `force`. Returns whether it built.
 */
export async function ensureEditorBuild(
  options: { force?: boolean; say?: (line: string) => void; outDir?: string } = {},
): Promise<boolean> {
  const outDir = options.outDir ?? DIST_RENDERER_DIR;
  const recordFile = `${outDir}.build.json`;
  const buildOptions: EditorBuildOptions = { sourcemap: true };
  if (
    !options.force &&
    existsSync(path.join(outDir, 'index.html')) &&
    isCurrent(readRecord(recordFile), buildOptions)
  ) {
    return false;
  }
  const say = options.say ?? ((line: string) => process.stdout.write(`${line}\n`));
  say(
    options.force
      ? 'Building the editor…'
      : 'Building the editor (its sources changed since the last build)…',
  );
  // An interrupted build must not leave a record that vouches for it.
  rmSync(recordFile, { force: true });
  const { record, stable } = await runBuild(outDir, buildOptions);
  if (stable) writeFileSync(recordFile, `${JSON.stringify(record, null, 2)}\n`);
  return true;
}

/**
 * A build of the current sources under `parent`, in a folder named by its hash
 * (`editor-<hash>`), reused across runs: the first current one found, else one built now into a
 * temporary folder and renamed into place when complete (`temporary` when its sources changed
 * during the build: the caller removes it after use). `prepare` makes the folder `@nodes`
 * points to for the build (removed afterwards). Builds older than a day that no longer match
 * the sources are removed; newer ones are left, as a run that started earlier may still serve one.
 */
export async function cachedEditorBuild(options: {
  parent: string;
  build: EditorBuildOptions;
  prepare?: (nodesDir: string) => void;
  say?: (line: string) => void;
}): Promise<{ dir: string; built: boolean; temporary: boolean }> {
  const { parent, build } = options;
  mkdirSync(parent, { recursive: true });
  const folders = readdirSync(parent).filter((name) => /^editor-[0-9a-f]{16}$/.test(name));
  for (const name of folders) {
    const record = readRecord(path.join(parent, name, 'build.json'));
    if (record && name === `editor-${record.key}` && isCurrent(record, build)) {
      return { dir: path.join(parent, name), built: false, temporary: false };
    }
  }
  options.say?.('Building the editor for the end-to-end tests (its sources changed)…');
  const tmp = mkdtempSync(path.join(parent, 'building-'));
  const outDir = path.join(tmp, 'out');
  const nodesDir = path.join(tmp, 'nodes');
  mkdirSync(nodesDir);
  options.prepare?.(nodesDir);
  try {
    const { record, stable } = await runBuild(outDir, {
      ...build,
      ...(options.prepare ? { nodesAlias: nodesDir } : {}),
    });
    writeFileSync(path.join(outDir, 'build.json'), `${JSON.stringify(record, null, 2)}\n`);
    // A build whose sources changed under it serves this run only, under a name no hash has.
    const dir = path.join(parent, stable ? `editor-${record.key}` : `un${path.basename(tmp)}`);
    try {
      renameSync(outDir, dir);
    } catch (error) {
      // Another run finished the same build first: use that one.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
    }
    pruneStale(parent, build, dir);
    return { dir, built: true, temporary: !stable };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const DAY_MS = 24 * 60 * 60 * 1000;

function pruneStale(parent: string, build: EditorBuildOptions, keep: string): void {
  for (const name of readdirSync(parent)) {
    const dir = path.join(parent, name);
    if (dir === keep || !/^(editor|unbuilding|building)-/.test(name)) continue;
    try {
      if (Date.now() - statSync(dir).mtimeMs < DAY_MS) continue;
      if (isCurrent(readRecord(path.join(dir, 'build.json')), build)) continue;
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Removed by another run meanwhile.
    }
  }
}

if (import.meta.main) {
  let force = false;
  try {
    ({
      values: { force = false },
    } = parseArgs({ options: { force: { type: 'boolean' } }, strict: true }));
  } catch (error) {
    process.stderr.write(
      `editor-build: ${(error as Error).message} (usage: node scripts/editor-build.ts [--force])\n`,
    );
    process.exit(2);
  }
  try {
    await ensureEditorBuild({ force });
  } catch (error) {
    process.stderr.write(`editor-build: the editor's build failed: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
