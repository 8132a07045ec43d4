/**
 * What node folders ship for the page, found at build time: each loader globs its own file
 * (`nodes/<type>/spec.ts`, `view.tsx`, `run-view.tsx`; a glob must be written out where it is used)
 * and hands the modules here, which keys one named export by the folder it came from.
 */

/**
 * The export `name` of each module, by its folder's name, in folder-name order; modules without
 * it are left out. `accept` may refuse one (it is told the folder).
 */
export function byFolder<T>(
  modules: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
  name: string,
  accept: (value: T, folder: string, path: string) => boolean = () => true,
): Map<string, T> {
  const found = new Map<string, T>();
  for (const [path, mod] of Object.entries(modules).sort(([a], [b]) => a.localeCompare(b))) {
    const folder = /([^/]+)\/[^/]+$/.exec(path)?.[1];
    const value = mod[name] as T | undefined;
    if (folder && value !== undefined && accept(value, folder, path)) found.set(folder, value);
  }
  return found;
}
