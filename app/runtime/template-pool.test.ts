import { describe, expect, it, vi } from 'vitest';
import { renderTemplate } from '../node-sdk/template.ts';
import { DEFAULT_LIMITS } from '../schema/limits.ts';
import { renderNodeTemplate, renderOffThread } from './template-pool.ts';
import { runOnThread } from './thread-pool.ts';

// Every job still runs on the real pool; the spy only tells whether one was sent there.
vi.mock('./thread-pool.ts', async (original) => {
  const pool = await original<typeof import('./thread-pool.ts')>();
  return { ...pool, runOnThread: vi.fn(pool.runOnThread) };
});

/** Nine million passes: more than even the ceiling allows. */
const LONG = '{% for a in (1..3000) %}{% for b in (1..3000) %}{% endfor %}{% endfor %}';
const PATIENT = { ...DEFAULT_LIMITS, templateMs: 1_500, templateIterations: 5_000_000 };

/**
 * One step no clock check sees: a sort of four million letters, in the template's last output.
 * liquidjs checks the clock before each block, and there is none after this one, so left to
 * itself the render succeeds, seconds past any short limit.
 */
const ONE_SLOW_STEP =
  '{% assign s = "x" %}{% for i in (1..22) %}{% assign s = s | append: s %}{% endfor %}{{ s | split: "" | sort | join: "" | size }}';

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the render to fail');
}

describe('rendering on worker threads', () => {
  it('renders what the same template renders on this thread', async () => {
    const template =
      '{{ question | upcase }} {% for o in options %}({{ forloop.index }}) {{ o }} {% endfor %}{{ options | lettered }} {{ photo }}';
    const vars = {
      question: 'which?',
      options: ['red', 'blue'],
      photo: { $image: 'abc', mime: 'image/png' },
    };
    const here = renderTemplate(template, vars, DEFAULT_LIMITS);
    expect(await renderOffThread(template, vars)).toBe(here);
    expect(here).toBe('WHICH? (1) red (2) blue (a) red (b) blue [image image/png]');
  });

  it('renders many at once, each with its own variables', async () => {
    const texts = await Promise.all(
      Array.from({ length: 50 }, (_, i) => renderOffThread('n={{ n }}', { n: i })),
    );
    expect(texts).toEqual(Array.from({ length: 50 }, (_, i) => `n=${i}`));
  });

  it('names the field and the limit in one line', async () => {
    const message = await failure(
      renderNodeTemplate('{% for i in (1..100000000) %}{% endfor %}', {}, 'prompt', DEFAULT_LIMITS),
    );
    expect(message).toBe(
      'its prompt template went past the 100,000-iteration loop limit (settings.limits.templateIterations)',
    );
    expect(
      await failure(renderNodeTemplate("{% include '.env' %}", {}, 'role', DEFAULT_LIMITS)),
    ).toBe('its role template: templates cannot include other files ({% include %})');
  });

  it('fails a render at its time limit even when one step of it outlasts the limit', async () => {
    const limits = { ...DEFAULT_LIMITS, templateMs: 30 };
    expect(await failure(renderNodeTemplate(ONE_SLOW_STEP, {}, 'template', limits))).toBe(
      'its template went past the 30 ms render limit (settings.limits.templateMs)',
    );
    // The pool carries on with a fresh thread.
    expect(await renderOffThread('still {{ x }}', { x: 'here' })).toBe('still here');
  });

  it('keeps the event loop answering while a render runs', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    try {
      // Five million passes or 1.5 s, whichever comes first: either way a long render.
      const message = await failure(renderOffThread(LONG, {}, PATIENT));
      expect(message).toMatch(/1,500 ms render limit|5,000,000-iteration loop limit/);
      // Rendered on this thread, the timer could not have fired until the render ended.
      expect(ticks).toBeGreaterThan(0);
    } finally {
      clearInterval(timer);
    }
  });

  it('stops a render when its run is stopped', async () => {
    const stop = new AbortController();
    const render = renderOffThread(LONG, {}, { ...PATIENT, templateMs: 10_000 }, stop.signal);
    setTimeout(() => stop.abort(new DOMException('run cancelled', 'AbortError')), 20);
    await expect(render).rejects.toThrow('run cancelled');
    expect(await renderOffThread('{{ x }}', { x: 'next' })).toBe('next');
  });

  it('renders here once more when a render was held up rather than slow', async () => {
    // The first read of an item during the render stalls this thread for 60 ms without working,
    // as a busy machine or a garbage collection would: past the 20 ms quick limit. Starting a
    // rendering thread would cost far more than that stall.
    const pause = new Int32Array(new SharedArrayBuffer(4));
    let reads = 0;
    const proposals = new Proxy(['Ann: a tower', 'Bo: a wave'], {
      get(target, key, receiver) {
        if (key === '0' && ++reads === 2) Atomics.wait(pause, 0, 0, 60);
        return Reflect.get(target, key, receiver);
      },
    });
    vi.mocked(runOnThread).mockClear();
    const text = await renderNodeTemplate(
      '{% for p in proposals %}{{ p }}; {% endfor %}',
      { proposals },
      'prompt',
      DEFAULT_LIMITS,
    );
    expect(reads).toBeGreaterThan(2);
    expect(text).toBe('Ann: a tower; Bo: a wave; ');
    expect(runOnThread).not.toHaveBeenCalled();
  });
});
