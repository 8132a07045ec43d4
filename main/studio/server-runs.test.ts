import { describe, expect, it } from 'vitest';
import { cliReplayAnswer, Page, QUESTION, vqaDocument, withStudio } from './server.test-helper.ts';

withStudio();

describe('the studio API', () => {
  it('replays the VQA template over the socket to the answer the CLI prints, and records it', async () => {
    const page = await Page.open();
    try {
      const { runId } = await page.call<{ runId: string }>('run.start', {
        document: vqaDocument(),
        mode: 'replay',
        replayTemplate: 'nlsom-vqa',
        inputs: { question: QUESTION, image: 'example' },
      });
      const finished = await page.event(runId, (e) => e.type === 'run.finished');
      expect(finished.status).toBe('succeeded');
      // The page learns the run id before any of its events arrive.
      const response = page.frames.indexOf(`{"id":${page.lastId},"result":{"runId":"${runId}"}}`);
      const firstPush = page.frames.findIndex((f) =>
        f.includes(`"push":"run.event","runId":"${runId}"`),
      );
      expect(response).toBeGreaterThanOrEqual(0);
      expect(firstPush).toBeGreaterThan(response);
      const answer = (finished.outputs as { answer: string }).answer;
      expect(answer).toBe(await cliReplayAnswer());
      expect(answer).toBe('[simulated] (a)');

      const events = page.eventsOf(runId);
      expect(events[0]).toMatchObject({ type: 'run.started', mode: 'replay', seq: 1 });
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect(events.filter((e) => e.type === 'model.response')).toHaveLength(17);

      // run.finished is pushed once the store holds the run's end.
      const runs = await page.call<Array<Record<string, unknown>>>('runs.list', {});
      expect(runs.find((r) => r.id === runId)).toMatchObject({
        graph: 'NLSOM visual question answering (monarchy)',
        status: 'succeeded',
        calls: 17,
      });
      const shown = await page.call<{ run: Record<string, unknown>; events: unknown[] }>(
        'runs.show',
        { runId },
      );
      expect(shown.run).toMatchObject({ id: runId, mode: 'replay', status: 'succeeded' });
      expect(shown.events).toHaveLength(events.length);
      await expect(page.call('run.control', { runId, action: 'pause' })).rejects.toThrow(
        `run ${runId} is not running here (it is succeeded)`,
      );
    } finally {
      page.close();
    }
  });

  it('pauses at a breakpoint, steps and resumes', async () => {
    const page = await Page.open();
    try {
      const { runId } = await page.call<{ runId: string }>('run.start', {
        document: vqaDocument(),
        mode: 'replay',
        replayTemplate: 'nlsom-vqa.society.json',
        inputs: { question: QUESTION, image: 'example' },
        breakpoints: [{ round: 2 }],
      });
      const paused = await page.event(runId, (e) => e.type === 'paused');
      expect(paused).toMatchObject({
        reason: 'breakpoint',
        at: { kind: 'round', loop: 'storm', round: 2 },
      });
      expect(page.eventsOf(runId).some((e) => e.type === 'run.finished')).toBe(false);

      await page.call('run.breakpoints', { runId, breakpoints: [] });
      expect(await page.call('run.control', { runId, action: 'step', step: 'node' })).toEqual({
        paused: false,
      });
      const stepped = await page.event(runId, (e) => e.type === 'paused' && e.reason === 'step');
      expect(stepped.at).toMatchObject({ kind: 'node', node: 'organizer', round: 2 });
      expect(await page.call('run.control', { runId, action: 'resume' })).toEqual({
        paused: false,
      });
      const finished = await page.event(runId, (e) => e.type === 'run.finished');
      expect(finished).toMatchObject({
        status: 'succeeded',
        outputs: { answer: '[simulated] (a)' },
      });

      await expect(
        page.call('run.control', { runId: 'no-such-run', action: 'resume' }),
      ).rejects.toThrow('there is no running run "no-such-run"');
    } finally {
      page.close();
    }
  });

  it('cancels a run held at its start', async () => {
    const page = await Page.open();
    try {
      const { runId } = await page.call<{ runId: string }>('run.start', {
        document: vqaDocument(),
        mode: 'replay',
        replayTemplate: 'nlsom-vqa',
        inputs: { question: QUESTION, image: 'example' },
        startPaused: true,
      });
      await page.event(runId, (e) => e.type === 'paused');
      await page.call('run.control', { runId, action: 'cancel' });
      const finished = await page.event(runId, (e) => e.type === 'run.finished');
      expect(finished.status).toBe('cancelled');
      const shown = await page.call<{ run: { status: string } }>('runs.show', { runId });
      expect(shown.run.status).toBe('cancelled');
    } finally {
      page.close();
    }
  });

  it('takes "example" only for an input whose document carries one, else an image as a data URL', async () => {
    const page = await Page.open();
    try {
      // The example comes from the document sent, not from the template folder.
      const bare = vqaDocument() as { nodes: Array<{ id: string; data: Record<string, unknown> }> };
      delete bare.nodes.find((n) => n.id === 'image')!.data.example;
      await expect(
        page.call('run.start', {
          document: bare,
          mode: 'simulated',
          inputs: { question: QUESTION, image: 'example' },
        }),
      ).rejects.toThrow(/input "image": the document carries no example image for it/);
      await expect(
        page.call('run.start', {
          document: vqaDocument(),
          mode: 'simulated',
          inputs: { question: QUESTION, image: '/etc/passwd' },
        }),
      ).rejects.toThrow(/input "image" is an image/);
      await expect(
        page.call('run.start', {
          document: vqaDocument(),
          mode: 'replay',
          replayTemplate: '../templates/nlsom-vqa',
          inputs: { question: QUESTION, image: 'example' },
        }),
      ).rejects.toThrow(/there is no template/);
    } finally {
      page.close();
    }
  });
});
