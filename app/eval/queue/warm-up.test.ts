import { afterEach, describe, expect, it, vi } from 'vitest';
import { warmUp } from './warm-up.ts';

describe("a worker's warm-up", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('runs its society to the end without calling anything, as often as asked', async () => {
    const fetch = vi.spyOn(globalThis, 'fetch');
    expect(await warmUp()).toBe('succeeded');
    // A second worker in the same process (the tests start several) warms up just as well.
    expect(await warmUp()).toBe('succeeded');
    expect(fetch).not.toHaveBeenCalled();
  });
});
