/**
 * `society eval-export ID DIR` and `society eval-import DIR`: an eval answered by a local
 * OpenAI-protocol server, exported, opened in another store with the same table byte for byte,
 * refused when a file changed, and re-scored there without a model call.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { escapeLatex, toCsv, toLatex } from '../app/eval/bundle/tables.ts';
import { registerTablePresenter } from '../app/eval/table-presenters.ts';
import { openRunStore } from '../app/store/index.ts';
import { societyHere } from './support/cli.ts';
import { QA_DOCUMENT, QA_ROWS } from './support/qa-eval.ts';
import { type StubOpenAI, startStubOpenAI } from './support/stub-openai.ts';

// The key is in the environment before the process's redactor is made, as a user's would be.
const KEY = vi.hoisted(() => {
  const key = 'sk-bundle-test-9f8e7d6c5b4a39281706';
  process.env.OPENAI_API_KEY = key;
  return key;
});

/** Every file under `dir`, as paths relative to it. */
function filesIn(dir: string, prefix = ''): string[] {
  return readdirSync(path.join(dir, prefix)).flatMap((name) => {
    const rel = prefix ? `${prefix}/${name}` : name;
    return statSync(path.join(dir, rel)).isDirectory() ? filesIn(dir, rel) : [rel];
  });
}

describe('society eval-export / eval-import', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'society-bundle-'));
  const db = path.join(dir, 'original.db');
  const bundle = path.join(dir, 'bundle');
  let stub: StubOpenAI;
  let evalId = '';
  const savedUrl = process.env.OPENAI_BASE_URL;

  beforeAll(async () => {
    // The server answers as a dated snapshot of the model asked for, as providers do.
    stub = await startStubOpenAI({
      respond: (body) => ({
        text: `echo: ${JSON.stringify(body.messages.at(-1).content)}`,
        model: `${body.model}-2024-07-18`,
      }),
    });
    process.env.OPENAI_BASE_URL = stub.url;
    const doc = path.join(dir, 'qa.society.json');
    const data = path.join(dir, 'data.jsonl');
    writeFileSync(doc, JSON.stringify(QA_DOCUMENT));
    // A row that quotes the key: what is written anywhere must not.
    const rows = [...QA_ROWS, { question: `Is ${KEY} a key?`, answer: 'yes' }];
    writeFileSync(data, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const ran = await societyHere([
      ...['eval', doc, '--data', data, '--map', 'question=question', '--expect', 'answer'],
      ...['--scorer', 'contains', '--variant', 'small=--model m=openai:gpt-4o-mini'],
      ...['--variant', 'big=--model m=openai:gpt-4o', '--json', '-q', '--db', db],
    ]);
    expect(ran.stderr).toBe('');
    evalId = JSON.parse(ran.stdout).evalId;
    expect(stub.count()).toBe(10);
    const exported = await societyHere(['eval-export', evalId, bundle, '--db', db]);
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain(`eval ${evalId}, 10 item records, 10 runs`);
  });

  afterAll(async () => {
    await stub.close();
    if (savedUrl === undefined) delete process.env.OPENAI_BASE_URL;
    else process.env.OPENAI_BASE_URL = savedUrl;
  });

  it('writes the documents, items, models, report, tables, charts and runs, each in the manifest', () => {
    const manifest = JSON.parse(readFileSync(path.join(bundle, 'manifest.json'), 'utf8'));
    expect(manifest.format).toBe('society-eval-bundle');
    expect(manifest.data).toMatchObject({ file: 'data.jsonl', included: false });
    const written = filesIn(bundle).filter((f) => f !== 'manifest.json');
    expect(Object.keys(manifest.files).sort()).toEqual(written.sort());
    for (const file of [
      'report.html',
      'tables/table.csv',
      'tables/table.md',
      'tables/table.tex',
      'plots/scores.svg',
      'plots/score-cost.png',
    ])
      expect(written).toContain(file);
    expect(manifest.runs).toHaveLength(10);
    expect(Object.keys(manifest.documents).sort()).toEqual(['big', 'small']);
    // The names the server answered with, per variant and profile.
    const models = JSON.parse(readFileSync(path.join(bundle, 'models.json'), 'utf8'));
    expect(models).toContainEqual({
      variant: 'small',
      requested: 'gpt-4o-mini',
      profiles: ['m'],
      answered: { 'gpt-4o-mini-2024-07-18': 5 },
      calls: 5,
      kind: 'chat',
    });
    const items = readFileSync(path.join(bundle, 'items.jsonl'), 'utf8').trim().split('\n');
    expect(items).toHaveLength(10);
    expect(JSON.parse(items[0]!)).toMatchObject({
      item: 0,
      inputs: { question: 'Is the sky blue?' },
    });
    for (const stem of ['scores', 'score-cost']) {
      const png = readFileSync(path.join(bundle, `plots/${stem}.png`));
      expect(png.subarray(0, 8)).toEqual(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]));
      expect(png.length).toBeGreaterThan(1000);
    }
    const csv = readFileSync(path.join(bundle, 'tables/table.csv'), 'utf8');
    const [head, first, second] = csv.split('\r\n');
    expect(head).toBe(
      'variant,n,failed,score,95% CI,vs first,p (paired),cost (USD),USD per solved,tokens,p50 (s),p95 (s)',
    );
    // The first variant is the baseline; the second carries its paired test against it.
    expect(first).toMatch(/,baseline,–,/);
    expect(second).toMatch(/,[+−±]\d\.\d{3},\d\.\d{3} \((McNemar|paired bootstrap)/);
    expect(readFileSync(path.join(bundle, 'tables/table.tex'), 'utf8')).toContain('95\\% CI');
  });

  it('writes no key in any file', () => {
    const files = filesIn(bundle);
    expect(files.length).toBeGreaterThan(15);
    for (const file of files)
      expect(readFileSync(path.join(bundle, file), 'latin1'), file).not.toContain(KEY);
    // The row that quoted it is there, with the key redacted.
    expect(readFileSync(path.join(bundle, 'items.jsonl'), 'utf8')).toContain('[redacted]');
  });

  it('opens in another store with the same table, byte for byte, and its runs', async () => {
    const other = path.join(dir, 'other.db');
    const imported = await societyHere(['eval-import', bundle, '--db', other]);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain('runs: 10 imported');
    const here = await societyHere(['eval-show', evalId, '--db', db]);
    const there = await societyHere(['eval-show', evalId, '--db', other]);
    expect(there.code).toBe(0);
    expect(here.stdout).toMatch(/^eval [0-9a-f]+ · one question over .*data\.jsonl · 5 items/);
    expect(there.stdout).toBe(here.stdout);
    const withItems = await societyHere(['eval-show', evalId, '--items', '--db', other]);
    expect(withItems.stdout).toBe(
      (await societyHere(['eval-show', evalId, '--items', '--db', db])).stdout,
    );
    expect((await societyHere(['evals', '--db', other])).stdout).toContain(evalId);
    // The debugger's view of an item's run works there too.
    const runId = readdirSync(path.join(bundle, 'runs'))[0]!.split('.')[0]!;
    const shown = await societyHere(['show', runId, '--db', other]);
    expect(shown.code).toBe(0);
  });

  it('refuses a bundle with a changed file, naming it, and writes nothing', async () => {
    const tampered = path.join(dir, 'tampered');
    cpSync(bundle, tampered, { recursive: true });
    const file = path.join(tampered, 'items.jsonl');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"score":1', '"score":0'));
    const target = path.join(dir, 'tampered.db');
    const result = await societyHere(['eval-import', tampered, '--db', target]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      "society: items.jsonl has changed since the bundle was written (its sha256 is not the manifest's): not imported",
    );
    expect((await societyHere(['evals', '--db', target])).stdout).toMatch(/^no evals in /);
  });

  it('re-scores the stored predictions with another scorer, calling no model', async () => {
    const target = path.join(dir, 'rescored.db');
    const before = stub.count();
    const result = await societyHere(['eval-import', bundle, '--rescore', 'f1', '--db', target]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(stub.count()).toBe(before);
    const id = /eval ([0-9a-f]+): the predictions re-scored with f1, no model called/.exec(
      result.stdout,
    )?.[1];
    expect(id).toBeDefined();
    const shown = await societyHere(['eval-show', id!, '--json', '--db', target]);
    const summary = JSON.parse(shown.stdout);
    expect(summary.scorer).toBe('f1');
    // Token F1 of an echo against a one-word answer lies strictly between 0 and 1.
    const store = openRunStore(target);
    try {
      const scores = store.evalItems(id!).map((i) => i.score!);
      expect(scores).toHaveLength(10);
      expect(scores.some((s) => s > 0 && s < 1)).toBe(true);
    } finally {
      store.close();
    }
    const model = await societyHere([
      'eval-import',
      bundle,
      '--rescore',
      'bertscore',
      '--db',
      target,
    ]);
    expect(model.code).toBe(2);
    expect(model.stderr).toMatch(/^society: --rescore bertscore: re-scoring calls no model/);
  });

  it("prints and exports the layout the eval's record names, and prints it again after import", async () => {
    registerTablePresenter(
      'test-layout',
      async () => (summary, items, context) =>
        `${(context as { title: string }).title}: ${items.length} items over ${summary.variants.length} variants`,
    );
    const store = openRunStore(db);
    const laidOut = 'feedfacefeedface';
    try {
      const record = store.getEval(evalId)!;
      store.openEval({
        id: laidOut,
        name: record.name,
        config: { ...record.config, table: { kind: 'test-layout', context: { title: 'Table 9' } } },
        items: record.items,
        simulated: false,
      });
      for (const { updatedAt: _u, ...item } of store.evalItems(evalId))
        store.putEvalItem({ ...item, evalId: laidOut });
      store.setEvalStatus(laidOut, 'finished');
    } finally {
      store.close();
    }
    const here = await societyHere(['eval-show', laidOut, '--db', db]);
    expect(here.stdout).toMatch(/^Table 9: 10 items over 2 variants\n\neval feedfacefeedface/);
    const out = path.join(dir, 'laid-out');
    expect((await societyHere(['eval-export', laidOut, out, '--db', db])).code).toBe(0);
    expect(readFileSync(path.join(out, 'tables/paper-layout.txt'), 'utf8')).toBe(
      'Table 9: 10 items over 2 variants\n',
    );
    expect(readFileSync(path.join(out, 'tables/table.txt'), 'utf8')).toBe(here.stdout);
    const other = path.join(dir, 'laid-out.db');
    expect((await societyHere(['eval-import', out, '--db', other])).code).toBe(0);
    expect((await societyHere(['eval-show', laidOut, '--db', other])).stdout).toBe(here.stdout);
  });

  it('refuses to write a bundle holding a key-shaped string no variable holds', async () => {
    const files = path.join(dir, 'pasted');
    mkdirSync(files);
    const doc = path.join(files, 'qa.society.json');
    const data = path.join(files, 'data.jsonl');
    writeFileSync(doc, JSON.stringify(QA_DOCUMENT));
    writeFileSync(
      data,
      `${JSON.stringify({ question: 'Is sk-proj-Ab12Cd34Ef56Gh78Ij90Kl a key?', answer: 'yes' })}\n`,
    );
    const pastedDb = path.join(files, 'runs.db');
    const ran = await societyHere([
      ...['eval', doc, '--data', data, '--map', 'question=question', '--expect', 'answer'],
      ...['--simulate', '--json', '-q', '--db', pastedDb],
    ]);
    expect(ran.code, ran.stderr).toBe(0);
    const out = path.join(files, 'bundle');
    const result = await societyHere([
      'eval-export',
      JSON.parse(ran.stdout).evalId,
      out,
      '--db',
      pastedDb,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^society: not exported: items\.jsonl: \S+ holds what looks like a key\. Keys belong in the environment/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('refuses a folder that is not empty', async () => {
    const result = await societyHere(['eval-export', evalId, bundle, '--db', db]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      `society: ${bundle} is not empty; give a new or empty folder`,
    );
  });
});

describe('bundle tables', () => {
  it("escapes LaTeX's special characters as text", () => {
    expect(escapeLatex('50% of $x_1 & {a} #2 ~ ^ \\ end')).toBe(
      '50\\% of \\$x\\_1 \\& \\{a\\} \\#2 \\textasciitilde{} \\textasciicircum{} \\textbackslash{} end',
    );
    const tex = toLatex(
      [
        ['variant', 'score'],
        ['a_b & c', '0.5'],
      ],
      'R&D',
    );
    expect(tex).toContain('a\\_b \\& c & 0.5 \\\\');
    expect(tex).toContain('\\caption{R\\&D}');
  });

  it('quotes CSV fields with commas and quotes', () => {
    expect(
      toCsv([
        ['name', 'ci'],
        ['say "hi"', '[0.1, 0.2]'],
      ]),
    ).toBe('name,ci\r\n"say ""hi""","[0.1, 0.2]"\r\n');
  });
});
