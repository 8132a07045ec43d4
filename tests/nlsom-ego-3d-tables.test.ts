/**
 * NLSOM's Tables 7 and 6 as commands: `society nlsom ego-eval` over Ego4D NLQ queries and
 * narrations (files made here in Ego4D's formats), and `society nlsom 3d-eval` running the
 * original prompt's arm beside the society's. Each prints the paper's figure, ours and the
 * difference per cell. The debaters are answered by a local server speaking the OpenAI protocol.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clipNarrations,
  EgoDataError,
  openNarrations,
  readNlq,
} from '../app/cli/commands/nlsom/ego-data.ts';
import { societyHere } from './support/cli.ts';
import { type StubOpenAI, startStubOpenAI } from './support/stub-openai.ts';

const dir = mkdtempSync(join(tmpdir(), 'society-ego3d-'));
const db = join(dir, 'runs.db');

/** One video, one clip 100–310 s into it, three queries (one without text, as Ego4D has). */
const NLQ = {
  version: 'v1',
  videos: [
    {
      video_uid: 'vid-a',
      clips: [
        {
          clip_uid: 'clip-a',
          video_start_sec: 100,
          video_end_sec: 310,
          annotations: [
            {
              annotation_uid: 'an-1',
              language_queries: [
                {
                  clip_start_sec: 24,
                  clip_end_sec: 31,
                  query: 'Where did I put the scissors?',
                  template: 'Objects: Where is object X before / after event Y?',
                },
                { clip_start_sec: 45, clip_end_sec: 53, template: 'Objects: Where is object X?' },
                { clip_start_sec: 150, clip_end_sec: 160, query: 'What did I eat?' },
              ],
            },
          ],
        },
      ],
    },
  ],
};
const LINES: Array<[number, string]> = [
  [0, 'C walks into the kitchen'],
  [9, 'C opens the fridge'],
  [53, 'C picks up a pair of scissors'],
  [124, 'C puts the scissors in the drawer'],
  [178, 'C eats the porridge'],
  [250, 'C washes the bowl'],
];
/** Ego4D's narration.json: video times (the clip starts at 100 s), `#C` tags. */
const NARRATION = {
  'vid-a': {
    narration_pass_1: {
      narrations: LINES.map(([t, text]) => ({
        timestamp_sec: 100 + t,
        narration_text: `#C ${text}`,
      })),
    },
  },
};

function write(name: string, value: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

let stub: StubOpenAI;
const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
beforeAll(async () => {
  // 23.5 s is half a second before the scissors' window (24–31 s): a miss for plain R1, a hit
  // at τ = 1 s. Both the editor and every ballot name it first.
  stub = await startStubOpenAI({
    respond: (body) => {
      const last = JSON.stringify((body.messages as unknown[]).at(-1));
      if (last.includes('Timestamps:')) return { text: 'The drawer. Timestamps: 23.5, 60' };
      if (last.includes('vote: list the moments')) return { text: '23.5, 60' };
      if (last.includes('Summarize in two or three sentences'))
        return { text: 'C makes porridge.' };
      return { text: 'Around 23.5 s, the drawer.' };
    },
  });
  process.env.OPENAI_API_KEY = 'sk-ego-table-test-0123456789';
  process.env.OPENAI_BASE_URL = stub.url;
});
afterAll(async () => {
  await stub.close();
  for (const [name, value] of [
    ['OPENAI_API_KEY', saved.key],
    ['OPENAI_BASE_URL', saved.url],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('the Ego4D loaders', () => {
  it('reads NLQ queries with clip times, leaving out those without text, and cuts the narrations to the clip', () => {
    const nlq = readNlq(write('nlq.json', NLQ));
    expect(nlq.withoutText).toBe(1);
    expect(nlq.queries.map((q) => [q.query, q.start, q.end])).toEqual([
      ['Where did I put the scissors?', 24, 31],
      ['What did I eat?', 150, 160],
    ]);
    const source = openNarrations(write('narration.json', NARRATION));
    const text = clipNarrations(source.of('vid-a')!, nlq.queries[0]!);
    // Times from the clip's start, tags dropped; the line 250 s in (350 s into the video) is
    // after the clip's end (310 s), so it is left out.
    expect(text.split('\n')[3]).toBe('124 C puts the scissors in the drawer');
    expect(text.split('\n')).toHaveLength(5);
  });

  it('reads a folder of per-video SECONDS-text files', () => {
    const folder = join(dir, 'narrations');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'vid-a.txt'), LINES.map(([t, s]) => `${100 + t} ${s}`).join('\n'));
    const nlq = readNlq(write('nlq.json', NLQ));
    const text = clipNarrations(openNarrations(folder).of('vid-a')!, nlq.queries[1]!);
    expect(text.split('\n')[0]).toBe('0 C walks into the kitchen');
  });

  it('refuses a malformed file naming the file, the entry and the field', () => {
    const bad = structuredClone(NLQ) as typeof NLQ;
    (
      bad.videos[0]!.clips[0]!.annotations[0]!.language_queries[2] as Record<string, unknown>
    ).clip_start_sec = 'soon';
    const file = write('bad-nlq.json', bad);
    expect(() => readNlq(file)).toThrow(EgoDataError);
    expect(() => readNlq(file)).toThrow(
      `${file}: videos[0].clips[0].annotations[0].language_queries[2]: "clip_start_sec" must be a number of seconds ≥ 0, got "soon"`,
    );
    const narr = structuredClone(NARRATION);
    delete (narr['vid-a'].narration_pass_1.narrations[2] as Record<string, unknown>).narration_text;
    const nfile = write('bad-narration.json', narr);
    expect(() => openNarrations(nfile)).toThrow(
      `${nfile}: vid-a.narration_pass_1.narrations[2]: "narration_text" must be a text, got nothing`,
    );
  });
});

describe('society nlsom ego-eval', () => {
  it('refuses a malformed NLQ file in one line (exit 2), naming the field', async () => {
    const bad = structuredClone(NLQ) as typeof NLQ;
    delete (bad.videos[0]!.clips[0] as Record<string, unknown>).video_end_sec;
    const file = write('no-end.json', bad);
    const narr = write('narration.json', NARRATION);
    const result = await societyHere(['nlsom', 'ego-eval', file, '--narrations', narr, '--db', db]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `society: ${file}: videos[0].clips[0]: "video_end_sec" must be a number of seconds ≥ 0, got nothing\n`,
    );
  });

  it("prints Table 7: plain R@k beside R@k@τ for random, grid and both structures, with the paper's figures", async () => {
    const nlq = write('nlq.json', NLQ);
    const narr = write('narration.json', NARRATION);
    const before = stub.count();
    const result = await societyHere([
      'nlsom',
      'ego-eval',
      nlq,
      '--narrations',
      narr,
      '--provider',
      `openai=${stub.url}`,
      '--db',
      db,
      '-q',
    ]);
    expect(result.code, result.stderr).toBe(0);
    // Monarchy 1 + 4 + 4 + 1 and democracy 1 + 4 + 4 + 4 calls per query, two queries.
    expect(stub.count() - before).toBe(2 * (10 + 13));
    const out = result.stdout;
    expect(out).toContain('Ego4D NLQ recall, % (NLSOM Table 7 layout)');
    expect(out).toContain('1 without a query text left out');
    // 23.5 s misses the scissors' window as such and hits it widened by 1 s; the second query
    // (150–160 s) is missed by 23.5, 60 and the grid padding (35, 70, 105).
    expect(out).toMatch(
      /^m\. w\.exec \(4, 1\)\s+2\s+R1\s+7\.81\s+0\.00 \[0\.00, \d+\.\d+\]\s+−7\.81$/m,
    );
    expect(out).toMatch(
      /^m\. w\.exec \(4, 1\)\s+2\s+R1@1\s+9\.90\s+50\.00 \[[\d.]+, [\d.]+\]\s+\+40\.10$/m,
    );
    expect(out).toMatch(/^d\. w\.exec \(4, 1\)\s+2\s+R1@1\s+10\.42\s+50\.00 /m);
    // The rows as answered (the editor's list, the vote's ranking) before "w. exec.".
    expect(out).toMatch(/^m\. \(4, 1\)\s+2\s+R1@1\s+8\.33\s+50\.00 /m);
    expect(out).toMatch(/^d\. \(4, 1\)\s+2\s+R1\s+8\.85\s+0\.00 /m);
    // Random's expected R1: the windows' shares of the 210 s clip, 7/210 and 10/210, averaged.
    const random = (((7 + 10) / 210 / 2) * 100).toFixed(2);
    expect(out).toMatch(
      new RegExp(`^random \\(expected, 0 calls\\)\\s+2\\s+R1\\s+4\\.69\\s+${random} `, 'm'),
    );
    // Grid at k = 3 puts 157.5 s inside the second window.
    expect(out).toMatch(/^grid \(0 calls\)\s+2\s+R3\s+6\.25\s+50\.00 /m);
    expect(out).toContain("the paper's figures: NLSOM Table 7");
  });
});

describe('society nlsom 3d-eval', () => {
  it('runs the original prompt and the society prompt as two variants and prints their difference beside Table 6', async () => {
    const prompts = write('prompts.txt', 'a red Ferrari sports car\n{"prompt": "a blue teapot"}\n');
    const args = ['nlsom', '3d-eval', prompts, '--simulate', '--db', db, '-q'];
    const result = await societyHere([...args, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.variants.map((v: { name: string; n: number }) => [v.name, v.n])).toEqual([
      ['original', 2],
      ['nlsom', 2],
    ]);
    const [ferrari, teapot, average] = json.rows;
    expect(ferrari.paperColumn).toBe('Ferrari');
    expect([ferrari.original.paper, ferrari.nlsom.paper]).toEqual([0.3, 0.29]);
    // The difference is the society's design's score less the original's, on the same item.
    expect(ferrari.difference.ours.mean).toBeCloseTo(
      ferrari.nlsom.ours.mean - ferrari.original.ours.mean,
      12,
    );
    expect(teapot.original.text.paper).toBe('not in paper');
    expect(average.difference.paper).toBeCloseTo(-0.012, 12);
    expect(average.difference.ours.n).toBe(2);

    const text = await societyHere(args);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /^a red Ferrari sports car\s+Ferrari\s+original prompt \(Imagine3D\)\s+30\.0\s/m,
    );
    expect(text.stdout).toMatch(/^\s+society − original\s+−1\.0\s/m);
    expect(text.stdout).toMatch(
      /^a blue teapot\s+–\s+original prompt \(Imagine3D\)\s+not in paper\s/m,
    );
    expect(text.stdout).toMatch(/paired bootstrap p=\d\.\d{3}/);
    expect(text.stdout).toContain("the paper's figures: NLSOM Table 6");
  });
});
