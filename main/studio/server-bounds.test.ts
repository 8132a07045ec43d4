/**
 * A shared document is data: one that fails inside a run fails that run cleanly, and the studio
 * keeps answering its other clients all the while.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { heavyStateDocument } from '../../tests/support/heavy-state.ts';
import { Page, withStudio } from './server.test-helper.ts';

withStudio();

const CAPTIONING = readFileSync(
  new URL('../../templates/nlsom-captioning.society.json', import.meta.url),
  'utf8',
);

/**
 * The captioning template with a 1.1 MB prompt in its replicated `describe` agent. The first
 * replica takes a moment longer, so the others fail while it still renders: a failure that
 * arrives out of turn must still end the run, not the process.
 */
function oversizePrompt(): Record<string, unknown> {
  const doc = JSON.parse(CAPTIONING);
  const describeNode = doc.nodes.find((n: { id: string }) => n.id === 'describe');
  describeNode.data.prompt = `{% if profile == "vlm-1" %}{% for i in (1..20000) %}{% endfor %}{% endif %}Describe the photo. ${'x'.repeat(1_100_000)}`;
  return doc;
}

let unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled = [];
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});

describe('a document that fails inside a run', () => {
  it('fails each run cleanly, naming the node, and the studio answers during each', async () => {
    const runner = await Page.open();
    const other = await Page.open();
    const document = oversizePrompt();
    const RUNS = 10;
    const slowest: number[] = [];
    try {
      for (let i = 0; i < RUNS; i++) {
        const { runId } = await runner.call<{ runId: string }>('run.start', {
          document,
          mode: 'simulated',
          inputs: { image: 'example', article: 'LYON — a red disc.' },
        });
        const started = performance.now();
        const listed = await other.call<Array<{ id: string }>>('runs.list', {});
        slowest.push(performance.now() - started);
        expect(listed.some((r) => r.id === runId)).toBe(true);
        const finished = await runner.event(runId, (e) => e.type === 'run.finished');
        expect(finished.status).toBe('failed');
        expect(finished.error).toMatch(
          /^node "describe" \(describe#\d@init\): its prompt template produced more than 1,048,576 bytes of text \(settings\.limits\.templateBytes\)$/,
        );
        const shown = await other.call<{ run: { status: string; endedAt?: number } }>('runs.show', {
          runId,
        });
        expect(shown.run.status).toBe('failed');
      }
      console.log(
        `${RUNS} runs of the 1.1 MB prompt: all failed cleanly; runs.list answered within ${Math.round(Math.max(...slowest))} ms`,
      );
      expect(unhandled).toEqual([]);
    } finally {
      runner.close();
      other.close();
    }
  });
});

describe('a state node whose rules take seconds a round', () => {
  it('leaves the studio answering, and cancel stops the run within a second', async () => {
    const runner = await Page.open();
    const other = await Page.open();
    try {
      const { runId } = await runner.call<{ runId: string }>('run.start', {
        document: heavyStateDocument(),
        mode: 'simulated',
      });
      await runner.event(runId, (e) => e.type === 'node.started' && e.node === 'mood');
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Ten seconds of rules are under way; the studio answers another page meanwhile.
      const asked = performance.now();
      const listed = await other.call<Array<{ id: string; status: string }>>('runs.list', {});
      const listMs = performance.now() - asked;
      expect(listed.find((r) => r.id === runId)?.status).toBe('running');
      expect(listMs).toBeLessThan(200);

      const cancelled = performance.now();
      await runner.call('run.control', { runId, action: 'cancel' });
      const finished = await runner.event(runId, (e) => e.type === 'run.finished');
      const stopMs = performance.now() - cancelled;
      expect(finished.status).toBe('cancelled');
      expect(stopMs).toBeLessThan(1_000);
      const shown = await other.call<{ run: { status: string } }>('runs.show', { runId });
      expect(shown.run.status).toBe('cancelled');
      console.log(
        `heavy state run: runs.list answered in ${Math.round(listMs)} ms while it ran; cancel ended it in ${Math.round(stopMs)} ms`,
      );
    } finally {
      runner.close();
      other.close();
    }
  });
});
