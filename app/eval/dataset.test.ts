import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDataset } from './dataset.ts';

const dir = mkdtempSync(join(tmpdir(), 'society-dataset-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('datasets', () => {
  it('reads JSON Lines, skipping blank lines', () => {
    const data = readDataset(file('a.jsonl', '{"q":"one","n":1}\n\n{"q":"two","n":2}\n'));
    expect(data.format).toBe('jsonl');
    expect(data.rows).toEqual([
      { q: 'one', n: 1 },
      { q: 'two', n: 2 },
    ]);
    expect(data.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reads CSV with a header, quoted commas included', () => {
    const data = readDataset(
      file('b.csv', 'question,answer\n"Paris, or Lyon?",Paris\nWhy?,because\n'),
    );
    expect(data.rows).toEqual([
      { question: 'Paris, or Lyon?', answer: 'Paris' },
      { question: 'Why?', answer: 'because' },
    ]);
  });

  it('reads the _!_ multiple-choice format without evaluating its lists; the question carries its lettered options', () => {
    const data = readDataset(
      file(
        'c.txt',
        "../img/1.jpg_!_What is in his mouth?_!_['toothpick', 'food', \"it's gum\", 'cigarette']_!_3\n",
      ),
    );
    expect(data.format).toBe('mc-text');
    expect(data.rows[0]).toEqual({
      image: '../img/1.jpg',
      question: "What is in his mouth? (a) toothpick (b) food (c) it's gum (d) cigarette",
      stem: 'What is in his mouth?',
      options: "(a) toothpick (b) food (c) it's gum (d) cigarette",
      choices: ['toothpick', 'food', "it's gum", 'cigarette'],
      answer: 3,
      answerLetter: 'D',
      answerText: 'cigarette',
    });
  });

  it('names the line at fault', () => {
    expect(() => readDataset(file('d.jsonl', '{"a":1}\n{oops\n'))).toThrow(/d\.jsonl:2: not JSON/);
    expect(() => readDataset(file('e.jsonl', '[1,2]\n'))).toThrow(
      /e\.jsonl:1: each line must be a JSON object/,
    );
    expect(() => readDataset(file('f.txt', 'x_!_q_!_[1, 2]_!_0\n'))).toThrow(
      /f\.txt:1: cannot read the options list/,
    );
    expect(() => readDataset(file('g.txt', "x_!_q_!_['a', 'b']_!_5\n"))).toThrow(
      /not an index into 2 options/,
    );
    expect(() => readDataset(join(dir, 'missing.jsonl'))).toThrow(
      /cannot read .*missing\.jsonl \(ENOENT\)/,
    );
    expect(() => readDataset(file('h.xml', '<a/>'))).toThrow(/give a \.jsonl, \.csv/);
  });

  const aokvqa = join(import.meta.dirname, '../../../shared/external-data/nlsom/aokvqa-val.txt');
  it.skipIf(!existsSync(aokvqa))(
    'reads all 1,145 A-OKVQA questions NLSOM evaluates on (skipped without ../shared)',
    () => {
      const data = readDataset(aokvqa);
      expect(data.rows).toHaveLength(1145);
      expect(data.rows[0]).toMatchObject({
        stem: "What is in the motorcyclist's mouth?",
        question:
          "What is in the motorcyclist's mouth? (a) toothpick (b) food (c) popsicle stick (d) cigarette",
        choices: ['toothpick', 'food', 'popsicle stick', 'cigarette'],
        answerLetter: 'D',
      });
      expect(data.rows.every((r) => (r.choices as string[]).length === 4)).toBe(true);
    },
  );
  if (!existsSync(aokvqa))
    console.log('skipping the A-OKVQA file test: ../shared is not beside the project');
});
