/**
 * The shipped NLSOM VQA template, run end to end against a local server speaking the OpenAI
 * protocol over real HTTP: every request the society makes is seen on the wire.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobStore } from '../app/runtime/blobs.ts';
import type { RunResult } from '../app/runtime/engine.ts';
import { parseDocument } from '../app/schema/parse.ts';
import { run } from './support/graphs.ts';
import { type StubOpenAI, type StubRequestBody, startStubOpenAI } from './support/stub-openai.ts';

const TEMPLATE = readFileSync(
  new URL('../templates/nlsom-vqa.society.json', import.meta.url),
  'utf8',
);
const QUESTION =
  "What is in the motorcyclist's mouth? (a) toothpick (b) food (c) popsicle stick (d) cigarette";
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

type Role = 'describe' | 'organizer' | 'member' | 'summary' | 'leader';

/** Which node of the template sent a request, read from its wording. */
function roleOf(body: StubRequestBody): Role {
  const text = JSON.stringify(body.messages);
  if (text.includes('Describe this image in detail')) return 'describe';
  if (text.includes('ask the observers one new short question')) return 'organizer';
  if (text.includes('Below is the record of a discussion')) return 'summary';
  if (text.includes('Which option is most likely right?')) return 'leader';
  return 'member';
}

const ANSWERS: Record<Role, string> = {
  describe: 'A man rides a motorcycle with a thin stick between his lips.',
  organizer: 'What is the stick in his mouth made of? Knowing this helps.',
  member: 'It looks like flat wood.',
  summary: 'The observers agree he holds a flat wooden stick in his mouth.',
  leader: 'The answer is (c).',
};

let stub: StubOpenAI;
let result: RunResult;
let maxRounds: number;
const requests = () => stub.requests.map((body) => ({ body, role: roleOf(body) }));
const of = (role: Role) => requests().filter((r) => r.role === role);

beforeAll(async () => {
  stub = await startStubOpenAI({ respond: (body) => ({ text: ANSWERS[roleOf(body)] }) });
  const parsed = parseDocument(TEMPLATE);
  if (!parsed.ok) throw new Error('the template does not parse');
  // The rounds are the template's `rounds` parameter, run at its default.
  maxRounds = parsed.doc.params!.rounds!.default as number;
  const blobs = new BlobStore();
  result = await run(TEMPLATE, {
    blobs,
    inputs: { question: QUESTION, image: blobs.putImage(PNG, 'image/png') },
    providerOverrides: { openai: { baseUrl: stub.url, apiKeyEnv: '' } },
    env: {},
  });
});

afterAll(async () => {
  await stub.close();
});

describe('NLSOM VQA template over HTTP', () => {
  it('succeeds', () => {
    expect(result.error).toBeUndefined();
    expect(result.status).toBe('succeeded');
    expect(result.simulated).toBe(false);
  });

  it('makes 3 descriptions, an organizer and 3 members per round, a summary and a decision', () => {
    expect(stub.count()).toBe(3 + maxRounds * (1 + 3) + 1 + 1);
    expect(of('describe')).toHaveLength(3);
    expect(of('organizer')).toHaveLength(maxRounds);
    expect(of('member')).toHaveLength(3 * maxRounds);
    expect(of('summary')).toHaveLength(1);
    expect(of('leader')).toHaveLength(1);
    expect(result.usage.calls).toBe(stub.count());
  });

  it("asks the organizer about the user's question, with what was said so far", () => {
    const organizer = of('organizer').map((r) => JSON.stringify(r.body.messages));
    for (const text of organizer) expect(text).toContain("What is in the motorcyclist's mouth?");
    expect(organizer[0]).toContain('A man rides a motorcycle');
    expect(organizer[0]).not.toContain('flat wood');
    expect(organizer[1]).toContain('It looks like flat wood.');
  });

  it('sends members the image as an image_url part, with the sub-question cut at "?"', () => {
    for (const { body } of of('member')) {
      const user = body.messages.at(-1);
      expect(user.role).toBe('user');
      expect(user.content).toEqual([
        { type: 'text', text: 'What is the stick in his mouth made of?' },
        {
          type: 'image_url',
          image_url: { url: `data:image/png;base64,${Buffer.from(PNG).toString('base64')}` },
        },
      ]);
    }
    // Each member is its own vision model, as the template's profiles say.
    expect(new Set(of('member').map((r) => r.body.model))).toEqual(
      new Set(['gpt-4o-mini', 'gpt-4.1-mini', 'gpt-4.1-nano']),
    );
  });

  it("makes the leader's answer the run's answer", () => {
    expect(of('leader')[0]?.body.messages.at(-1).content).toContain(
      'The observers agree he holds a flat wooden stick',
    );
    expect(result.outputs.answer).toBe('(c)');
    expect(String(result.outputs.transcript)).toContain('It looks like flat wood.');
  });

  it('sends no key and no placeholder that looks like one', () => {
    for (const headers of stub.headers) expect(headers.authorization ?? '').not.toMatch(/sk-/);
  });
});
