/**
 * The run panel's size: how tall its tabs are, and whether the panel is collapsed (the canvas
 * gets the full height) or maximized (the tabs get all but a strip of canvas), kept between
 * sessions in localStorage (sizes only). The tab area never gets so short that a tab is
 * unreadable, nor so tall that the toolbar and the run bar above it disappear.
 */
import { useSyncExternalStore } from 'react';

const STORAGE_KEY = 'society-studio.run-panel-height';
const MODE_KEY = 'society-studio.run-panel-mode';

/** The least height of the tab strip and its body: a tab always shows several lines. */
export const MIN_TABS_HEIGHT = 190;
/** What the toolbar, the run bar, the splitter and a strip of canvas need above the tabs. */
const ROOM_ABOVE = 270;

/** Collapsed: the splitter alone; maximized: the tabs as tall as the window lets them be. */
export type PanelMode = 'normal' | 'collapsed' | 'maximized';

/** The most a window `viewportHeight` tall can give the tabs. */
export function mostTabsHeight(viewportHeight: number): number {
  return Math.max(MIN_TABS_HEIGHT, viewportHeight - ROOM_ABOVE);
}

/** `px` brought within what a window `viewportHeight` tall can give the tabs. */
export function clampTabsHeight(px: number, viewportHeight: number): number {
  return Math.round(Math.min(mostTabsHeight(viewportHeight), Math.max(MIN_TABS_HEIGHT, px)));
}

/** The tabs' height before the user gives one: a quarter of the window, within bounds. */
export function defaultTabsHeight(viewportHeight: number): number {
  return clampTabsHeight(Math.min(420, viewportHeight * 0.24), viewportHeight);
}

/** The tabs' height in a mode, for a window `viewportHeight` tall (0 when collapsed). */
export function tabsHeightFor(mode: PanelMode, viewportHeight: number): number {
  if (mode === 'collapsed') return 0;
  if (mode === 'maximized') return mostTabsHeight(viewportHeight);
  const remembered = rememberedTabsHeight();
  return remembered === null
    ? defaultTabsHeight(viewportHeight)
    : clampTabsHeight(remembered, viewportHeight);
}

/** The height the user last gave the tabs, or null when they never resized them. */
export function rememberedTabsHeight(): number | null {
  try {
    const value = Number(localStorage.getItem(STORAGE_KEY));
    return Number.isFinite(value) && value > 0 ? value : null;
  } catch {
    return null;
  }
}

export function rememberTabsHeight(px: number): void {
  try {
    localStorage.setItem(STORAGE_KEY, String(Math.round(px)));
  } catch {
    // Storage may be full or disabled; the size is a convenience.
  }
}

function rememberedMode(): PanelMode {
  try {
    const value = localStorage.getItem(MODE_KEY);
    return value === 'collapsed' || value === 'maximized' ? value : 'normal';
  } catch {
    return 'normal';
  }
}

let mode: PanelMode | undefined;
const listeners = new Set<() => void>();

/** The panel's mode now (remembered from the last session at first). */
export function panelMode(): PanelMode {
  mode ??= rememberedMode();
  return mode;
}

/** Sets the panel's mode and remembers it. */
export function setPanelMode(next: PanelMode): void {
  if (next === panelMode()) return;
  mode = next;
  try {
    localStorage.setItem(MODE_KEY, next);
  } catch {
    // As for the height: a convenience.
  }
  for (const listener of listeners) listener();
}

/** The panel's mode, re-rendering on change. */
export function usePanelMode(): PanelMode {
  return useSyncExternalStore((listener) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  }, panelMode);
}

/**
 * Sets the tabs' height and the mode on the app: a CSS variable and a data attribute the
 * layout reads (run.css).
 */
export function applyPanel(app: HTMLElement, mode: PanelMode, px: number): void {
  app.dataset.runPanel = mode;
  if (mode !== 'collapsed') app.style.setProperty('--run-tabs-height', `${px}px`);
}
