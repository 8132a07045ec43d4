import { describe, expect, it } from 'vitest';
import { electronAvailable } from './start.ts';

describe('npm start', () => {
  it('finds no Electron here, so it falls back to the studio', async () => {
    // The package is not installed on these machines (its binary download is skipped).
    expect(await electronAvailable()).toBe(false);
  });
});
