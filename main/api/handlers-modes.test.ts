/**
 * A run says how its calls are answered, and money is spent only when the person said so: a
 * template's replay calls nothing and is refused before it starts when the run differs from
 * what its cassette was recorded with (naming each difference); a live run above the spending
 * threshold is refused until the person agrees to its estimate. A local OpenAI-compatible server
 * stands in for the paid provider and counts what reaches it.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, dir, env, finished, store, stub, withApi } from './handlers.test-helper.ts';
import { createApiHandlers } from './handlers.ts';

const VQA_TEXT = readFileSync(
  new URL('../../templates/nlsom-vqa.society.json', import.meta.url),
  'utf8',
);
/** The question the template's cassette was recorded with: its example input. */
const QUESTION =
  'What is the large shape in the picture? (a) a red circle (b) a blue square (c) a green triangle (d) a yellow star';
const INPUTS = { question: QUESTION, image: 'example' };

withApi({ name: 'modes', key: 'sk-handlers-modes-0123456789abcdef', openai: 'plain' });

interface TemplateNode {
  id: string;
  position: { x: number; y: number };
  data: Record<string, unknown>;
}

const vqa = () => JSON.parse(VQA_TEXT) as Record<string, unknown> & { nodes: TemplateNode[] };

/** Starts a replay and returns its refusal, checking that nothing ran or was recorded. */
async function refusedReplay(params: Record<string, unknown>): Promise<string> {
  const runs = store.listRuns().length;
  const requests = stub.count();
  const refusal = await call('run.start', {
    mode: 'replay',
    replayTemplate: 'nlsom-vqa.society.json',
    document: vqa(),
    inputs: INPUTS,
    ...params,
  }).then(
    () => {
      throw new Error('the replay was not refused');
    },
    (error: Error) => error.message,
  );
  expect(store.listRuns().length).toBe(runs);
  expect(stub.count()).toBe(requests);
  return refusal;
}

describe('Replay cassette', () => {
  it('replays the template as it ships, moved about and renamed, and calls nothing', async () => {
    const document = vqa();
    document.name = 'My copy';
    for (const node of document.nodes) node.position = { x: node.position.x + 40, y: 7 };
    const { runId } = await call('run.start', {
      mode: 'replay',
      replayTemplate: 'nlsom-vqa',
      document,
      inputs: INPUTS,
    });
    expect((await finished(runId)).status).toBe('succeeded');
    expect(store.getRun(runId)?.mode).toBe('replay');
    expect(stub.count()).toBe(0);
  });

  it('refuses a changed parameter before the run, naming it and both values', async () => {
    const refusal = await refusedReplay({ params: { rounds: 2 } });
    expect(refusal).toContain('parameter rounds is 2; the cassette was recorded with 3');
    expect(refusal).toMatch(/Run live or Run simulated/);
  });

  it('refuses a changed question, naming the input', async () => {
    const refusal = await refusedReplay({ inputs: { ...INPUTS, question: 'What colour is it?' } });
    expect(refusal).toContain("input question differs from the cassette's");
  });

  it('refuses an edited node and a changed model, naming each', async () => {
    const document = vqa();
    const leader = document.nodes.find((n) => n.id === 'leader')!;
    leader.data = { ...leader.data, prompt: `${String(leader.data.prompt ?? '')} Be brief.` };
    (document.models as Record<string, { model: string }>).organizer!.model = 'gpt-4o';
    const refusal = await refusedReplay({ document });
    expect(refusal).toContain(`node ${leader.id}'s prompt differs from the template's`);
    expect(refusal).toContain("model profile organizer differs from the template's");
  });

  it('still calls nothing when the cassette lacks a request at run time: the run fails, naming the miss', async () => {
    // The same template beside a cassette that lost its last recording: the run matches the
    // template, so it starts, and its strict replay reaches a request it cannot answer.
    const shelf = path.join(dir, 'short-shelf');
    mkdirSync(shelf);
    writeFileSync(path.join(shelf, 'nlsom-vqa.society.json'), VQA_TEXT);
    const cassette = JSON.parse(
      readFileSync(new URL('../../templates/nlsom-vqa.cassette.json', import.meta.url), 'utf8'),
    ) as { entries: unknown[] };
    cassette.entries.pop();
    writeFileSync(path.join(shelf, 'nlsom-vqa.cassette.json'), JSON.stringify(cassette));
    const short = createApiHandlers({
      store,
      workspaceDir: path.join(dir, 'workspace'),
      templatesDir: shelf,
      env,
      log: () => {},
    });
    let end: Record<string, unknown> | undefined;
    const ended = new Promise<void>((resolve) =>
      short.onRunEvent((push) => {
        if (push.event.type !== 'run.finished') return;
        end = push.event;
        resolve();
      }),
    );
    try {
      await short.call('run.start', {
        mode: 'replay',
        replayTemplate: 'nlsom-vqa',
        document: vqa(),
        inputs: INPUTS,
      });
      await ended;
    } finally {
      await short.close();
    }
    expect(end?.status).toBe('failed');
    expect(JSON.stringify(end?.error)).toMatch(
      /no recording of this request in nlsom-vqa\.cassette\.json/,
    );
    expect(stub.count()).toBe(0);
  });

  it('needs the mode said, and a template only for a replay', async () => {
    await expect(call('run.start', { document: vqa(), inputs: INPUTS })).rejects.toThrow(/mode/);
    await expect(
      call('run.start', {
        mode: 'live',
        replayTemplate: 'nlsom-vqa',
        document: vqa(),
        inputs: INPUTS,
      }),
    ).rejects.toThrow('a live run replays no cassette');
    await expect(
      call('run.start', { mode: 'replay', document: vqa(), inputs: INPUTS }),
    ).rejects.toThrow('a replay names the template');
    expect(stub.count()).toBe(0);
  });
});

describe('Run live', () => {
  it('keeps the threshold in the settings, $0.50 until changed', async () => {
    expect(await call('settings.liveRuns.get', {})).toEqual({ askAboveUsd: 0.5 });
    await expect(call('settings.liveRuns.set', { askAboveUsd: -1 })).rejects.toThrow();
    expect(await call('settings.liveRuns.set', { askAboveUsd: 0.001 })).toEqual({
      askAboveUsd: 0.001,
    });
  });

  it('estimates the run and refuses it above the threshold until the person agrees', async () => {
    await call('settings.liveRuns.set', { askAboveUsd: 0.001 });
    const estimate = await call('run.estimate', {
      document: vqa(),
      inputs: INPUTS,
      params: { rounds: 2 },
    });
    // The CLI's figures: 13 calls at two rounds, priced gpt-4o-mini, 4.1-mini and 4.1-nano.
    expect(estimate.worstCase.calls).toBe(13);
    expect(estimate.worstCase.costUsd).toBeGreaterThan(0.001);
    expect(estimate.likely.costUsd).toBeLessThan(estimate.worstCase.costUsd);
    expect(estimate).toMatchObject({ ask: true, askAboveUsd: 0.001, unpriced: [] });

    const start = (costConfirmed: boolean) =>
      call('run.start', {
        mode: 'live',
        document: vqa(),
        inputs: INPUTS,
        params: { rounds: 2 },
        costConfirmed,
      });
    await expect(start(false)).rejects.toThrow(
      /may cost up to \$0\.00\d+ \(13 calls, [\d]+ tokens\), above the \$0\.00 set in Settings → Live runs/,
    );
    expect(stub.count()).toBe(0);

    // Agreed: the run goes live, with the template's example inputs, at the parameter set.
    const { runId } = await start(true);
    await finished(runId);
    expect(store.getRun(runId)?.mode).toBe('live');
    expect(stub.count()).toBeGreaterThan(0);
    const sent = stub.requests.map((r) => JSON.stringify(r));
    expect(sent.some((r) => r.includes('What is the large shape in the picture?'))).toBe(true);
    // The example image, read from the document, went with the first look at it.
    expect(sent[0]).toContain('data:image/png;base64,iVBORw0KGgo');
  });

  it('starts a live run under the threshold without asking', async () => {
    await call('settings.liveRuns.set', { askAboveUsd: 0.5 });
    const estimate = await call('run.estimate', { document: vqa(), inputs: INPUTS });
    expect(estimate.ask).toBe(false);
    const before = stub.count();
    const { runId } = await call('run.start', { mode: 'live', document: vqa(), inputs: INPUTS });
    await finished(runId);
    expect(stub.count()).toBeGreaterThan(before);
  });
});
