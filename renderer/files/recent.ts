/**
 * Recently opened or saved workspace files, newest first, remembered by this browser (or app
 * window) in localStorage. Only file names are kept, never contents.
 */
const STORAGE_KEY = 'society-studio.recent-files';
const LIMIT = 8;

/** The remembered names, newest first. */
export function recentFiles(): string[] {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '[]');
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

/** Puts a file at the top of the list. */
export function rememberRecent(name: string): void {
  const next = [name, ...recentFiles().filter((n) => n !== name)].slice(0, LIMIT);
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(next));
  } catch {
    // Storage may be full or disabled; the list is a convenience.
  }
}

/**
 * The workspace's files for the Open dialog: the recent ones first in the order they were used,
 * then the rest by modification time, newest first. Names no longer in the workspace are dropped.
 */
export function orderForOpening<T extends { name: string; modifiedAt: number }>(
  files: readonly T[],
  recent: readonly string[],
): Array<T & { recent: boolean }> {
  const byName = new Map(files.map((f) => [f.name, f]));
  const first = recent.flatMap((n) => {
    const f = byName.get(n);
    return f ? [{ ...f, recent: true }] : [];
  });
  const seen = new Set(first.map((f) => f.name));
  const rest = files
    .filter((f) => !seen.has(f.name))
    .sort((a, b) => b.modifiedAt - a.modifiedAt)
    .map((f) => ({ ...f, recent: false }));
  return [...first, ...rest];
}
