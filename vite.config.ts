import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The folder of node types the editor bundles: each `<type>/spec.ts` and, when present,
 * `<type>/view.tsx` under it (renderer/model/registry.ts, renderer/editor/nodeViews.ts). The
 * end-to-end tests point it at a folder that adds fixture types beside the built-in ones.
 */
export const NODES_ALIAS = '@nodes';
export const NODES_DIR = fileURLToPath(new URL('./nodes', import.meta.url));

/**
 * The editor's build. The root is renderer/ so index.html sits at the site root, and `base: './'`
 * keeps every asset URL relative: the same bundle loads from the studio server, from a file
 * served under a sub-path, or from Electron's app:// scheme. The page talks only to the studio's
 * `/api` WebSocket on its own origin, which checks the token and Origin, so there is no dev-server
 * proxy: for live work run `npx vite build --watch` next to the studio (`npm run studio` builds
 * only when the sources changed since its last build, scripts/editor-build.ts).
 */
export default defineConfig({
  root: fileURLToPath(new URL('./renderer', import.meta.url)),
  base: './',
  plugins: [react()],
  resolve: { alias: { [NODES_ALIAS]: NODES_DIR } },
  build: {
    outDir: fileURLToPath(new URL('./dist/renderer', import.meta.url)),
    emptyOutDir: true,
    // The CSP forbids inline scripts; Vite's module preload polyfill would be one.
    modulePreload: { polyfill: false },
    sourcemap: true,
    // Monaco is one large chunk by nature; it loads lazily, with the first prompt editor.
    chunkSizeWarningLimit: 4096,
  },
});
