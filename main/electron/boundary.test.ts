import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHELL = path.join(ROOT, 'main', 'electron');
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs|jsx)$/;

/** An import, re-export, dynamic import or require of `electron` or one of its subpaths. */
const ELECTRON_IMPORT =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)['"]electron(?:\/[^'"]*)?['"]/;

function sources(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) {
      continue;
    }
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sources(full));
    else if (SOURCE.test(entry.name)) files.push(full);
  }
  return files;
}

describe('the electron boundary', () => {
  it('matches every way of importing electron', () => {
    for (const line of [
      "import { app } from 'electron';",
      'import type { WebPreferences } from "electron";',
      "const { ipcRenderer } = require('electron');",
      "await import('electron/main');",
      "export { shell } from 'electron';",
      "import 'electron';",
    ]) {
      expect(ELECTRON_IMPORT.test(line), line).toBe(true);
    }
    expect(ELECTRON_IMPORT.test("import x from 'electron-builder';")).toBe(false);
    expect(ELECTRON_IMPORT.test("const name = 'electron';")).toBe(false);
  });

  it('keeps every electron import inside main/electron', () => {
    const offenders = ['app', 'nodes', 'renderer', 'main', 'bin']
      .flatMap((dir) => sources(path.join(ROOT, dir)))
      .filter((file) => !file.startsWith(SHELL + path.sep))
      .filter((file) => ELECTRON_IMPORT.test(readFileSync(file, 'utf8')))
      .map((file) => path.relative(ROOT, file));
    expect(offenders).toEqual([]);
  });
});
