/**
 * The page holds no backend code: no provider (and so no way to call a model or read a key), no
 * run store, no node's `execute`, no Node built-in, no Electron. Checked on the built bundle
 * itself, through its source maps, so a stray import anywhere in the renderer's graph shows up.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';

const FORBIDDEN: Array<{ what: string; pattern: RegExp }> = [
  { what: 'a model provider', pattern: /(^|\/)app\/providers\// },
  { what: 'the run store', pattern: /(^|\/)app\/store\// },
  { what: 'the run engine', pattern: /(^|\/)app\/runtime\/(engine|machine-runtime|debugger)\.ts$/ },
  { what: "a node's execute code", pattern: /(^|\/)nodes\/[^/]+\/execute\.ts$/ },
  { what: 'the CLI', pattern: /(^|\/)app\/cli\// },
  { what: 'the main process', pattern: /(^|\/)main\// },
  { what: 'the OpenAI SDK', pattern: /node_modules\/openai\// },
  { what: 'SQLite', pattern: /node_modules\/better-sqlite3\// },
  { what: 'Electron', pattern: /node_modules\/electron\// },
  { what: 'the WebSocket server', pattern: /node_modules\/ws\// },
];

describe('the renderer bundle', () => {
  it('bundles the editor and none of the backend', () => {
    const dir = inject('rendererDir');
    const assets = path.join(dir, 'assets');
    const maps = readdirSync(assets).filter((f) => f.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(0);
    const sources = new Set<string>();
    for (const map of maps) {
      const { sources: list } = JSON.parse(readFileSync(path.join(assets, map), 'utf8')) as {
        sources: string[];
      };
      for (const s of list) sources.add(s.replace(/\\/g, '/'));
    }
    // What it must hold, so an empty or broken build cannot pass.
    const has = (re: RegExp) => [...sources].some((s) => re.test(s));
    expect(has(/renderer\/editor\/Canvas\.tsx$/)).toBe(true);
    expect(has(/nodes\/agent\/spec\.ts$/)).toBe(true);
    expect(has(/node_modules\/monaco-editor\//)).toBe(true);
    expect(has(/node_modules\/@xyflow\/react\//)).toBe(true);

    const found = FORBIDDEN.flatMap(({ what, pattern }) =>
      [...sources].filter((s) => pattern.test(s)).map((s) => `${what}: ${s}`),
    );
    expect(found).toEqual([]);
  });

  it('bundles Monaco and its workers rather than loading them from a CDN', () => {
    // The page's requests are checked at run time by the end-to-end tests (tests/e2e): every
    // one goes to the studio's own origin.
    const dir = inject('rendererDir');
    const files = readdirSync(path.join(dir, 'assets'));
    expect(files.some((f) => /^editor\.worker-.*\.js$/.test(f))).toBe(true);
    expect(files.some((f) => /^json\.worker-.*\.js$/.test(f))).toBe(true);
    const html = readFileSync(path.join(dir, 'index.html'), 'utf8');
    expect(html).not.toMatch(/https?:\/\//);
  });
});
