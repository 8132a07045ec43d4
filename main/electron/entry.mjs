/**
 * The desktop app's entry point (package.json "main"). The main process is TypeScript
 * (main.ts), loaded the way `node` loads the CLI: Electron 45 runs Node 24, which strips types
 * natively, so the core in app/ and the node types in nodes/ (discovered and imported at run
 * time) load as they are, with no build step and no second copy of the engine.
 *
 * This file is plain JavaScript so that an Electron that cannot load TypeScript, or a main
 * process that fails while loading, says so in a dialog instead of dying silently. It is
 * awaited at the top level, so main.ts registers the app:// scheme before `ready`.
 */
import { app, dialog } from 'electron';

try {
  await import('./main.ts');
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  const cannotLoadTypeScript =
    error !== null &&
    typeof error === 'object' &&
    'code' in error &&
    error.code === 'ERR_UNKNOWN_FILE_EXTENSION';
  dialog.showErrorBox(
    'Society Studio cannot start',
    cannotLoadTypeScript
      ? `This Electron (Node ${process.versions.node}) cannot load TypeScript files. Society Studio needs an Electron whose Node strips types (Electron 45 or later).\n\n${message}`
      : message,
  );
  process.stderr.write(`society desktop: ${error instanceof Error ? error.stack : message}\n`);
  app.exit(1);
}
