/**
 * The studio's colour theme: light or dark, following the system unless Settings picks one. The
 * pick is kept in localStorage and written to `<html data-theme>` before the first render
 * (main.tsx), so the page never flashes the other theme; styles.css defines every colour with
 * `light-dark()` and `data-theme` sets the `color-scheme` that resolves them. The few places that
 * need the resolved theme in script (React Flow's colour mode, Monaco's theme) read `useTheme()`.
 */
import { useSyncExternalStore } from 'react';

/** What the user picked in Settings. */
export type ThemeChoice = 'system' | 'light' | 'dark';
/** The theme on screen. */
export type Theme = 'light' | 'dark';

const STORAGE_KEY = 'society-studio.theme';
const CHANGED = 'society-theme-change';
const LIGHT_QUERY = '(prefers-color-scheme: light)';

/** The saved pick ('system' when none, or when storage is unavailable). */
export function themeChoice(): ThemeChoice {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    return saved === 'light' || saved === 'dark' ? saved : 'system';
  } catch {
    return 'system';
  }
}

/** Puts the saved pick on `<html>`; called once before the first render. */
export function applySavedTheme(): void {
  document.documentElement.dataset.theme = themeChoice();
}

/** Saves a pick and applies it at once. */
export function setThemeChoice(choice: ThemeChoice): void {
  try {
    if (choice === 'system') localStorage.removeItem(STORAGE_KEY);
    else localStorage.setItem(STORAGE_KEY, choice);
  } catch {
    // Storage refused (a private window): the pick holds for this page only.
  }
  document.documentElement.dataset.theme = choice;
  window.dispatchEvent(new Event(CHANGED));
}

function resolved(): Theme {
  const choice = document.documentElement.dataset.theme;
  if (choice === 'light' || choice === 'dark') return choice;
  return window.matchMedia(LIGHT_QUERY).matches ? 'light' : 'dark';
}

function subscribe(onChange: () => void): () => void {
  const media = window.matchMedia(LIGHT_QUERY);
  media.addEventListener('change', onChange);
  window.addEventListener(CHANGED, onChange);
  return () => {
    media.removeEventListener('change', onChange);
    window.removeEventListener(CHANGED, onChange);
  };
}

/** The theme on screen, updated when the pick or the system's scheme changes. */
export function useTheme(): Theme {
  return useSyncExternalStore(subscribe, resolved, () => 'dark');
}

/** The pick, updated when it changes (for the Settings control). */
export function useThemeChoice(): ThemeChoice {
  return useSyncExternalStore(subscribe, themeChoice, () => 'system');
}
