/**
 * Node types are discovered from the folders under `nodes/`: adding a type never edits a list.
 * Specs load eagerly (they are small and pure); executors load on first use.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { NodeExecutor, NodeSpec } from './define.ts';
import type { LoopRuntime } from './loop.ts';
import { showWhenProblems } from './show-when.ts';

/** What a node type's execute.ts exports. */
interface ExecuteModule {
  execute?: NodeExecutor<unknown>;
  loop?: LoopRuntime<unknown>;
}

export const NODES_DIR = fileURLToPath(new URL('../../nodes/', import.meta.url));

export interface NodeRegistry {
  /** Every spec by type, in folder-name order. */
  readonly specs: ReadonlyMap<string, NodeSpec<unknown>>;
  get(type: string): NodeSpec<unknown> | undefined;
  executor(type: string): Promise<NodeExecutor<unknown>>;
  /** A loop container's run-time part: `loop` exported by its execute.ts (see ./loop.ts). */
  loopRuntime(type: string): Promise<LoopRuntime<unknown>>;
}

let shared: Promise<NodeRegistry> | undefined;

/** The registry of built-in node types, loaded once per process. */
export function loadNodeRegistry(dir: string = NODES_DIR): Promise<NodeRegistry> {
  if (dir !== NODES_DIR) return discover(dir);
  shared ??= discover(dir);
  return shared;
}

async function discover(dir: string): Promise<NodeRegistry> {
  const folders = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, 'spec.ts')))
    .map((e) => e.name)
    .sort();
  const specs = new Map<string, NodeSpec<unknown>>();
  for (const folder of folders) {
    const mod = (await import(pathToFileURL(join(dir, folder, 'spec.ts')).href)) as {
      spec?: NodeSpec<unknown>;
    };
    if (!mod.spec) throw new Error(`nodes/${folder}/spec.ts must export "spec"`);
    if (mod.spec.type !== folder) {
      throw new Error(
        `nodes/${folder}/spec.ts declares type "${mod.spec.type}"; it must equal the folder name`,
      );
    }
    const problems = showWhenProblems(mod.spec.data);
    if (problems.length) throw new Error(`nodes/${folder}/spec.ts: ${problems.join('; ')}`);
    specs.set(folder, mod.spec);
  }
  const modules = new Map<string, Promise<ExecuteModule>>();
  /** Each execute.ts is imported once, on first use. */
  const load = (type: string): Promise<ExecuteModule> => {
    let loaded = modules.get(type);
    if (!loaded) {
      loaded = import(pathToFileURL(join(dir, type, 'execute.ts')).href) as Promise<ExecuteModule>;
      modules.set(type, loaded);
    }
    return loaded;
  };
  const executors = new Map<string, Promise<NodeExecutor<unknown>>>();
  return {
    specs,
    get: (type) => specs.get(type),
    executor(type) {
      let loaded = executors.get(type);
      if (!loaded) {
        loaded = load(type).then((mod) => {
          if (!mod.execute) throw new Error(`nodes/${type}/execute.ts must export "execute"`);
          return mod.execute;
        });
        executors.set(type, loaded);
      }
      return loaded;
    },
    async loopRuntime(type) {
      const mod = await load(type);
      if (!mod.loop) throw new Error(`nodes/${type}/execute.ts must export "loop" (it is a loop)`);
      return mod.loop;
    },
  };
}
