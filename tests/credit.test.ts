/**
 * `society credit`: a 5-member VQA monarchy run made live against a local OpenAI-protocol
 * server, then each member left out in turn. The server is asked again exactly the calls whose
 * request depended on the member left out (counted here from the run's own requests), every
 * other call comes from the run's record, and a member the leader's answer never depends on
 * gets influence 0.
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { societyHere } from './support/cli.ts';
import { type StubRequestBody, startStubOpenAI } from './support/stub-openai.ts';

const ROUNDS = 2;
/** What each member answers every round: two see red, one blue, two cannot tell. */
const SAYS: Record<string, string> = {
  'vlm-1-model': 'It is red.',
  'vlm-2-model': 'It is red.',
  'vlm-3-model': 'I cannot tell.',
  'vlm-4-model': 'It is blue.',
  'vlm-5-model': 'I cannot tell.',
};
const QUESTION =
  'What is the large shape? (a) a red circle (b) a blue square (c) a green triangle (d) a yellow star';

const userText = (body: StubRequestBody) =>
  JSON.stringify((body.messages as Array<{ role: string }>).filter((m) => m.role === 'user'));
const count = (text: string, what: string) => text.split(what).length - 1;
/** The organizer's notes: how many answers said red and blue. Nothing else of the record. */
const notes = (text: string) =>
  `red: ${count(text, 'It is red.')}, blue: ${count(text, 'It is blue.')}`;

let stub: Awaited<ReturnType<typeof startStubOpenAI>>;
let dir: string;
let document: string;
/** The 5-member run the first test makes. */
let parentId = '';
beforeAll(async () => {
  stub = await startStubOpenAI({
    respond: (body) => {
      const text = userText(body);
      if (text.includes('Describe this image')) return { text: 'A shape on a plain background.' };
      if (text.includes('ask the observers one new short question'))
        return { text: 'What colour is the shape?' };
      if (text.includes('Summarize')) return { text: notes(text) };
      if (text.includes('Which option is most likely right?')) {
        // The leader reads only the notes' counts: the members who cannot tell never sway it.
        const [, red, blue] = /red: (\d+), blue: (\d+)/.exec(text) ?? [];
        return { text: Number(red) > Number(blue) ? '(a)' : '(b)' };
      }
      return { text: SAYS[body.model as string] ?? 'I cannot tell.' };
    },
  });
  dir = mkdtempSync(join(tmpdir(), 'society-credit-'));
  const doc = JSON.parse(readFileSync('templates/nlsom-vqa.society.json', 'utf8'));
  const vlms = [1, 2, 3, 4, 5].map((i) => `vlm-${i}`);
  for (const name of vlms) doc.models[name] = { ...doc.models['vlm-1'], model: `${name}-model` };
  doc.params.vlms.default = vlms;
  doc.params.rounds.default = ROUNDS;
  // A number the run itself reports, read by `--score` as the run's own score.
  doc.nodes.push({
    id: 'rounds',
    type: 'output',
    position: { x: 1100, y: 320 },
    data: { name: 'rounds' },
  });
  doc.edges.push({
    id: 'rounds-out',
    source: 'storm',
    sourceHandle: 'rounds',
    target: 'rounds',
    targetHandle: 'value',
  });
  document = join(dir, 'vqa5.society.json');
  writeFileSync(document, JSON.stringify(doc));
});
afterAll(() => stub.close());

const common = () => ['--db', join(dir, 'runs.db'), '--provider', `openai=${stub.url}`];

describe('society credit', () => {
  it('re-sends exactly what depends on each member; an ignored member has influence 0', async () => {
    const run = await societyHere([
      'run',
      document,
      '--input',
      `question=${QUESTION}`,
      '--input',
      'image=@templates/nlsom-vqa.example.png',
      ...common(),
      '--json',
      '-q',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const parent = JSON.parse(run.stdout);
    expect(parent.outputs.answer).toBe('(a)');
    parentId = parent.runId;
    const sent = stub.requests.map(userText);
    // 5 captions, then per round the organizer and 5 members, then the summary and the leader.
    expect(sent).toHaveLength(5 + ROUNDS * 6 + 2);

    // Counted from the run's own requests: leaving member#k out changes every request that
    // quotes its answers (the organizer in later rounds, the summary), and the leader's when the
    // notes it reads change.
    const summary = sent.find((t) => t.includes('Summarize'))!;
    const expected = (k: number) => {
      const quoting = sent.filter((t) => t.includes(`member#${k}@r`)).length;
      const without = summary
        .replaceAll(`member#${k}@r1: ${SAYS[`vlm-${k + 1}-model`]}`, '')
        .replaceAll(`member#${k}@r2: ${SAYS[`vlm-${k + 1}-model`]}`, '');
      return quoting + (notes(without) === notes(summary) ? 0 : 1);
    };

    const before = stub.count();
    const credit = await societyHere([
      'credit',
      parent.runId,
      ...common(),
      '--metric',
      'exact',
      '--expect',
      '(a)',
      '--json',
    ]);
    expect(credit.code, credit.stderr).toBe(0);
    const report = JSON.parse(credit.stdout);
    const members = report.members as Array<Record<string, unknown>>;
    expect(members.map((m) => m.member)).toEqual([0, 1, 2, 3, 4].map((k) => `member#${k}`));
    for (const [k, m] of members.entries()) expect(m.resent, m.member as string).toBe(expected(k));
    expect(members.map((m) => m.resent)).toEqual([3, 3, 2, 3, 2]);
    expect(stub.count() - before).toBe(members.reduce((n, m) => n + (m.resent as number), 0));
    // Every other call of each fork came from the record: the run's 19 calls, less the member's
    // own 2 (left out, never asked) and what was re-sent.
    for (const m of members) {
      expect(m.leftOut).toBe(ROUNDS);
      expect(m.fromRecord).toBe(19 - ROUNDS - (m.resent as number));
    }

    // The red-sayers decide (a 1–1 tie goes to (b)); the blue-sayer changes the notes, not the
    // answer; the members who cannot tell change neither.
    expect(members.map((m) => m.outputChanged)).toEqual([true, true, false, false, false]);
    expect(members[2]).toMatchObject({
      outputChanged: false,
      decisive: { instance: 'organizer@r2' },
    });
    expect(members[0]).toMatchObject({ output: '(b)', decisive: { instance: 'organizer@r2' } });

    // Scored: the right answer is (a); leaving out a red-sayer costs the whole point.
    expect(report).toMatchObject({ metric: 'exact', score: 1 });
    expect(members.map((m) => m.scoreDelta)).toEqual([-1, -1, 0, 0, 0]);
  });

  it('by round, leaves a member out of one round only', async () => {
    const sent = stub.requests.slice(0, 19).map(userText);
    const before = stub.count();
    const credit = await societyHere([
      'credit',
      parentId,
      '--by',
      'round',
      '--member',
      'member#0@r2',
      '--score',
      'rounds',
      ...common(),
      '--json',
    ]);
    expect(credit.code, credit.stderr).toBe(0);
    const report = JSON.parse(credit.stdout);
    // The run's own score (here the rounds it held, a number the document outputs) is read from
    // the run and from the fork alike.
    expect(report).toMatchObject({ scoreOutput: 'rounds', score: ROUNDS });
    const [m] = report.members;
    expect(m).toMatchObject({ score: ROUNDS, scoreDelta: 0 });
    // Its last answer is quoted by the summary alone; the notes lose one "red", so the leader
    // is asked again too, and still answers (a) (3 red to 2 blue).
    expect(sent.filter((t) => t.includes('member#0@r2'))).toHaveLength(1);
    expect(m).toMatchObject({ member: 'member#0@r2', leftOut: 1, resent: 2, fromRecord: 16 });
    expect(m).toMatchObject({ outputChanged: false, decisive: { instance: 'summary@gather' } });
    expect(stub.count() - before).toBe(2);

    // The same as a table: a new fork of the run, so the same 2 calls are sent again.
    const table = await societyHere([
      'credit',
      parentId,
      '--by',
      'round',
      '--member',
      'member#0@r2',
      '--metric',
      'exact',
      '--expect',
      '(a)',
      ...common(),
    ]);
    expect(table.code, table.stderr).toBe(0);
    const rows = table.stdout.split('\n');
    expect(rows[0]).toBe(
      `Credit for run ${parentId}: each member left out of one round in turn; answer was (a)`,
    );
    expect(rows[2]).toMatch(
      /^member\s+left out\s+re-sent\s+from record\s+output changed\s+score Δ\s+decisive\s+fork$/,
    );
    expect(rows[3]).toMatch(/^member#0@r2\s+1\s+2\s+16\s+no\s+0\s+summary@gather\s+[0-9a-f]{16}$/);
  });

  it('over an eval, averages each member over the items', async () => {
    const data = join(dir, 'items.jsonl');
    copyFileSync('templates/nlsom-vqa.example.png', join(dir, 'shape.png'));
    const rows = [QUESTION, 'Which colour is it? (a) red (b) blue (c) green (d) yellow'];
    writeFileSync(
      data,
      rows.map((q) => JSON.stringify({ q, img: 'shape.png', a: 'a' })).join('\n'),
    );
    const evaluated = await societyHere([
      'eval',
      document,
      '--data',
      data,
      '--map',
      'question=q',
      '--map',
      'image=@img',
      '--expect',
      'a',
      '--scorer',
      'choice',
      '--variant',
      'one-round=--set rounds=1',
      ...common(),
      '--json',
    ]);
    expect(evaluated.code, evaluated.stderr).toBe(0);
    const evalId = JSON.parse(evaluated.stdout).evalId as string;
    const before = stub.count();
    const credit = await societyHere(['credit', '--eval', evalId, ...common(), '--json']);
    expect(credit.code, credit.stderr).toBe(0);
    const report = JSON.parse(credit.stdout);
    // One round: a red-sayer's absence ties the count, so the leader says (b) and the item is
    // lost; the blue-sayer's changes the notes, not the answer; the others change nothing the
    // leader reads (the summary alone is asked again).
    expect(report.members).toEqual([
      { member: 'member#0', items: 2, changed: 2, resent: 4, meanScoreDelta: -1 },
      { member: 'member#1', items: 2, changed: 2, resent: 4, meanScoreDelta: -1 },
      { member: 'member#2', items: 2, changed: 0, resent: 2, meanScoreDelta: 0 },
      { member: 'member#3', items: 2, changed: 0, resent: 4, meanScoreDelta: 0 },
      { member: 'member#4', items: 2, changed: 0, resent: 2, meanScoreDelta: 0 },
    ]);
    expect(stub.count() - before).toBe(16);
  });

  it('refuses bad arguments in one line', async () => {
    const member = await societyHere(['credit', parentId, '--member', 'member#9', ...common()]);
    expect(member.code).toBe(2);
    expect(member.stderr).toMatch(/has no member member#9 \(its members: member#0, /);
    const bad = await societyHere(['credit', 'nope', ...common()]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    const metric = await societyHere(['credit', 'nope', '--metric', 'exact', ...common()]);
    expect(metric.code).toBe(2);
    expect(metric.stderr).toMatch(/needs --expect/);
    const notANumber = await societyHere(['credit', parentId, '--score', 'answer', ...common()]);
    expect(notANumber.code).toBe(2);
    expect(notANumber.stderr).toMatch(/has no number in an output "answer"/);
  });
});
