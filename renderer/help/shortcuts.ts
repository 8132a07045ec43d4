/**
 * The editor's keyboard shortcuts, in one list: the handlers (App.tsx, the canvas, the help and
 * the search) ask `shortcutOf` which one a key press is, and the help overlay lists the same
 * entries, so what it shows is what the keys do.
 */

/** A shortcut: the keys (`Mod` is Ctrl, or ⌘ on a Mac), what it does, and where it works. */
export interface Shortcut {
  id: ShortcutId;
  /** Each alternative, keys joined by `+`: `Mod+Shift+Z`. */
  keys: readonly string[];
  does: string;
  /** Where it works, when not everywhere outside text fields. */
  where?: string;
}

export type ShortcutId =
  | 'help'
  | 'search'
  | 'save'
  | 'undo'
  | 'redo'
  | 'copy'
  | 'paste'
  | 'delete'
  | 'multi-select'
  | 'box-select'
  | 'run-panel'
  | 'close';

/** Every shortcut, in the order the help lists them. */
export const SHORTCUTS: readonly Shortcut[] = [
  { id: 'help', keys: ['?'], does: 'Show the shortcuts and the docs' },
  { id: 'search', keys: ['Mod+K', '/'], does: 'Search nodes on the canvas, runs and evals' },
  { id: 'save', keys: ['Mod+S'], does: 'Save the document', where: 'anywhere' },
  { id: 'undo', keys: ['Mod+Z'], does: 'Undo an edit of the graph' },
  { id: 'redo', keys: ['Mod+Shift+Z', 'Mod+Y'], does: 'Redo' },
  { id: 'copy', keys: ['Mod+C'], does: 'Copy the selected nodes' },
  { id: 'paste', keys: ['Mod+V'], does: 'Paste the copied nodes' },
  {
    id: 'delete',
    keys: ['Delete', 'Backspace'],
    does: 'Delete the selected nodes and wires',
    where: 'on the canvas',
  },
  {
    id: 'multi-select',
    keys: ['Shift+click', 'Mod+click'],
    does: 'Add a node to the selection',
    where: 'on the canvas',
  },
  {
    id: 'box-select',
    keys: ['Shift+drag'],
    does: 'Select the nodes in a box',
    where: 'on the canvas',
  },
  { id: 'run-panel', keys: ['Mod+J'], does: 'Hide or show the run panel', where: 'anywhere' },
  { id: 'close', keys: ['Escape'], does: 'Close a dialog, this help or the search results' },
];

/** The canvas's keys for deleting the selection (React Flow's `deleteKeyCode`). */
export const DELETE_KEYS = ['Delete', 'Backspace'];
/** The canvas's keys held to add to the selection (React Flow's `multiSelectionKeyCode`). */
export const MULTI_SELECT_KEYS = ['Meta', 'Control', 'Shift'];
/** The key held to draw a selection box (React Flow's `selectionKeyCode`). */
export const BOX_SELECT_KEY = 'Shift';

/** Whether this machine is a Mac, where `Mod` is ⌘. */
function isMac(): boolean {
  return typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
}

/** A key combination as the person reads it on this machine: `Ctrl+Shift+Z`, `⌘+K`. */
export function keyLabel(keys: string): string {
  return keys.replace(/\bMod\b/g, isMac() ? '⌘' : 'Ctrl').replace('Escape', 'Esc');
}

/**
 * Which shortcut a key press is, or undefined. The letter shortcuts need Ctrl or ⌘ (without
 * Alt); `?` and `/` are plain keys, which the caller ignores while the person is typing.
 */
export function shortcutOf(e: KeyboardEvent): ShortcutId | undefined {
  const mod = (e.ctrlKey || e.metaKey) && !e.altKey;
  const key = e.key.toLowerCase();
  if (mod) {
    if (key === 's') return 'save';
    if (key === 'k') return 'search';
    if (key === 'z') return e.shiftKey ? 'redo' : 'undo';
    if (key === 'y') return 'redo';
    if (key === 'c') return 'copy';
    if (key === 'v') return 'paste';
    if (key === 'j' && !e.shiftKey) return 'run-panel';
    return undefined;
  }
  if (e.ctrlKey || e.metaKey || e.altKey) return undefined;
  if (e.key === '?') return 'help';
  if (e.key === '/') return 'search';
  if (e.key === 'Escape') return 'close';
  return undefined;
}

/**
 * Whether a key press goes to a text field: an input, a text area, a select, anything
 * editable, or Monaco (which types through an EditContext element that is neither; its frame
 * carries `nokey`).
 */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return (
    target.isContentEditable ||
    ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName) ||
    target.closest('.nokey') !== null
  );
}
