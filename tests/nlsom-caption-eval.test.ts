/**
 * `society nlsom caption-eval`: NLSOM's captioning figure (Sec. 2.2) over TARA's records. TARA's
 * JSONL (image_url, abstract, lead_paragraph) and a folder of photos named as TARA's eval.py
 * names them are read; a malformed record is refused naming the file, the line and the field;
 * the table prints the similarity ×100 beside the paper's 20.6 at 10 rounds with the difference,
 * and `society eval-show` prints it again byte for byte, in another store after a bundle too.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTara, taraImageNames } from '../app/cli/commands/nlsom/tara-data.ts';
import { societyHere } from './support/cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'society-caption-eval-'));
/** A 1×1 PNG: the simulated members need a picture, not a real one. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
/** Three records as TARA ships them: one JSON object a line. */
const RECORDS = [
  {
    _id: 'nyt://article/krakow',
    image_url: 'https://static01.nyt.com/images/2010/04/18/world/krakow.jpg',
    abstract: 'Some 150,000 Poles bade farewell to their president.',
    lead_paragraph:
      'KRAKOW, Poland — About 150,000 mourners bade farewell to President Lech Kaczynski and his wife, Maria, on Sunday.',
    gold_location_suggest: 'Krakow, Poland',
  },
  {
    _id: 'nyt://article/tokyo',
    image_url: 'https://static01.nyt.com/images/2011/03/14/world/tokyo',
    abstract: 'A second explosion at a troubled nuclear plant.',
    lead_paragraph:
      'TOKYO — A second explosion rocked a troubled nuclear power plant Monday, Japanese nuclear officials announced.',
  },
  {
    _id: 'nyt://article/rahway',
    image_url: 'https://static01.nyt.com/images/2010/12/28/nyregion/rahway.jpg',
    abstract: 'In Rahway, N.J., traffic was moving through downtown.',
    lead_paragraph: 'RAHWAY, N.J. — When John M. Rodger, the Rahway police chief, looked outside…',
  },
];

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

const jsonl = (rows: unknown[]) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;
const data = write('gold_test.jsonl', jsonl(RECORDS));
const images = path.join(dir, 'images');
mkdirSync(images);
// The first two photos downloaded under TARA's names; the third is missing.
for (const record of RECORDS.slice(0, 2))
  writeFileSync(path.join(images, taraImageNames(record.image_url)[0]!), PNG);

describe("TARA's records", () => {
  it("reads TARA's JSONL and names photos as its eval.py does", () => {
    const items = readTara(data);
    expect(items.map((i) => i.entry)).toEqual(['line 1', 'line 2', 'line 3']);
    expect(items[0]).toMatchObject({
      id: 'nyt://article/krakow',
      paragraph: RECORDS[0]!.lead_paragraph,
      abstract: RECORDS[0]!.abstract,
    });
    expect(taraImageNames(RECORDS[0]!.image_url)[0]).toBe('images-2010-04-18-world-krakow.jpg');
    // TARA adds .jpg to a URL without it.
    expect(taraImageNames(RECORDS[1]!.image_url)[0]).toBe('images-2011-03-14-world-tokyo.jpg');
    // The same records as a JSON array read the same, entries named by index.
    const array = write('records.json', JSON.stringify(RECORDS));
    expect(readTara(array).map((i) => [i.entry, i.imageUrl])).toEqual(
      items.map((i, n) => [`[${n}]`, i.imageUrl]),
    );
  });

  it('refuses a malformed record in one line naming the file, the line and the field (exit 2)', async () => {
    const { lead_paragraph: _, ...noParagraph } = RECORDS[1]!;
    const bad = write('bad.jsonl', jsonl([RECORDS[0], noParagraph]));
    const result = await societyHere(['nlsom', 'caption-eval', bad, '--simulate', '-q']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      `society: ${bad}: line 2: "lead_paragraph" must be a text (the article's first paragraph), got nothing`,
    );
    const noUrl = write('no-url.jsonl', jsonl([{ ...RECORDS[0], image_url: 7 }]));
    const second = await societyHere(['nlsom', 'caption-eval', noUrl, '--simulate', '-q']);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`${noUrl}: line 1: "image_url" must be a text`);
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('society nlsom caption-eval', () => {
  it("prints ours ×100 beside the paper's 20.6 at 10 rounds with the difference, and eval-show prints it again", async () => {
    const db = path.join(dir, 'ten.db');
    const args = ['nlsom', 'caption-eval', data, '--images', images, '--set', 'rounds=10'];
    const ran = await societyHere([...args, '--simulate', '-q', '--db', db]);
    expect(ran.code, ran.stderr).toBe(0);
    const out = ran.stdout;
    expect(out).toMatch(
      /^TARA news-photo captioning, similarity ×100 \(NLSOM Sec\. 2\.2\) · simulated/,
    );
    expect(out).toContain(`photos: 3 from ${data}; 1 not found under ${images}`);
    const row = out.match(
      /^NLSOM \(ours\)\s+10\s+2\s+1\s+20\.6\s+(\d+\.\d) \[(\d+\.\d), (\d+\.\d)\]\s+([+−])(\d+\.\d)$/m,
    );
    expect(row, out).not.toBeNull();
    const [ours, low, high] = row!.slice(1, 4).map(Number) as [number, number, number];
    expect(low).toBeLessThanOrEqual(ours);
    expect(high).toBeGreaterThanOrEqual(ours);
    // The difference is ours − paper on the printed scale (rounding may move the last digit).
    const signed = (row![4] === '−' ? -1 : 1) * Number(row![5]);
    expect(Math.abs(signed - (ours - 20.6))).toBeLessThanOrEqual(0.11);
    expect(out).toMatch(/^BLIP-2\s+–\s+–\s+–\s+11\.3\s+not run \(baseline\)\s+–$/m);
    expect(out).toMatch(/^Best-of-N\s+–\s+–\s+–\s+18\.2\s+not run/m);
    expect(out).toContain("the paper's figures: NLSOM Sec. 2.2 text (no table): 310 TARA photos");

    const list = await societyHere(['evals', '--json', '--db', db]);
    const evalId = JSON.parse(list.stdout)[0].evalId as string;
    expect((await societyHere(['eval-show', evalId, '--db', db])).stdout).toBe(out);
    // A bundle opened in another store prints it again too.
    const bundle = path.join(dir, 'bundle');
    expect((await societyHere(['eval-export', evalId, bundle, '--db', db])).code).toBe(0);
    const other = path.join(dir, 'other.db');
    expect((await societyHere(['eval-import', bundle, '--db', other])).code).toBe(0);
    expect((await societyHere(['eval-show', evalId, '--db', other])).stdout).toBe(out);

    // --json carries the same cell as numbers: ours − paper on the 0–1 scale.
    const json = JSON.parse(
      (await societyHere([...args, '--simulate', '--json', '--db', db])).stdout,
    );
    const cell = json.table[0].cell;
    expect(cell.paper).toBe(0.206);
    expect(cell.diff).toBeCloseTo(cell.ours.mean - 0.206, 12);
    expect(json.images).toMatchObject({ found: 2, of: 3 });
  });

  it('at other rounds the NLSOM cell reads "not in paper"', async () => {
    const db = path.join(dir, 'two.db');
    const ran = await societyHere([
      ...['nlsom', 'caption-eval', data, '--images', images, '--limit', '2'],
      ...['--set', 'rounds=1', '--simulate', '-q', '--db', db],
    ]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^NLSOM \(ours\)\s+1\s+2\s+0\s+not in paper\s+\d+\.\d \[.*\]\s+–$/m);
    expect(ran.stdout).toContain("the paper's NLSOM figure is for 10 rounds; at 1 it has none");
  });
});
