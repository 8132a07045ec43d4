/**
 * Outputs you can keep: `society run --out DIR` writes each output to a file, and `society
 * export` carries a run's expert calls and every file they made, so `replay --out` gives the
 * same picture back with no key.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeOutputFiles } from '../app/cli/output-files.ts';
import { BlobStore } from '../app/runtime/blobs.ts';
import { societyHere } from './support/cli.ts';

const RESTORATION = 'templates/openagi-image-restoration.society.json';
const CASSETTE = 'templates/openagi-image-restoration.cassette.json';
const IMAGE = 'templates/openagi.example.png';
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('run --out and export of a run with expert calls', () => {
  const dir = mkdtempSync(join(tmpdir(), 'society-out-'));
  const db = join(dir, 'runs.db');

  it('writes the restored picture as a PNG, exports its 4 expert calls with their files, and replays it', async () => {
    const out = join(dir, 'out');
    const run = await societyHere([
      'run',
      RESTORATION,
      '--replay',
      CASSETTE,
      '--input',
      `image=@${IMAGE}`,
      '--db',
      db,
      '-q',
      '--json',
      '--out',
      out,
    ]);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as {
      runId: string;
      outputs: { answer: { $image: string; mime: string } };
      usage: { expertCalls: number };
    };
    expect(result.usage.expertCalls).toBe(4);
    expect(readdirSync(out)).toEqual(['answer.png']);
    const png = readFileSync(join(out, 'answer.png'));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(sha256(png)).toBe(result.outputs.answer.$image);
    expect(run.stderr).toContain(`wrote ${join(out, 'answer.png')} (image/png, `);

    const file = join(dir, 'run.json');
    const exported = await societyHere(['export', result.runId, '-o', file, '--db', db]);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain('4 recorded calls (0 model, 4 expert)');
    const data = JSON.parse(readFileSync(file, 'utf8')) as {
      blobs: Record<string, { mime: string; base64: string }>;
    };
    // The input picture, the restored one and what the steps between made, each intact.
    expect(Object.keys(data.blobs)).toContain(result.outputs.answer.$image);
    expect(Object.keys(data.blobs)).toContain(sha256(readFileSync(IMAGE)));
    expect(Object.keys(data.blobs).length).toBeGreaterThan(2);
    for (const [hash, blob] of Object.entries(data.blobs))
      expect(sha256(Buffer.from(blob.base64, 'base64'))).toBe(hash);

    const again = join(dir, 'again');
    const replayed = await societyHere([
      'replay',
      file,
      '--db',
      join(dir, 'other.db'),
      '-q',
      '--out',
      again,
    ]);
    expect(replayed.code).toBe(0);
    expect(readFileSync(join(again, 'answer.png'))).toEqual(png);
  });

  it('names a file by output and type: text, JSON, audio, and one file per picture of a list', () => {
    const blobs = new BlobStore();
    const picture = blobs.putImage(new Uint8Array([0x89, 0x50, 0x4e, 0x47]), 'image/png');
    const other = blobs.putImage(new Uint8Array([0xff, 0xd8, 0xff]), 'image/jpeg');
    const speech = blobs.put(new Uint8Array([1, 2, 3]), 'audio/wav');
    const out = join(dir, 'kinds');
    const { written, missing } = writeOutputFiles(
      out,
      {
        answer: 'It is a square.',
        tally: { winner: 'b', counts: { b: 2 } },
        score: 0.75,
        speech,
        'styles/all': [picture, other],
        lost: { $image: '0'.repeat(64), mime: 'image/png' },
      },
      blobs,
    );
    expect(readdirSync(out).sort()).toEqual([
      'answer.txt',
      'score.json',
      'speech.wav',
      'styles_all-1.png',
      'styles_all-2.jpg',
      'tally.json',
    ]);
    expect(readFileSync(join(out, 'answer.txt'), 'utf8')).toBe('It is a square.');
    expect(JSON.parse(readFileSync(join(out, 'tally.json'), 'utf8'))).toEqual({
      winner: 'b',
      counts: { b: 2 },
    });
    expect(written.map((w) => w.output)).toContain('styles/all[1]');
    expect(missing).toEqual(['lost']);
  });

  it("names a list of files on the terminal in one line: the 3D society's rendered views", async () => {
    const run = await societyHere([
      'run',
      'templates/nlsom-3d.society.json',
      '--replay',
      'templates/nlsom-3d.cassette.json',
      '--db',
      db,
      '-q',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^views: 3 files: image\/png [0-9a-f]{12}…, image\/png [0-9a-f]{12}…, image\/png [0-9a-f]{12}… \(--out DIR writes them to files\)$/m,
    );
    expect(run.stdout).not.toContain('"$image"');
  });

  it('refuses an --out it cannot make before the run starts (exit 2, nothing recorded)', async () => {
    const blocked = join(dir, 'run.json', 'inside'); // under a file
    const fresh = join(dir, 'untouched.db');
    const result = await societyHere([
      'run',
      RESTORATION,
      '--replay',
      CASSETTE,
      '--input',
      `image=@${IMAGE}`,
      '--db',
      fresh,
      '--out',
      blocked,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^society: --out: cannot make the folder .*inside \(E\w+\)\n$/);
  });
});
