import { describe, expect, it, vi } from 'vitest';
import { dist, packagingReadiness } from './dist.ts';
import type { ElectronState } from './electron-program.ts';

const NO_BINARY: ElectronState = {
  kind: 'no-binary',
  packageDir: '/x/electron',
  version: '45.4.1',
};
const READY: ElectronState = { kind: 'ready', packageDir: '/x/electron', binary: '/x/e' };

describe('npm run dist', () => {
  it("says in one line how to get Electron's program when only the package is here", () => {
    const ready = packagingReadiness(NO_BINARY, true, {});
    expect(ready.ok).toBe(false);
    const problem = (ready as { problem: string }).problem;
    expect(problem).not.toContain('\n');
    expect(problem).toContain("Electron 45.4.1's program");
    expect(problem).toContain('node node_modules/electron/install.js');
  });

  it('asks for npm install when electron-builder or electron is missing', () => {
    expect(packagingReadiness(READY, false, {})).toEqual({
      ok: false,
      problem: expect.stringMatching(/^packaging needs electron-builder.*run npm install/),
    });
    expect(packagingReadiness({ kind: 'no-package' }, true, {})).toEqual({
      ok: false,
      problem: expect.stringMatching(/^packaging needs the electron package.*run npm install/),
    });
  });

  it('packs the program npm start runs, or the one ELECTRON_OVERRIDE_DIST_PATH names', () => {
    expect(packagingReadiness(READY, true, {})).toEqual({
      ok: true,
      electronDist: '/x/electron/dist',
    });
    expect(packagingReadiness(READY, true, { ELECTRON_OVERRIDE_DIST_PATH: '/opt/e' })).toEqual({
      ok: true,
      electronDist: '/opt/e',
    });
  });

  it('stops before building anything, with exit code 1, when a need is missing', async () => {
    const said: string[] = [];
    const buildRenderer = vi.fn();
    const builder = vi.fn();
    const code = await dist(['--dir'], {
      readiness: () => packagingReadiness(NO_BINARY, true, {}),
      say: (line) => said.push(line),
      buildRenderer,
      builder,
    });
    expect(code).toBe(1);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^npm run dist:dir: packaging needs Electron 45\.4\.1's program/);
    expect(buildRenderer).not.toHaveBeenCalled();
    expect(builder).not.toHaveBeenCalled();
  });

  it('builds the renderer, then packages with that program; a failure is one line', async () => {
    const calls: unknown[] = [];
    const said: string[] = [];
    const options = {
      readiness: () => ({ ok: true as const, electronDist: '/x/electron/dist' }),
      say: (line: string) => said.push(line),
      buildRenderer: async () => {
        calls.push('renderer');
      },
    };
    const packed = await dist([], {
      ...options,
      builder: async () => ({
        build: async (o) => {
          calls.push(o);
          return ['release/a.AppImage', 'release/a.deb'];
        },
      }),
    });
    expect(packed).toBe(0);
    expect(calls).toEqual([
      'renderer',
      expect.objectContaining({
        dir: false,
        publish: 'never',
        config: { electronDist: '/x/electron/dist' },
      }),
    ]);
    const failed = await dist(['--dir'], {
      ...options,
      builder: async () => ({
        build: async () => {
          throw new Error('Could not find sentinel in the provided Electron binary\n  at stack');
        },
      }),
    });
    expect(failed).toBe(1);
    expect(said.at(-1)).toBe(
      'npm run dist:dir: electron-builder failed: Could not find sentinel in the provided Electron binary',
    );
  });
});
