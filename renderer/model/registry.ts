/**
 * Node types in the editor, discovered from `nodes/<type>/spec.ts` at build time: adding a folder
 * adds a palette entry, with no list to edit here. Only specs are bundled (pure data and zod);
 * `execute.ts` never reaches the page.
 */
import type { NodeSpec } from '../../app/node-sdk/define.ts';
import { byFolder } from './node-folders.ts';

// `@nodes` is the nodes/ folder (vite.config.ts), or a test's folder with fixture types too.
const modules = import.meta.glob<{ spec?: NodeSpec<unknown> }>('@nodes/*/spec.ts', {
  eager: true,
});

function discover(): Map<string, NodeSpec<unknown>> {
  return byFolder<NodeSpec<unknown>>(modules, 'spec', (spec, folder, path) => {
    if (spec.type === folder) return true;
    // The engine refuses a folder whose spec names another type; the editor just skips it so
    // one broken node type does not take the whole page down.
    console.warn(`skipping ${path}: it must export a spec whose type is "${folder}"`);
    return false;
  });
}

/** Every spec by type, in folder-name order. */
export const SPECS: ReadonlyMap<string, NodeSpec<unknown>> = discover();

export function specOf(type: string | undefined): NodeSpec<unknown> | undefined {
  return type === undefined ? undefined : SPECS.get(type);
}

/** Palette groups in the order a society is usually built. */
export const GROUP_ORDER: ReadonlyArray<NodeSpec['group']> = [
  'Flow',
  'Minds',
  'Experts',
  'Decisions',
  'People',
  'Data',
  'Structure',
];
