/**
 * Node types that exist only for the end-to-end tests (tests/e2e/fixture-nodes/<type>/). The
 * editor bundles node types from one folder (vite.config.ts's `@nodes`), so the tests build it
 * from a folder of links: every built-in type and every fixture type. The studio's engine gets
 * a registry of both. The repository's nodes/ is never written to.
 */
import { readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NodeRegistry } from '../../app/node-sdk/registry.ts';
import { loadNodeRegistry, NODES_DIR } from '../../app/node-sdk/registry.ts';

export const FIXTURE_NODES_DIR = fileURLToPath(new URL('./fixture-nodes/', import.meta.url));

/** Fills `dir` (empty) with links to each built-in and fixture node type's folder. */
export function linkNodeTypes(dir: string): void {
  for (const from of [NODES_DIR, FIXTURE_NODES_DIR]) {
    for (const entry of readdirSync(from, { withFileTypes: true })) {
      if (entry.isDirectory())
        symlinkSync(path.join(from, entry.name), path.join(dir, entry.name), 'junction');
    }
  }
}

/** The built-in node types and the fixture ones, as one registry for a studio. */
export async function registryWithFixtures(): Promise<NodeRegistry> {
  const parts = [await loadNodeRegistry(), await loadNodeRegistry(FIXTURE_NODES_DIR)];
  const specs = new Map(parts.flatMap((r) => [...r.specs]));
  const ownerOf = (type: string) => parts.find((r) => r.specs.has(type)) ?? parts[0]!;
  return {
    specs,
    get: (type) => specs.get(type),
    executor: (type) => ownerOf(type).executor(type),
    loopRuntime: (type) => ownerOf(type).loopRuntime(type),
  };
}
