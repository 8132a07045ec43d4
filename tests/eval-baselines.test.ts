/**
 * `society eval … --baselines` on NLSOM's VQA society over a local OpenAI-compatible server:
 * the society and three control arms at its mean tokens per item, each arm a document that
 * `society run` runs, and the paired test of each arm against the society.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, societyHere } from './support/cli.ts';
import { type StubOpenAI, type StubRequestBody, startStubOpenAI } from './support/stub-openai.ts';

const dir = mkdtempSync(join(tmpdir(), 'society-baselines-'));
const db = join(dir, 'runs.db');
const docs = join(dir, 'baselines');
const TEMPLATE = join(ROOT, 'templates/nlsom-vqa.society.json');

/** Ten questions; the right option of question i is RIGHT[i]. */
const RIGHT = ['a', 'b', 'c', 'd', 'a', 'b', 'c', 'd', 'a', 'b'];
/** The society's leader is right on these; a lone call of a member on the first three only. */
const SOCIETY_RIGHT = new Set([0, 1, 2, 3, 4, 5]);
const MEMBER_RIGHT = new Set([0, 1, 2]);

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((p: { text?: string }) => p.text ?? '').join('\n')
      : '';

/** Which question a request is about, from the "Q7:" it carries. */
function itemOf(body: StubRequestBody): number | undefined {
  const all = (body.messages as { content: unknown }[]).map((m) => textOf(m.content)).join('\n');
  const match = /Q(\d+):/.exec(all);
  return match ? Number(match[1]) : undefined;
}

const CONTEXT =
  'The photo was taken in a classroom where children sort cut-out shapes by colour and size on a wide table before a lesson on geometry begins; several shapes overlap and some are partly hidden by a ruler. '.repeat(
    2,
  );

const data = join(dir, 'vqa.jsonl');

const wrong = (i: number) => (RIGHT[i] === 'a' ? 'b' : 'a');

/**
 * Answers by what is asked. Usage is the stub's own: prompt tokens in proportion to the
 * prompt's length, completion tokens to the answer's, so budgets are measured, not set. A
 * request asked to reason writes as much as its token allowance lets it.
 */
function respond(body: StubRequestBody) {
  const last = textOf(body.messages.at(-1)?.content);
  const item = itemOf(body) ?? 0;
  if (last.includes('Which option is most likely right?'))
    return { text: `(${SOCIETY_RIGHT.has(item) ? RIGHT[item] : wrong(item)})` };
  if (last.includes('step by step')) {
    const allowance = Number(body.max_tokens ?? 100);
    return {
      text: `${'Looking closely at every part. '.repeat(Math.max(1, Math.floor((allowance * 4) / 31)))}\n(${MEMBER_RIGHT.has(item) ? RIGHT[item] : wrong(item)})`,
    };
  }
  if (last.includes('Reply with the answer only'))
    return { text: `(${MEMBER_RIGHT.has(item) ? RIGHT[item] : wrong(item)})` };
  if (last.includes('ask the observers one new short question'))
    return { text: 'What colour is the large shape?' };
  return { text: 'A red shape on a plain background, centred, large.' };
}

let stub: StubOpenAI;
const saved = { key: process.env.OPENAI_API_KEY };
beforeAll(async () => {
  stub = await startStubOpenAI({ respond });
  process.env.OPENAI_API_KEY = 'sk-baselines-test-0123456789';
});
afterAll(async () => {
  await stub.close();
  if (saved.key === undefined) delete process.env.OPENAI_API_KEY;
  else process.env.OPENAI_API_KEY = saved.key;
});

describe('society eval --baselines', () => {
  it('prints the society and three arms at its mean tokens per item, with the paired test', async () => {
    writeFileSync(
      data,
      RIGHT.map((answer, i) =>
        JSON.stringify({
          // A long question, as A-OKVQA's with their context can be: one plain call then costs
          // a tenth or so of the society's tokens, so a vote of whole answers can match them.
          question: `Q${i}: ${CONTEXT} What is the large shape? (a) circle (b) square (c) star (d) line`,
          answer,
        }),
      ).join('\n'),
    );
    const args = [
      'eval',
      TEMPLATE,
      '--data',
      data,
      '--map',
      'question=question',
      '--expect',
      'answer',
      '--scorer',
      'choice',
      '--provider',
      `openai=${stub.url}`,
      '--variant',
      'society=--set rounds=1',
      '--baselines',
      '--baselines-dir',
      docs,
      '--concurrency',
      '8',
      '--db',
      db,
      '-q',
    ];
    const result = await societyHere([...args, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout);
    const names = summary.variants.map((v: { name: string }) => v.name);
    expect(names).toEqual(['society', 'one-call', 'self-consistency', 'no-discussion']);
    const perItem = (v: { tokens: number; n: number }) => v.tokens / v.n;
    const society = perItem(summary.variants[0]);
    for (const arm of summary.variants.slice(1)) {
      expect(arm.n).toBe(10);
      expect(Math.abs(perItem(arm) / society - 1), arm.name).toBeLessThan(0.1);
      expect(arm.vsBaseline).toMatchObject({ baseline: 'society', n: 10 });
    }
    // The society is right on 6 of 10, every arm on 3: the same three items.
    expect(summary.variants[0].score.mean).toBeCloseTo(0.6);
    for (const arm of summary.variants.slice(1)) {
      expect(arm.score.mean, arm.name).toBeCloseTo(0.3);
      expect(arm.vsBaseline.meanDiff).toBeCloseTo(-0.3);
    }

    // The same command again resumes: the table, with the "vs first" column and paired tests,
    // and not one more call to the server.
    const calls = stub.count();
    const again = await societyHere(args);
    expect(again.code, again.stderr).toBe(0);
    expect(stub.count()).toBe(calls);
    expect(again.stdout).toMatch(/vs first/);
    expect(again.stdout).toMatch(/paired tests vs society/);
    for (const name of ['one-call', 'self-consistency', 'no-discussion'])
      expect(again.stdout).toMatch(new RegExp(`^${name} +McNemar +10 `, 'm'));
  }, 60_000);

  it('writes each arm as a document that society run runs', async () => {
    const file = join(docs, 'self-consistency.tokens.society.json');
    expect(existsSync(file)).toBe(true);
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    // The strongest member by price per token: vlm-2 (gpt-4.1-mini) of the three.
    expect(
      doc.nodes.find((n: { id: string }) => n.id === 'answer-call').data.replicate.items,
    ).toContain('vlm-2');
    const run = await societyHere([
      'run',
      file,
      '--input',
      'question=Q1: What is it? (a) circle (b) square (c) star (d) line',
      '--provider',
      `openai=${stub.url}`,
      '--db',
      db,
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    // The vote's winner among the samples' "(b)".
    expect(JSON.parse(run.stdout).outputs.answer).toBe('b');
  }, 30_000);

  it('matches dollars with --baselines-budget usd: the one call spends what is left at the output price', async () => {
    const result = await societyHere([
      'eval',
      TEMPLATE,
      '--data',
      data,
      '--limit',
      '4',
      '--map',
      'question=question',
      '--expect',
      'answer',
      '--scorer',
      'choice',
      '--provider',
      `openai=${stub.url}`,
      '--variant',
      'society=--set rounds=1',
      '--baselines',
      '--baselines-budget',
      'usd',
      '--baselines-dir',
      join(dir, 'usd'),
      '--concurrency',
      '8',
      '--db',
      db,
      '-q',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const [society, ...arms] = JSON.parse(result.stdout).variants;
    expect(society.costUsd).toBeGreaterThan(0);
    for (const arm of arms)
      expect(Math.abs(arm.costUsd / society.costUsd - 1), arm.name).toBeLessThan(0.1);
  }, 30_000);

  it('refuses bad baseline flags in one line, before anything runs (exit 2)', async () => {
    const base = [
      'eval',
      TEMPLATE,
      '--data',
      data,
      '--map',
      'question=question',
      '--expect',
      'answer',
    ];
    const calls = stub.count();
    const budget = await societyHere([...base, '--baselines', '--baselines-budget', 'calls']);
    expect(budget.code).toBe(2);
    expect(budget.stderr).toBe('society: --baselines-budget calls: use tokens or usd\n');
    const model = await societyHere([...base, '--baselines', '--baseline-model', 'vlm-9']);
    expect(model.code).toBe(2);
    expect(model.stderr).toMatch(
      /^society: --baselines: --baseline-model vlm-9: the document has no model profile "vlm-9" \(profiles: organizer, leader, vlm-1, vlm-2, vlm-3\)\n$/,
    );
    expect(stub.count()).toBe(calls);
  });
});
