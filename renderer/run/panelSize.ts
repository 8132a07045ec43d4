/**
 * The run panel's size: how tall its tabs are, kept between sessions in localStorage (sizes
 * only). The tab area never gets so short that a tab is unreadable, nor so tall that the canvas
 * above it disappears.
 */
const STORAGE_KEY = 'society-studio.run-panel-height';

/** The least height of the tab strip and its body: a tab always shows several lines. */
export const MIN_TABS_HEIGHT = 190;
/** What the toolbar, the run bar and a usable canvas need above the tabs. */
const ROOM_ABOVE = 330;

/** `px` brought within what a window `viewportHeight` tall can give the tabs. */
export function clampTabsHeight(px: number, viewportHeight: number): number {
  const most = Math.max(MIN_TABS_HEIGHT, viewportHeight - ROOM_ABOVE);
  return Math.round(Math.min(most, Math.max(MIN_TABS_HEIGHT, px)));
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

/** Sets the tabs' height on the app (a CSS variable the layout reads). */
export function applyTabsHeight(app: HTMLElement, px: number): void {
  app.style.setProperty('--run-tabs-height', `${px}px`);
}
