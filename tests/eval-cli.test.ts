/**
 * `society eval` as a user meets it: variants side by side, scorer documents, rows that cannot
 * run, and one readable line for every bad argument.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvalSummary } from '../app/eval/types.ts';
import { openRunStore } from '../app/store/index.ts';
import { societyHere } from './support/cli.ts';
import { startStubOpenAI, stubError } from './support/stub-openai.ts';

let dir: string;
let doc: string;
let data: string;
let db: string;

/** One agent whose prompt wording is a template parameter. */
const society = {
  version: 1,
  name: 'greeter',
  params: { tone: { type: 'enum', values: ['plain', 'formal'], default: 'plain' } },
  models: { m: { provider: 'openai', model: 'gpt-4o-mini' } },
  nodes: [
    {
      id: 'name',
      type: 'input',
      position: { x: 0, y: 0 },
      data: { name: 'name', example: 'Ada' },
    },
    {
      id: 'topic',
      type: 'input',
      position: { x: 0, y: 100 },
      data: { name: 'topic', example: 'tea' },
    },
    {
      id: 'a',
      type: 'agent',
      position: { x: 200, y: 0 },
      data: { model: 'm', prompt: 'Greet {{ name }} about {{ topic }}, {{ params.tone }}.' },
    },
    { id: 'out', type: 'output', position: { x: 400, y: 0 }, data: { name: 'greeting' } },
  ],
  edges: [
    { id: 'e1', source: 'name', sourceHandle: 'value', target: 'a', targetHandle: 'name' },
    { id: 'e2', source: 'topic', sourceHandle: 'value', target: 'a', targetHandle: 'topic' },
    { id: 'e3', source: 'a', sourceHandle: 'text', target: 'out', targetHandle: 'value' },
  ],
};

/** A scorer document: 1 when the prediction mentions the reference's first word. */
const scorerDoc = {
  version: 1,
  name: 'mentions',
  nodes: [
    { id: 'p', type: 'input', position: { x: 0, y: 0 }, data: { name: 'prediction' } },
    { id: 'r', type: 'input', position: { x: 0, y: 100 }, data: { name: 'reference' } },
    {
      id: 't',
      type: 'transform',
      position: { x: 200, y: 0 },
      data: {
        template:
          '{% assign w = r | split: " " | first %}{% if p contains w %}1{% else %}0{% endif %}',
        output: 'number',
      },
    },
    { id: 's', type: 'output', position: { x: 400, y: 0 }, data: { name: 'score' } },
  ],
  edges: [
    { id: 'a', source: 'p', sourceHandle: 'value', target: 't', targetHandle: 'p' },
    { id: 'b', source: 'r', sourceHandle: 'value', target: 't', targetHandle: 'r' },
    { id: 'c', source: 't', sourceHandle: 'value', target: 's', targetHandle: 'value' },
  ],
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'society-eval-cli-'));
  doc = join(dir, 'greeter.society.json');
  data = join(dir, 'people.jsonl');
  db = join(dir, 'runs.db');
  writeFileSync(doc, JSON.stringify(society));
  writeFileSync(
    data,
    [
      { person: 'Grace', expected: 'Grace' },
      { person: 'Alan', expected: 'Alan' },
      { expected: 'nobody' },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n'),
  );
  writeFileSync(join(dir, 'scorer.society.json'), JSON.stringify(scorerDoc));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base = () => ['eval', doc, '--data', data, '--map', 'name=person', '--db', db, '--simulate'];

describe('society eval', () => {
  it('runs variants side by side; a row without its field fails alone, with no score', async () => {
    const result = await societyHere([
      ...base(),
      '--expect',
      'expected',
      '--scorer',
      'contains',
      '--variant',
      'plain=--set tone=plain',
      '--variant',
      'formal=--set tone=formal --model m=openai:gpt-4o',
      '--json',
      '-q',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as EvalSummary;
    expect(summary.simulated).toBe(true);
    expect(summary.variants.map((v) => [v.name, v.n, v.failed])).toEqual([
      ['plain', 3, 1],
      ['formal', 3, 1],
    ]);
    const store = openRunStore(db);
    try {
      const items = store.evalItems(summary.evalId);
      expect(items).toHaveLength(6);
      const failed = items.filter((i) => i.status === 'failed');
      expect(failed.map((i) => [i.item, i.score, i.error])).toEqual([
        [2, undefined, 'item 3 has no field "person"'],
        [2, undefined, 'item 3 has no field "person"'],
      ]);
      // Each variant ran its own document: its parameter and its model.
      const formal = items.find((i) => i.variant === 'formal' && i.item === 0)!;
      const run = store.getRun(formal.runId!)!;
      expect(run.documentText).toContain('"default": "formal"');
      expect(store.callRecord(run.id).entries[0]!.request.model).toBe('gpt-4o');
      // The unmapped input took the document's example.
      expect(run.inputs).toEqual({ name: 'Grace', topic: 'tea' });
    } finally {
      store.close();
    }
    // A scored run names its eval, item and score.
    const store2 = openRunStore(db);
    const first = store2.evalItems(summary.evalId)[0]!;
    store2.close();
    const shown = await societyHere(['show', first.runId!, '--db', db]);
    expect(shown.stdout.split('\n')[0]).toBe(
      `eval ${summary.evalId}: item 1, variant formal, scored, score ${first.score!.toFixed(3)} (expected "Grace")`,
    );
  });

  it('scores with a scorer document given prediction and reference', async () => {
    const result = await societyHere([
      ...base(),
      '--expect',
      'expected',
      '--scorer-graph',
      join(dir, 'scorer.society.json'),
      '--limit',
      '2',
      '--json',
      '-q',
    ]);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as EvalSummary;
    expect(summary.scorer).toMatch(/^graph .*scorer\.society\.json$/);
    // Simulated greetings quote the prompt, which names the person.
    expect(summary.variants[0]).toMatchObject({ n: 2, failed: 0, score: { mean: 1 } });
  });

  it('reads a CSV whose field names a file beside it (INPUT=@FIELD)', async () => {
    mkdirSync(join(dir, 'notes'), { recursive: true });
    writeFileSync(join(dir, 'notes', 'one.txt'), 'the history of tea');
    writeFileSync(join(dir, 'notes', 'two.txt'), 'the rules of chess');
    const csv = join(dir, 'topics.csv');
    writeFileSync(
      csv,
      'who,file,expected\nAda,notes/one.txt,tea\n"Lovelace, Ada",notes/two.txt,chess\n',
    );
    const result = await societyHere([
      'eval',
      doc,
      '--data',
      csv,
      '--map',
      'name=who',
      '--map',
      'topic=@file',
      '--expect',
      'expected',
      '--scorer',
      'contains',
      '--db',
      db,
      '--simulate',
      '--json',
      '-q',
    ]);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as EvalSummary;
    const store = openRunStore(db);
    try {
      const runs = store.evalItems(summary.evalId).map((i) => store.getRun(i.runId!)!);
      expect(runs.map((r) => r.inputs)).toEqual([
        { name: 'Ada', topic: 'the history of tea' },
        { name: 'Lovelace, Ada', topic: 'the rules of chess' },
      ]);
    } finally {
      store.close();
    }
  });

  it('says in one line what is wrong with its arguments', async () => {
    const cases: Array<[string[], RegExp]> = [
      [
        [...base(), '--expect', 'expected', '--scorer', 'bleu'],
        /--scorer bleu: no such scorer \(scorers: exact, choice/,
      ],
      [
        // `bert` computed a sentence cosine, not BERTScore: the name is refused, naming both.
        [...base(), '--expect', 'expected', '--scorer', 'bert'],
        /--scorer bert: now bertscore \(BERTScore F1, as OpenAGI computes it\) or text-cosine/,
      ],
      [[...base()], /--expect FIELD names the dataset field holding the right answer/],
      [
        [...base(), '--expect', 'nope'],
        /--expect nope: the dataset's rows have no field "nope" \(fields: person, expected\)/,
      ],
      [
        [...base(), '--map', 'topic=subject', '--expect', 'expected'],
        /--map topic=subject: the dataset's rows have no field "subject" \(fields: person, expected\)/,
      ],
      [
        [...base(), '--expect', 'expected', '--map', 'mood=person'],
        /--map mood: the document has no input "mood" \(it takes: name, topic\)/,
      ],
      [
        [...base(), '--expect', 'expected', '--variant', 'x=--temperature 2'],
        /--variant x: unknown option --temperature/,
      ],
      [[...base(), '--expect', 'expected', '--variant', 'x=--set tone=loud'], /--set tone=loud: /],
      [
        ['eval', doc, '--data', join(dir, 'none.jsonl'), '--expect', 'a', '--db', db],
        /cannot read .*none\.jsonl \(ENOENT\)/,
      ],
      [
        [...base(), '--expect', 'expected', '--replay', 'c.json'],
        /use one of --simulate and --replay/,
      ],
      [[...base(), '--expect', 'expected', '--limit', '0'], /--limit must be a whole number ≥ 1/],
    ];
    for (const [args, message] of cases) {
      const result = await societyHere(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
    const missing = await societyHere(['eval-show', 'ffff', '--db', db]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no eval "ffff" in .* \(see `society evals`\)/);
  });

  it('refuses a live eval whose key is not set before its first run (exit 2)', async () => {
    const key = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      const args = ['eval', doc, '--data', data, '--map', 'name=person', '--expect', 'expected'];
      const evals = () => {
        const store = openRunStore(db);
        try {
          return store.listEvals().length;
        } finally {
          store.close();
        }
      };
      const before = evals();
      const result = await societyHere([...args, '--db', db, '--limit', '2', '-q']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /^society: OPENAI_API_KEY is not set: provider "openai" with model profile \S+, for node a\n/,
      );
      expect(evals()).toBe(before);
    } finally {
      if (key !== undefined) process.env.OPENAI_API_KEY = key;
    }
  });

  it('stops when its first runs all fail the same way, leaving those items to run again', async () => {
    const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
    // A server that turns the key away: every run fails alike, at its first call.
    const stub = await startStubOpenAI({ respond: () => stubError(401, 'invalid api key') });
    process.env.OPENAI_API_KEY = 'sk-eval-cli-test-0123456789';
    process.env.OPENAI_BASE_URL = stub.url;
    try {
      const args = ['eval', doc, '--data', data, '--map', 'name=person', '--expect', 'expected'];
      const result = await societyHere([...args, '--db', db, '--limit', '2', '-q']);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^society: stopped: the first runs all failed the same way, so the rest would too: node "a": .*invalid api key/,
      );
      expect(result.stdout).toMatch(/· interrupted\n/);
      const store = openRunStore(db);
      try {
        const record = store.listEvals().find((e) => e.config.mode === 'live')!;
        // Both runs were tried and neither item was recorded as a result.
        expect(store.evalItems(record.id)).toEqual([]);
      } finally {
        store.close();
      }
    } finally {
      await stub.close();
      for (const [name, value] of [
        ['OPENAI_API_KEY', saved.key],
        ['OPENAI_BASE_URL', saved.url],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('lists evals with their best variant', async () => {
    const result = await societyHere(['evals', '--db', db]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /greeter \[simulated\]\s+finished\s+3\s+2\s+(plain|formal) 0\.667/,
    );
  });
});
