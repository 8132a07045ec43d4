/**
 * The NLSOM VQA society's structures as the paper's Table 4 varies them, switched by the
 * template's parameters (as `society run --set` does) and counted on the wire of a local
 * OpenAI-protocol server: monarchy 3 + 4R + 2, with the rights to know and change 7R + 5,
 * democracy 7R + 7; and Table 2's member count.
 */

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileGraph } from '../app/compiler/index.ts';
import { expertProviders } from '../app/experts/providers.ts';
import { BlobStore } from '../app/runtime/blobs.ts';
import { startRun } from '../app/runtime/engine.ts';
import { registry, talliesOf } from './support/graphs.ts';
import { type StubOpenAI, type StubRequestBody, startStubOpenAI } from './support/stub-openai.ts';

const TEMPLATE = readFileSync(
  new URL('../templates/nlsom-vqa.society.json', import.meta.url),
  'utf8',
);
const QUESTION = 'What is in his mouth? (a) a toothpick (b) food (c) a stick (d) a cigarette';
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

const userText = (body: StubRequestBody) =>
  JSON.stringify((body.messages as Array<{ role: string }>).filter((m) => m.role === 'user'));

let stub: StubOpenAI;
beforeAll(async () => {
  stub = await startStubOpenAI({
    respond: (body) => {
      const text = userText(body);
      if (text.includes('ask the observers one new short question'))
        return { text: 'What is the stick made of?' };
      if (text.includes('Which option is most likely right?')) return { text: '(c)' };
      return { text: 'A thin wooden stick.' };
    },
  });
});
afterAll(() => stub.close());

/** Runs the template with `params` set, counting the requests that reach the server. */
async function runWith(params: Record<string, unknown>) {
  const before = stub.count();
  const compiled = await compileGraph(TEMPLATE, registry, { params });
  if (!compiled.ok) throw new Error(compiled.problems[0]?.message);
  const blobs = new BlobStore();
  const run = startRun(compiled, {
    experts: expertProviders,
    registry,
    blobs,
    inputs: { question: QUESTION, image: blobs.putImage(PNG, 'image/png') },
    providerOverrides: { openai: { baseUrl: stub.url, apiKeyEnv: '' } },
    env: {},
  });
  const result = await run.result;
  expect(result.status, result.error).toBe('succeeded');
  const sent = stub.requests.slice(before).map(userText);
  return { result, sent, calls: stub.count() - before, events: run.events };
}

describe('the VQA society by structure (Table 4) over HTTP', () => {
  for (const R of [1, 3]) {
    it(`monarchy: 3 + 4R + 2 calls at R = ${R}`, async () => {
      const { calls } = await runWith({ rounds: R });
      expect(calls).toBe(3 + 4 * R + 2);
    });

    it(`with the rights to know and change: 7R + 5 calls at R = ${R}`, async () => {
      const { calls, sent } = await runWith({ rounds: R, rtk: true, rtc: true });
      expect(calls).toBe(7 * R + 5);
      // Members see the previous round's answers from round 2 on; each revises each round.
      expect(sent.filter((t) => t.includes('Context from the previous round'))).toHaveLength(
        3 * (R - 1),
      );
    });

    it(`democracy: 7R + 7 calls at R = ${R}, the members' vote deciding`, async () => {
      const { calls, events, result } = await runWith({ rounds: R, structure: 'democracy' });
      expect(calls).toBe(7 * R + 7);
      const votes = talliesOf(events);
      expect(votes).toHaveLength(1);
      expect(result.outputs.answer).toBe('(c)');
    });
  }

  it('the right to execute alone replaces the leader with a vote: 3 + 4R + 1 + 3', async () => {
    const { calls, events } = await runWith({ rounds: 2, rte: true });
    expect(calls).toBe(3 + 4 * 2 + 1 + 3);
    expect(talliesOf(events)).toHaveLength(1);
  });

  it('grows from one to three members as Table 2 does: 1 + 2R + 2 with one', async () => {
    const { calls } = await runWith({ rounds: 3, vlms: ['vlm-2'] });
    expect(calls).toBe(1 + 2 * 3 + 2);
  });

  it('refuses a value outside what the parameter allows, naming it', async () => {
    const compiled = await compileGraph(TEMPLATE, registry, { params: { rounds: 0 } });
    expect(compiled.ok).toBe(false);
    if (!compiled.ok) expect(compiled.problems[0]?.message).toMatch(/rounds/);
  });
});
