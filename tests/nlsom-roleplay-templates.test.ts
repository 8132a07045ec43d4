/**
 * The shipped CAMEL role-play and embodied NLSOM templates, run against a local server speaking
 * the OpenAI protocol over real HTTP: how many calls each makes is what goes over the wire.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { BlobStore } from '../app/runtime/blobs.ts';
import { eventsOf, run } from './support/graphs.ts';
import {
  type StubOpenAI,
  type StubReply,
  type StubRequestBody,
  startStubOpenAI,
} from './support/stub-openai.ts';

const template = (base: string) =>
  JSON.parse(readFileSync(new URL(`../templates/${base}.society.json`, import.meta.url), 'utf8'));

/** The user message's text of a request. */
const userText = (body: StubRequestBody): string => {
  const content = body.messages.at(-1).content;
  if (typeof content === 'string') return content;
  return content
    .filter((part: { type: string }) => part.type === 'text')
    .map((part: { text: string }) => part.text)
    .join('\n');
};
/** The system message's text of a request. */
const systemText = (body: StubRequestBody): string =>
  String(body.messages.find((m: { role: string }) => m.role === 'system')?.content ?? '');

let stub: StubOpenAI | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

async function over(
  doc: unknown,
  respond: (body: StubRequestBody) => StubReply,
  options: { humanAnswers?: Record<string, string> } = {},
): ReturnType<typeof run> {
  stub = await startStubOpenAI({ respond });
  return run(JSON.stringify(doc), {
    inputs: {
      task: 'A dice game for two players.',
      user_role: 'Python programmer',
      assistant_role: 'game developer',
    },
    providerOverrides: { openai: { baseUrl: stub.url, apiKeyEnv: '' } },
    env: {},
    ...options,
  });
}

describe('CAMEL role-play template over HTTP', () => {
  const isUser = (body: StubRequestBody) => systemText(body).includes('you lead');

  it('stops after the round in which the AI user says <TASK_DONE>', async () => {
    let turn = 0;
    const result = await over(template('nlsom-camel'), (body) => {
      if (!isUser(body)) return { text: 'Done as asked. Next request.' };
      turn++;
      return { text: turn === 4 ? '<TASK_DONE>' : `Instruction ${turn}: write the next part.` };
    });
    expect(result.status).toBe('succeeded');
    // The specifier, then 4 rounds of one instruction and one answer.
    expect(stub!.count()).toBe(1 + 2 * 4);
    expect(result.outputs.rounds).toBe(4);
    const finished = eventsOf(result.events, 'round.finished');
    expect(finished.at(-1)?.stop).toBe('"user" said "<TASK_DONE>"');
    // Each role keeps its own conversation: the user's 4th turn replays its 3 before.
    const users = stub!.requests.filter(isUser);
    expect(users[3].messages.filter((m: { role: string }) => m.role === 'user')).toHaveLength(4);
    expect(JSON.stringify(users[3].messages)).not.toContain('you carry out');
  });

  it('stops after the round in which the calls reach the token budget', async () => {
    // 1,000 tokens a call against a budget of 30,000: the specifier and 14 rounds make 29
    // calls (29,000), the 15th round reaches 31,000 and is the last.
    const result = await over(template('nlsom-camel'), () => ({
      text: 'Carry on.',
      usage: { prompt_tokens: 800, completion_tokens: 200 },
    }));
    expect(result.status).toBe('succeeded');
    expect(stub!.count()).toBe(1 + 2 * 15);
    expect(result.outputs.rounds).toBe(15);
    expect(eventsOf(result.events, 'round.finished').at(-1)?.stop).toBe(
      'used 31,000 tokens of its 30,000-token budget',
    );
  });

  it("ends at 25 rounds, the paper's 50 messages, when nothing else stops it", async () => {
    const result = await over(template('nlsom-camel'), () => ({
      text: 'Carry on.',
      usage: { prompt_tokens: 10, completion_tokens: 5 },
    }));
    expect(stub!.count()).toBe(1 + 2 * 25);
    expect(result.outputs.rounds).toBe(25);
  });
});

describe('embodied NLSOM template over HTTP', () => {
  const ROOMS = ['a hallway with a door ahead', 'a kitchen with a fridge', 'a bedroom with a bed'];
  const humanAnswers = Object.fromEntries(ROOMS.map((room, i) => [`scene@r${i + 1}`, room]));
  /** Which agent sent a request, read from its system message or prompt. */
  const roleOf = (body: StubRequestBody) => {
    const system = systemText(body);
    if (system.includes('captain of a robot')) return 'captain';
    if (system.includes('You are the observer')) return 'observer';
    return userText(body).startsWith('Summarize for the captain') ? 'report' : 'ask';
  };
  const answers: Record<string, string> = {
    ask: 'What is straight ahead?',
    observer: 'A door, two metres ahead.',
    report: 'A hallway with a door two metres ahead.',
    captain: '(a)',
  };

  it('makes steps × (2 × inner rounds + 2) calls', async () => {
    const doc = template('nlsom-embodied');
    const steps = doc.nodes.find((n: { id: string }) => n.id === 'explore').data.maxRounds;
    const inner = doc.nodes.find((n: { id: string }) => n.id === 'look').data.maxRounds;
    const result = await over(doc, (body) => ({ text: answers[roleOf(body)]! }), { humanAnswers });
    expect(result.error).toBeUndefined();
    expect(result.status).toBe('succeeded');
    expect(stub!.count()).toBe(steps * (2 * inner + 2));
    expect(result.outputs.actions).toEqual(Array(steps).fill('(a)'));
    // The observer sees what the person reported at its step.
    const observed = stub!.requests.filter((b) => roleOf(b) === 'observer').map(userText);
    expect(observed[0]).toContain(ROOMS[0]);
    expect(observed.at(-1)).toContain(ROOMS[steps - 1]);
  });

  it("sums up in the first mate's own conversation, and the captain keeps every step", async () => {
    const doc = template('nlsom-embodied');
    await over(doc, (body) => ({ text: answers[roleOf(body)]! }), { humanAnswers });
    const inner = doc.nodes.find((n: { id: string }) => n.id === 'look').data.maxRounds;
    const reports = stub!.requests.filter((b) => roleOf(b) === 'report');
    // Every question of its step and the observer's answer to it, then the request to sum up.
    for (const r of reports) {
      const turns = r.messages.filter((m: { role: string }) => m.role !== 'system');
      expect(turns).toHaveLength(2 * inner + 1);
      expect(JSON.stringify(turns)).toContain('A door, two metres ahead.');
    }
    const captains = stub!.requests.filter((b) => roleOf(b) === 'captain');
    expect(
      captains.at(-1).messages.filter((m: { role: string }) => m.role === 'user'),
    ).toHaveLength(captains.length);
  });

  it('ends the exploration when the captain says stop', async () => {
    const doc = template('nlsom-embodied');
    const inner = doc.nodes.find((n: { id: string }) => n.id === 'look').data.maxRounds;
    const result = await over(
      doc,
      (body) => ({ text: roleOf(body) === 'captain' ? '(d) stop' : answers[roleOf(body)]! }),
      { humanAnswers },
    );
    expect(result.status).toBe('succeeded');
    expect(stub!.count()).toBe(2 * inner + 2);
    expect(result.outputs.actions).toEqual(['(d)']);
  });
});

describe("a mindstorm's rights wording over HTTP", () => {
  it('is what members receive once the document rewords it', async () => {
    const doc = template('nlsom-vqa');
    const storm = doc.nodes.find((n: { type: string }) => n.type === 'mindstorm');
    storm.data.structure = 'democracy';
    storm.data.prompts = {
      know: 'LAST ROUND "{{ question }}": {% for a in answers %}{{ a.text }}|{% endfor %}\n{{ prompt }}',
      change: 'RECONSIDER "{{ question }}" {{ options | lettered }}',
      execute: 'YOUR VOTE. {{ prompt }}',
    };
    const blobs = new BlobStore();
    stub = await startStubOpenAI({
      respond: (body) => ({ text: userText(body).includes('VOTE') ? '(c)' : 'A wooden stick?' }),
    });
    const result = await run(JSON.stringify(doc), {
      providerOverrides: { openai: { baseUrl: stub.url, apiKeyEnv: '' } },
      env: {},
      blobs,
      inputs: {
        question: 'What is it? (a) a pen (b) a cup (c) a stick (d) a key',
        image: blobs.putImage(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]), 'image/png'),
      },
    });
    expect(result.error).toBeUndefined();
    const sent = stub.requests.map(userText);
    // The template's rounds are its `rounds` parameter, bound to its default.
    const rounds = doc.params.rounds.default as number;
    // Every member from round 2 on, once per member and round, once per member.
    expect(sent.filter((t) => t.includes('LAST ROUND "A wooden stick?"'))).toHaveLength(
      3 * (rounds - 1),
    );
    expect(sent.filter((t) => t.startsWith('RECONSIDER'))).toHaveLength(3 * rounds);
    expect(sent.filter((t) => t.startsWith('YOUR VOTE.'))).toHaveLength(3);
    expect(sent.some((t) => t.includes('Context from the previous round'))).toBe(false);
  });
});
