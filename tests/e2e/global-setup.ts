/**
 * Builds the editor once before the suite, so the end-to-end tests run the renderer of this
 * checkout, not a stale build. Skipped where the end-to-end tests skip (no Chromium).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { RENDERER_DIR } from './support.ts';

export default async function setup(): Promise<void> {
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(chromium) || process.env.SOCIETY_SKIP_RENDERER_BUILD === '1') return;
  await build({
    configFile: fileURLToPath(new URL('../../vite.config.ts', import.meta.url)),
    logLevel: 'warn',
    build: { outDir: RENDERER_DIR, emptyOutDir: true, sourcemap: false },
  });
}
