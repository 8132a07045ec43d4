/**
 * The Chromium the end-to-end tests drive: Debian's, or the one CHROMIUM_PATH names, with the
 * flags a machine without network needs. tests/e2e/global-setup.ts starts one for the whole run;
 * each test's studio opens its own isolated browser context in it.
 */
import { existsSync } from 'node:fs';

/** Debian's Chromium, or the one CHROMIUM_PATH names. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

/** Flags for headless Chromium on a machine without network (see the env notes). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
