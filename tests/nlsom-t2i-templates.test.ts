/**
 * The NLSOM text-to-image societies (Zhuge et al., Sec. 2.3, App. G) run against local servers
 * speaking the OpenAI and Hugging Face protocols over real HTTP: the call counts are the
 * protocol's, every artist speaks in its own style, every critic's ballot is counted, and the
 * winning proposal is what the painter paints.
 */
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../app/runtime/engine.ts';
import { run, talliesOf } from './support/graphs.ts';
import { type StubHf, startStubHuggingFace } from './support/stub-hf.ts';
import { type StubOpenAI, type StubRequestBody, startStubOpenAI } from './support/stub-openai.ts';

type Doc = {
  params: Record<string, { default: unknown }>;
  nodes: Array<{ id: string; type: string; data: Record<string, unknown> }>;
};

function template(base: string, rounds: number): Doc {
  const doc = JSON.parse(
    readFileSync(new URL(`../templates/${base}.society.json`, import.meta.url), 'utf8'),
  ) as Doc;
  // As `society run --set rounds=R` does: the rounds are the template's parameter.
  doc.params.rounds!.default = rounds;
  return doc;
}

type Message = { role: string; content: unknown };
const messagesOf = (body: StubRequestBody) => body.messages as Message[];
const textOf = (body: StubRequestBody) =>
  messagesOf(body)
    .map((m) => (typeof m.content === 'string' ? m.content : ''))
    .join('\n');
const systemOf = (body: StubRequestBody) =>
  String(messagesOf(body).find((m) => m.role === 'system')?.content ?? '');

/** The request's last user message: what this turn asks (earlier ones are its history). */
const lastUser = (body: StubRequestBody) =>
  String(
    messagesOf(body)
      .filter((m) => m.role === 'user')
      .at(-1)?.content ?? '',
  );

/** Who sent a request, read from the wording of what it asks. */
function roleOf(body: StubRequestBody): string {
  const text = lastUser(body);
  if (text.includes('What would you put in it to show that')) return 'mission';
  if (text.includes('Ask one more question')) return 'questioner';
  if (text.includes('Sum it up as one proposal')) return 'leader';
  if (text.includes('Which proposal is the most striking')) return 'critic';
  if (text.includes('Describe only the proposal with the most votes')) return 'collector';
  return 'answerer';
}

/** The style a request speaks in: "You are a Cubism Artist. …" → "Cubism Artist". */
const styleOf = (body: StubRequestBody) => /You are an? (.+?)\./.exec(systemOf(body))?.[1] ?? '';

/** A critic's ballot, from its profession's length: a third for Cubism, the rest spread over five styles. */
function ballot(body: StubRequestBody, styles: string[]): string {
  const profession = styleOf(body);
  return profession.length % 3 === 0 ? 'Cubism Artist' : styles[profession.length % 5]!;
}

let openai: StubOpenAI;
let hf: StubHf;
let painted: Buffer;
const prompts: string[] = [];

beforeAll(async () => {
  painted = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c33' } })
    .png()
    .toBuffer();
  hf = await startStubHuggingFace({
    respond: (request) => {
      prompts.push(String((request.json as { inputs?: unknown } | undefined)?.inputs ?? ''));
      return { headers: { 'content-type': 'image/png' }, body: painted };
    },
  });
});

afterAll(async () => {
  await openai?.close();
  await hf.close();
});

async function runTemplate(base: string, rounds: number, styles: string[] = []) {
  await openai?.close();
  openai = await startStubOpenAI({
    respond: (body) => {
      const role = roleOf(body);
      const style = styleOf(body);
      switch (role) {
        case 'questioner':
          return { text: `As a ${style}, what light falls on the tower? More text after.` };
        case 'critic':
          return { text: ballot(body, styles) };
        case 'collector':
          return { text: 'A cubist lighthouse of broken planes at dawn.' };
        default:
          return { text: `${style} says: a tall white tower on dark rocks.` };
      }
    },
  });
  prompts.length = 0;
  return run(template(base, rounds), {
    inputs: { object: 'a lighthouse at dawn' },
    providerOverrides: {
      openai: { baseUrl: openai.url, apiKeyEnv: '' },
      'hf-inference': { baseUrl: hf.url, kind: 'huggingface', apiKeyEnv: '' },
    },
    env: {},
  });
}

const count = (role: string) => openai.requests.filter((b) => roleOf(b) === role).length;

describe('the Artist–Critic society over HTTP', () => {
  let result: RunResult & { events: unknown[] };
  let styles: string[];

  beforeAll(async () => {
    styles = template('nlsom-artist-critic', 3).params.styles!.default as string[];
    result = (await runTemplate('nlsom-artist-critic', 3, styles)) as typeof result;
  });

  it('has 129 language agents: 26 artist trios, 50 critics and a collector', () => {
    const doc = template('nlsom-artist-critic', 3);
    // One list of styles makes the artists and the candidates; one of professions the critics.
    const byId = (id: string) => doc.nodes.find((n) => n.id === id)!.data;
    expect(byId('artists').replicate).toEqual({ items: { $param: 'styles' }, as: 'style' });
    expect(byId('tally').candidates).toEqual({ $param: 'styles' });
    expect(styles).toHaveLength(26);
    expect(new Set(styles).size).toBe(26);
    const professions = doc.params.professions!.default as string[];
    expect(new Set(professions).size).toBe(50);
    expect(26 * 3 + professions.length + 1).toBe(129);
  });

  it('makes 26 × (2R + 2) + 50 + 1 model calls at R = 3 and paints once', () => {
    expect(result.status, result.error).toBe('succeeded');
    expect(openai.requests).toHaveLength(26 * (2 * 3 + 2) + 51);
    expect(result.usage.calls).toBe(259);
    expect(count('mission')).toBe(26);
    expect(count('questioner')).toBe(78);
    expect(count('answerer')).toBe(78);
    expect(count('leader')).toBe(26);
    expect(count('critic')).toBe(50);
    expect(count('collector')).toBe(1);
    expect(hf.requests).toHaveLength(1);
  });

  it('gives each artist its own style in every turn', () => {
    const artistTurns = openai.requests.filter((b) =>
      ['mission', 'questioner', 'answerer', 'leader'].includes(roleOf(b)),
    );
    const byStyle = new Map<string, number>();
    for (const body of artistTurns)
      byStyle.set(styleOf(body), (byStyle.get(styleOf(body)) ?? 0) + 1);
    expect([...byStyle.keys()].sort()).toEqual([...styles].sort());
    expect(new Set(byStyle.values())).toEqual(new Set([8]));
  });

  it('shows every critic all 26 proposals, each under its artist', () => {
    const critics = openai.requests.filter((b) => roleOf(b) === 'critic');
    expect(critics).toHaveLength(50);
    for (const body of critics) {
      const text = textOf(body);
      for (const style of styles) expect(text).toContain(`${style}: ${style} says:`);
    }
  });

  it('counts the 50 ballots by plurality and hands the winner to the painter', () => {
    const votes = talliesOf(result.events as never);
    expect(votes).toHaveLength(1);
    const tally = votes[0]!.tally;
    expect(tally.totals).toEqual({ ballots: 50, valid: 50 });
    const expected = new Map<string, number>();
    for (const body of openai.requests.filter((b) => roleOf(b) === 'critic')) {
      const choice = ballot(body, styles);
      expected.set(choice, (expected.get(choice) ?? 0) + 1);
    }
    const top = [...expected.entries()].sort((a, b) => b[1] - a[1])[0]!;
    expect(tally.winner).toBe(top[0]);
    expect(tally.counts[top[0]]).toBe(top[1]);
    const collector = openai.requests.find((b) => roleOf(b) === 'collector')!;
    expect(textOf(collector)).toContain(`${top[0]} ${top[1]};`);
    expect(prompts).toEqual(['A cubist lighthouse of broken planes at dawn.']);
    expect(result.outputs.proposal).toBe('A cubist lighthouse of broken planes at dawn.');
  });
});

describe('the questioner–answerer society over HTTP', () => {
  for (const rounds of [1, 3]) {
    it(`makes 2R + 2 model calls at R = ${rounds}, with each question cut at "?"`, async () => {
      const result = await runTemplate('nlsom-qa-t2i', rounds);
      expect(result.status, result.error).toBe('succeeded');
      expect(openai.requests).toHaveLength(2 * rounds + 2);
      expect(count('questioner')).toBe(rounds);
      const answers = openai.requests.filter((b) => roleOf(b) === 'answerer');
      expect(answers).toHaveLength(rounds);
      for (const [i, body] of answers.entries()) {
        expect(lastUser(body)).toContain('what light falls on the tower?');
        expect(textOf(body)).not.toContain('More text after');
        // The answerer keeps one conversation: its first answer and every earlier turn.
        const turns = messagesOf(body).filter((m) => m.role !== 'system');
        expect(turns).toHaveLength(2 * (i + 1) + 1);
        expect(String(turns[0]!.content)).toContain('What would you put in it to show that');
      }
      // The leader's proposal is the painter's prompt.
      expect(prompts).toEqual(['artist says: a tall white tower on dark rocks.']);
      expect(result.outputs.proposal).toBe(prompts[0]);
    });
  }
});
