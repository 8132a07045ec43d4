/**
 * The worlds that come with the product. They are plain world files in worlds/, imported as
 * JSON so the editor's bundle has them as well as the engine; a user copies one to edit it.
 */
import { DocumentError } from '../../schema/problems.ts';
import type { WorldSpec } from './format.ts';
import { loadWorld } from './load.ts';
import irollan from './worlds/irollan-valley.world.json' with { type: 'json' };

const BUILTIN: Record<string, unknown> = { 'irollan-valley': irollan };

/** The names of the built-in worlds (`irollan-valley`). */
export const BUILTIN_WORLDS: readonly string[] = Object.keys(BUILTIN);

/** A built-in world's spec, checked; undefined for an unknown name. */
export function builtinWorld(name: string): WorldSpec | undefined {
  const raw = BUILTIN[name];
  if (raw === undefined) return undefined;
  const loaded = loadWorld(structuredClone(raw));
  if (!loaded.ok) throw new DocumentError(loaded.problems);
  return loaded.spec;
}

/**
 * The Irollan Valley of ITCMA-S: six homes (AY, SG, MD, WL, LL, WM), the canteen and the
 * reading room, joined by the courtyard; 32 items, among them books, food, toys, clothes, a
 * $10 bill, a gold coin and a magnifying glass.
 */
export function irollanValley(): WorldSpec {
  return builtinWorld('irollan-valley')!;
}
