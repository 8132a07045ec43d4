import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { chooseShell, type ElectronState, electronState, runInstallScript } from './start.ts';

const NO_BINARY: ElectronState = {
  kind: 'no-binary',
  packageDir: '/x/electron',
  version: '45.4.1',
};
const READY: ElectronState = { kind: 'ready', packageDir: '/x/electron', binary: '/x/e' };

describe('npm start', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'society-start-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('finds the electron package here without its program, without loading it', () => {
    // Dependencies install without scripts on these machines, so the download never ran.
    const state = electronState({});
    expect(['no-binary', 'no-package']).toContain(state.kind);
  });

  it('finds the program the way electron/index.js does', () => {
    const pkg = path.join(dir, 'electron');
    mkdirSync(path.join(pkg, 'dist'), { recursive: true });
    writeFileSync(path.join(pkg, 'package.json'), '{"version":"45.4.1"}');
    const resolve = () => path.join(pkg, 'package.json');
    expect(electronState({}, resolve)).toEqual({
      kind: 'no-binary',
      packageDir: pkg,
      version: '45.4.1',
    });
    writeFileSync(path.join(pkg, 'path.txt'), 'electron');
    expect(electronState({}, resolve).kind).toBe('no-binary');
    writeFileSync(path.join(pkg, 'dist', 'electron'), '');
    expect(electronState({}, resolve)).toEqual({
      kind: 'ready',
      packageDir: pkg,
      binary: path.join(pkg, 'dist', 'electron'),
    });
    const missing = () => {
      throw new Error('Cannot find module');
    };
    expect(electronState({}, missing)).toEqual({ kind: 'no-package' });
  });

  it('starts Electron when its program is here, fetching nothing', async () => {
    const install = vi.fn();
    const said: string[] = [];
    const choice = await chooseShell({
      env: {},
      say: (l) => said.push(l),
      state: () => READY,
      install,
      shellPresent: true,
    });
    expect(choice).toBe('electron');
    expect(install).not.toHaveBeenCalled();
    expect(said).toEqual([]);
  });

  it('goes straight to the studio with SOCIETY_NO_ELECTRON=1', async () => {
    const install = vi.fn();
    const said: string[] = [];
    const choice = await chooseShell({
      env: { SOCIETY_NO_ELECTRON: '1' },
      say: (l) => said.push(l),
      state: () => NO_BINARY,
      install,
      shellPresent: true,
    });
    expect(choice).toBe('studio');
    expect(install).not.toHaveBeenCalled();
    expect(said.join('\n')).toMatch(/SOCIETY_NO_ELECTRON=1.*studio/);
  });

  it('fetches the program once, and falls back to the studio saying why when that fails', async () => {
    const install = vi.fn(async () => ({ ok: false as const, reason: 'TypeError: fetch failed' }));
    const said: string[] = [];
    const choice = await chooseShell({
      env: {},
      say: (l) => said.push(l),
      state: () => NO_BINARY,
      install,
      timeoutMs: 5000,
      shellPresent: true,
    });
    expect(choice).toBe('studio');
    expect(install).toHaveBeenCalledTimes(1);
    expect(install).toHaveBeenCalledWith(path.join('/x/electron', 'install.js'), 5000);
    const text = said.join('\n');
    expect(text).toMatch(/Fetching it once .*install\.js.*at most 5 s/);
    expect(text).toMatch(/Could not fetch Electron \(TypeError: fetch failed\).*studio/);
    expect(text).toContain('node node_modules/electron/install.js');
  });

  it('starts Electron once the fetch brings the program', async () => {
    let fetched = false;
    const choice = await chooseShell({
      env: {},
      say: () => {},
      state: () => (fetched ? READY : NO_BINARY),
      install: async () => {
        fetched = true;
        return { ok: true };
      },
      shellPresent: true,
    });
    expect(choice).toBe('electron');
  });

  it('uses the studio when the package or the shell is missing', async () => {
    const install = vi.fn();
    expect(
      await chooseShell({ env: {}, say: () => {}, state: () => ({ kind: 'no-package' }), install }),
    ).toBe('studio');
    expect(
      await chooseShell({ env: {}, say: () => {}, state: () => READY, shellPresent: false }),
    ).toBe('studio');
    expect(install).not.toHaveBeenCalled();
  });

  describe('the install script runner', () => {
    const script = (name: string, text: string) => {
      const file = path.join(dir, name);
      writeFileSync(file, text);
      return file;
    };

    it('reports success', async () => {
      expect(await runInstallScript(script('ok.cjs', 'process.exit(0);'), 5000)).toEqual({
        ok: true,
      });
    });

    it('reports the first line of what a failing script printed, not its stack', async () => {
      const failing = script(
        'fail.cjs',
        "console.error(new TypeError('fetch failed').stack); process.exit(1);",
      );
      expect(await runInstallScript(failing, 5000)).toEqual({
        ok: false,
        reason: 'TypeError: fetch failed',
      });
    });

    it('gives up on a script that hangs, quickly', async () => {
      const started = Date.now();
      const outcome = await runInstallScript(
        script('hang.cjs', 'setInterval(() => {}, 1000);'),
        300,
      );
      expect(outcome).toEqual({ ok: false, reason: expect.stringMatching(/longer than/) });
      expect(Date.now() - started).toBeLessThan(3000);
    });

    it('reports a script that throws or does not exist', async () => {
      expect(
        await runInstallScript(script('throw.cjs', "throw new Error('broken');"), 5000),
      ).toEqual({ ok: false, reason: expect.stringContaining('broken') });
      expect((await runInstallScript(path.join(dir, 'missing.cjs'), 5000)).ok).toBe(false);
    });
  });
});
