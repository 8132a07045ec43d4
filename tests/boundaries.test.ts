/**
 * Where code may reach, read from the import statements of the source files themselves:
 *
 * - the core (app/runtime, app/compiler, app/costs) imports nothing from nodes/: it reaches node
 *   types only through the registry (app/node-sdk/registry.ts) and the hooks on their specs;
 * - the core and the node SDK import no domain folder (app/experts, app/environments,
 *   app/analytics, app/eval, app/tools): what a run needs of one (expert providers, tool
 *   sources) it is handed;
 * - the base providers (app/providers) import no image code (app/imageops);
 * - node types (nodes/ and the end-to-end fixture types in tests/e2e/fixture-nodes/) never
 *   import the run store or the providers (they get capabilities through their context); types
 *   from app/providers/types.ts are allowed, as messages are part of the node SDK;
 * - the `society` command is a face, not a library: nothing in main/ or app/eval/ imports app/cli/
 *   (the eval workers, the API and the CLI share what a run leaves through app/runs/, and the
 *   paper tables' layouts through app/paper-tables/), and app/runs/ imports neither its users
 *   nor main/; the libraries the CLI prints with (app/paper-tables/, app/terminal/) import no
 *   CLI code either;
 * - a spec.ts, which the editor loads, reaches no execution-side module of a node type, and
 *   neither does the renderer (tests/renderer-bundle.test.ts checks the built bundle too);
 * - app/, main/ and the renderer never compare a node's type to a built-in type's name: what a
 *   type means to them (run inputs, answers, pasted ids, badges) its spec says;
 * - NLSOM's rights and structures are words of the mindstorm's folder, not of the core or the SDK;
 * - no code file is longer than 600 lines, data tables excepted.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CODE = /\.(ts|tsx|js|mjs|cjs)$/;
const MAX_LINES = 600;

/** Data tables: long because they list data, not because they hold several concepts. */
const DATA_TABLES = new Set(['app/environments/cuisineworld/data.ts']);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(ROOT, dir))) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...sourceFiles(path));
    else if (CODE.test(entry)) out.push(path);
  }
  return out;
}

const files = ['app', 'main', 'nodes', 'renderer', 'bench', 'tests'].flatMap(sourceFiles);

/** Relative module paths a file imports or re-exports (static and dynamic), resolved. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\b[^'"`;]*?\bfrom\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1]!);
  return specifiers
    .filter((s) => s.startsWith('.'))
    .map((s) => relative(ROOT, resolve(ROOT, dirname(file), s)));
}

const imports = new Map(files.map((f) => [f, importsOf(f)]));

/** Every file reachable from `start` through relative imports. */
function reachable(start: string): Set<string> {
  const seen = new Set<string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    queue.push(...(imports.get(file) ?? []));
  }
  return seen;
}

/** `file imports target` lines for every import of a file in `from` that `bad` rejects. */
function offending(from: (file: string) => boolean, bad: (target: string) => boolean): string[] {
  return files
    .filter(from)
    .flatMap((f) => (imports.get(f) ?? []).filter(bad).map((t) => `${f} imports ${t}`));
}

const isTest = (f: string) => /\.test\.tsx?$/.test(f);
/** Tests and the harnesses they share beside the code (`*.test-helper.ts`). */
const isTestSide = (f: string) => isTest(f) || /\.test-helper\.tsx?$/.test(f);

/** Node type folders: the built-in ones, and the end-to-end tests' fixture types. */
const NODE_FOLDER = /^(nodes|tests\/e2e\/fixture-nodes)\/[^/]+\//;
const inNodeFolder = (f: string) => NODE_FOLDER.test(f);

describe('import boundaries', () => {
  it('reads the imports it checks', () => {
    // A guard on the regexes: if they found nothing, every check below would pass vacuously.
    expect(imports.get('app/runtime/run.ts')).toContain('app/runtime/node-runner.ts');
    expect(imports.get('nodes/mindstorm/execute.ts')).toContain('nodes/mindstorm/loop.ts');
  });

  it('keeps the core free of node types: app/runtime, app/compiler and app/costs', () => {
    const core = (f: string) => /^app\/(runtime|compiler|costs)\//.test(f) && !isTest(f);
    expect(offending(core, (t) => t.startsWith('nodes/'))).toEqual([]);
  });

  it('keeps the core and the node SDK free of domain folders: experts, environments, analytics, eval, tools', () => {
    const core = (f: string) => /^app\/(runtime|compiler|costs|node-sdk)\//.test(f) && !isTest(f);
    const domain = (t: string) => /^app\/(experts|environments|analytics|eval|tools)\//.test(t);
    expect(offending(core, domain)).toEqual([]);
    // The guard: the expert providers a run is handed come from the experts folder.
    expect(imports.get('app/cli/execute.ts')).toContain('app/experts/providers.ts');
  });

  it('keeps image code out of the base providers: app/providers imports nothing from app/imageops', () => {
    const providers = (f: string) => f.startsWith('app/providers/') && !isTestSide(f);
    expect(offending(providers, (t) => t.startsWith('app/imageops/'))).toEqual([]);
    // The guard: the simulated provider's eyes are image code, handed in by the engine.
    expect(imports.get('app/runtime/calls.ts')).toContain('app/imageops/simulated-vision.ts');
  });

  it('reaches nodes/ from app/ only through the registry (tests aside)', () => {
    const app = (f: string) => f.startsWith('app/') && !isTest(f);
    expect(offending(app, (t) => t.startsWith('nodes/'))).toEqual([]);
  });

  it('keeps the CLI a face: main/ and app/eval/ import nothing from app/cli/', () => {
    const users = (f: string) => /^(main|app\/eval)\//.test(f) && !isTestSide(f);
    expect(offending(users, (t) => t.startsWith('app/cli/'))).toEqual([]);
    // The guard: the libraries they share are what they import instead.
    expect(imports.get('main/api/history.ts')).toContain('app/runs/fork.ts');
    expect(imports.get('app/eval/job.ts')).toContain('app/runs/record.ts');
    expect(imports.get('main/api/evals.ts')).toContain('app/paper-tables/index.ts');
  });

  it('keeps the paper tables and the terminal text below the CLI: they import nothing from app/cli/', () => {
    const libraries = (f: string) => /^app\/(paper-tables|terminal)\//.test(f) && !isTestSide(f);
    expect(offending(libraries, (t) => t.startsWith('app/cli/'))).toEqual([]);
    // The guard: the table commands print with the library's presenters and tables.
    expect(imports.get('app/cli/commands/itcma/eval.ts')).toContain(
      'app/paper-tables/itcma/table1.ts',
    );
  });

  it('keeps the run-record library below its users: app/runs/ imports no CLI, API or eval runner', () => {
    const runs = (f: string) => f.startsWith('app/runs/') && !isTestSide(f);
    const users = (t: string) =>
      t.startsWith('app/cli/') ||
      t.startsWith('main/') ||
      (t.startsWith('app/eval/') && t !== 'app/eval/types.ts');
    expect(offending(runs, users)).toEqual([]);
  });

  it('keeps the node SDK below the engine: app/node-sdk/ imports nothing from app/runtime/', () => {
    const sdk = (f: string) => f.startsWith('app/node-sdk/') && !isTestSide(f);
    expect(offending(sdk, (t) => t.startsWith('app/runtime/'))).toEqual([]);
    // The guard: the shapes nodes report are the SDK's own, and the engine's events take them.
    expect(imports.get('app/runtime/events.ts')).toContain('app/node-sdk/reported.ts');
  });

  it('keeps node types away from the run store and the providers', () => {
    const node = (f: string) => inNodeFolder(f) && !isTest(f);
    const bad = (t: string) =>
      t.startsWith('app/store/') ||
      (t.startsWith('app/providers/') && t !== 'app/providers/types.ts');
    expect(offending(node, bad)).toEqual([]);
  });

  it('keeps execution-side node code out of specs and the renderer', () => {
    const specs = files.filter((f) => inNodeFolder(f) && f.endsWith('/spec.ts'));
    const editorSide = new Set(specs.flatMap((s) => [...reachable(s)]));
    const executeSide = new Set(
      files
        .filter((f) => inNodeFolder(f) && f.endsWith('/execute.ts'))
        .flatMap((e) => [...reachable(e)])
        .filter((f) => inNodeFolder(f) && !editorSide.has(f)),
    );
    expect(executeSide.has('nodes/mindstorm/loop.ts')).toBe(true);
    expect(executeSide.has('tests/e2e/fixture-nodes/chorus/execute.ts')).toBe(true);
    for (const spec of specs) {
      expect(
        [...reachable(spec)].filter((f) => executeSide.has(f)),
        spec,
      ).toEqual([]);
    }
    const renderer = (f: string) => f.startsWith('renderer/') && !isTest(f);
    expect(offending(renderer, (t) => executeSide.has(t))).toEqual([]);
  });
});

/** The built-in node types: the folders under nodes/ that hold a spec, as the registry reads them. */
const NODE_TYPES = readdirSync(join(ROOT, 'nodes'), { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(join(ROOT, 'nodes', e.name, 'spec.ts')))
  .map((e) => e.name);

/**
 * Run event types, read from the `RunEvent` union. Should one share a node type's name, code
 * that folds events would rightly compare `e.type` with it: a comparison whose receiver is
 * named as an event (`e`, `ev`, `event`) and whose name is an event type is not about a node.
 */
const EVENT_TYPES = new Set(
  [
    ...readFileSync(join(ROOT, 'app/runtime/events.ts'), 'utf8').matchAll(/\btype: '([\w.]+)'/g),
  ].map((m) => m[1]!),
);
const EVENT_RECEIVERS = new Set(['e', 'ev', 'event']);

/**
 * `x.type === 'agent'`, `x?.type !== "vote"`, `'input' == xs[0]!.type` and the like, for every
 * built-in type, and a bare `type === 'mindstorm'`: the receiver's last name (`x`, or none),
 * the name the quoted type.
 */
function typeComparisons(text: string): Array<{ at: number; receiver: string; name: string }> {
  const names = NODE_TYPES.join('|');
  // A receiver is optional: a destructured `type` prop is a node's type too.
  const receiver = String.raw`(?:([\w$.()[\]!?]+)\.)?\btype\b`;
  const pattern = new RegExp(
    String.raw`${receiver}\s*[!=]==?\s*(['"\x60])(${names})\2|(['"\x60])(${names})\4\s*[!=]==?\s*${receiver}`,
    'g',
  );
  return [...text.matchAll(pattern)].map((m) => ({
    at: m.index,
    // The receiver's last name: `e` in `(e.type`, `event` in `event?.type`.
    receiver: /([\w$]+)[?!]*$/.exec(m[1] ?? m[6] ?? '')?.[1] ?? '',
    name: (m[3] ?? m[5])!,
  }));
}

/** `file:line: text` for each comparison of a node's type to a built-in type's name. */
function namedTypes(file: string, text: string): string[] {
  return typeComparisons(text)
    .filter((c) => !(EVENT_RECEIVERS.has(c.receiver) && EVENT_TYPES.has(c.name)))
    .map((c) => {
      const line = text.slice(0, c.at).split('\n').length;
      return `${file}:${line}: ${text.split('\n')[line - 1]!.trim()}`;
    });
}

describe('node types named', () => {
  it('finds a comparison with a type name, and lets run events through', () => {
    // A guard on the pattern: if it found nothing, the check below would pass vacuously.
    expect(NODE_TYPES).toEqual(expect.arrayContaining(['input', 'human', 'mindstorm', 'vote']));
    // A vote is a report now (`kind: 'tally'`), not an event type of its own.
    expect(EVENT_TYPES.has('vote')).toBe(false);
    const sample = [
      "if (node.type === 'mindstorm') return;",
      'const human = n?.type !== "human";',
      "if ('input' === nodes[0]!.type) skip();",
      "if (e.type === 'vote') tally(e);",
      "if (node.type === 'vote') tally(node);",
      "if (node.type === 'voter') skip();",
      "{type === 'mindstorm' ? <Rounds /> : null}",
    ].join('\n');
    expect(namedTypes('sample.ts', sample).map((s) => s.split(':')[1])).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '7',
    ]);
  });

  it('never compares a node type to a built-in name in app/, main/ or the renderer', () => {
    const found = files
      .filter((f) => /^(app|main|renderer)\//.test(f) && !isTest(f))
      .flatMap((f) => namedTypes(f, readFileSync(join(ROOT, f), 'utf8')));
    expect(found).toEqual([]);
  });
});

describe('paper words', () => {
  it("keeps NLSOM's rights and structures out of the core and the node SDK: the mindstorm owns them", () => {
    const core = (f: string) => /^app\/(runtime|compiler|costs|node-sdk)\//.test(f) && !isTest(f);
    const words = /\b(rtk|rtc|rte|monarchy|democracy|peers)\b/i;
    const found = files.filter(core).flatMap((f) =>
      readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .flatMap((line, i) => (words.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
    // The guard: the words are where they belong.
    expect(readFileSync(join(ROOT, 'nodes/mindstorm/rights.ts'), 'utf8')).toMatch(words);
  });
});

describe('file size', () => {
  const lines = (f: string) => readFileSync(join(ROOT, f), 'utf8').split('\n').length;

  it(`keeps every code file at ${MAX_LINES} lines or fewer, data tables aside`, () => {
    const long = files
      .filter((f) => !DATA_TABLES.has(f))
      .filter((f) => lines(f) > MAX_LINES)
      .map((f) => `${f}: ${lines(f)} lines`);
    expect(long).toEqual([]);
  });
});
