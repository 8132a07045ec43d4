/**
 * Images are sized from their header and refused past the run's pixel budget before anything
 * decodes them: a 32 KB PNG claiming 16383×16383 pixels (a gigabyte decoded) as a document's
 * example, as `--input`, or sent back by an expert. The process's peak RSS is measured in a real
 * `society run` child, so a decode anywhere on the way would show.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileGraph } from '../app/compiler/index.ts';
import { BlobStore } from '../app/runtime/blobs.ts';
import { EXAMPLE_IMAGE, readPageInputs } from '../main/api/run-inputs.ts';
import { ROOT, societyHere } from './support/cli.ts';
import { hugePng } from './support/huge-png.ts';
import { type StubHf, startStubHuggingFace } from './support/stub-hf.ts';

const dir = mkdtempSync(join(tmpdir(), 'society-image-budget-'));
const db = join(dir, 'runs.db');
const BIN = fileURLToPath(new URL('../bin/society.js', import.meta.url));
const REFUSED =
  /16383×16383 pixels \(268\.4 megapixels\), past the image budget of 16\.8 megapixels \(settings\.limits\.imagePixels\)/;
const bomb = hugePng();
const bombFile = join(dir, 'bomb.png');
/** Written into the child at exit: its peak resident set, in kilobytes. */
const peakFile = join(dir, 'peak.mjs');

/** The image-restoration template (three local image steps), its example image replaced. */
function restorationWith(example: string): string {
  const doc = JSON.parse(
    readFileSync(join(ROOT, 'templates/openagi-image-restoration.society.json'), 'utf8'),
  );
  for (const node of doc.nodes) if (node.type === 'input') node.data.example = example;
  const file = join(dir, `restoration-${Math.random().toString(36).slice(2)}.society.json`);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

/** `society run …` in a child process; its exit code, stderr and peak RSS in megabytes. */
function runMeasured(
  args: string[],
): Promise<{ code: number | null; stderr: string; peakMb: number }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, SOCIETY_DB: db, NO_COLOR: '1' };
    delete env.OPENAI_API_KEY;
    delete env.HF_TOKEN;
    const child = spawn(process.execPath, ['--import', peakFile, BIN, ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.stdout.resume();
    child.on('error', reject);
    child.on('close', (code) => {
      const peak = /^peak-rss-kb=(\d+)$/m.exec(stderr);
      resolve({
        code,
        stderr: stderr.replace(/^peak-rss-kb=.*\n?/m, ''),
        peakMb: peak ? Number(peak[1]) / 1024 : Number.NaN,
      });
    });
  });
}

beforeAll(() => {
  writeFileSync(bombFile, bomb);
  writeFileSync(
    peakFile,
    "process.on('exit', () => process.stderr.write('peak-rss-kb=' + process.resourceUsage().maxRSS + '\\n'));\n",
  );
});

describe('a PNG claiming 16383×16383 pixels', () => {
  it('is refused as a document example before decoding, the run staying small', async () => {
    const file = restorationWith(`data:image/png;base64,${bomb.toString('base64')}`);
    const result = await runMeasured(['run', file, '--simulate', '-q', '--db', db]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.trim()).toMatch(
      new RegExp(
        `^society: the example of input "image" \\(from the document\\) is ${REFUSED.source}$`,
      ),
    );
    expect(result.peakMb).toBeLessThan(300);
  });

  it('is refused as --input before decoding, the run staying small', async () => {
    const file = restorationWith(
      JSON.parse(
        readFileSync(join(ROOT, 'templates/openagi-image-restoration.society.json'), 'utf8'),
      ).nodes.find((n: { type: string }) => n.type === 'input').data.example,
    );
    const result = await runMeasured([
      'run',
      file,
      '--simulate',
      '-q',
      '--db',
      db,
      '--input',
      `image=@${bombFile}`,
    ]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`input "image" (${bombFile}) is 16383×16383 pixels`);
    expect(result.stderr).toMatch(REFUSED);
    expect(result.peakMb).toBeLessThan(300);
  });
});

describe('the studio', () => {
  it('refuses the bomb picked on the page or as the example, naming it, and stores nothing', async () => {
    const data = `data:image/png;base64,${bomb.toString('base64')}`;
    const compiled = await compileGraph(readFileSync(restorationWith(data), 'utf8'));
    if (!compiled.ok) throw new Error('the document does not compile');
    const blobs = new BlobStore();
    expect(() => readPageInputs({ image: data }, compiled.plan, blobs)).toThrow(
      new RegExp(`^input "image" is ${REFUSED.source}$`),
    );
    expect(() => readPageInputs({ image: EXAMPLE_IMAGE }, compiled.plan, blobs)).toThrow(
      new RegExp(`^the example of input "image" \\(from the document\\) is ${REFUSED.source}$`),
    );
    // A document that raises the budget to its ceiling still cannot take 268 megapixels.
    const raised = JSON.parse(readFileSync(restorationWith(data), 'utf8'));
    raised.settings = { limits: { imagePixels: 1e12 } };
    const loose = await compileGraph(raised);
    if (!loose.ok) throw new Error('the document does not compile');
    expect(() => readPageInputs({ image: data }, loose.plan, blobs)).toThrow(
      /past the image budget of 100\.0 megapixels/,
    );
    expect(blobs.get(createHash('sha256').update(bomb).digest('hex'))).toBeUndefined();
  });
});

describe('an expert that sends back an oversize image', () => {
  let stub: StubHf;
  beforeAll(async () => {
    stub = await startStubHuggingFace({
      respond: () => ({ body: bomb, headers: { 'content-type': 'image/png' } }),
    });
  });
  afterAll(() => stub.close());

  it('fails the run cleanly naming the node, once, and the next step never decodes it', async () => {
    const doc = {
      version: 1,
      name: 'paint then clean',
      nodes: [
        { id: 'prompt', type: 'input', position: { x: 0, y: 0 }, data: { name: 'prompt' } },
        {
          id: 'paint',
          type: 'expert',
          position: { x: 200, y: 0 },
          data: { module: 'text-to-image-generation' },
        },
        {
          id: 'clean',
          type: 'expert',
          position: { x: 400, y: 0 },
          data: { module: 'image-denoising', backend: 'local' },
        },
        { id: 'picture', type: 'output', position: { x: 600, y: 0 }, data: { name: 'picture' } },
      ],
      edges: [
        {
          id: 'a',
          source: 'prompt',
          sourceHandle: 'value',
          target: 'paint',
          targetHandle: 'prompt',
        },
        { id: 'b', source: 'paint', sourceHandle: 'image', target: 'clean', targetHandle: 'image' },
        {
          id: 'c',
          source: 'clean',
          sourceHandle: 'image',
          target: 'picture',
          targetHandle: 'value',
        },
      ],
    };
    const file = join(dir, 'paint.society.json');
    writeFileSync(file, JSON.stringify(doc));
    const before = stub.requests.length;
    const result = await societyHere([
      'run',
      file,
      '--input',
      'prompt=a lighthouse',
      '--provider',
      `hf-inference=${stub.url},kind=huggingface`,
      '--db',
      db,
      '-q',
    ]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/node "paint"/);
    expect(result.stderr).toMatch(/the image it sent back is 16383×16383 pixels/);
    expect(result.stderr).not.toMatch(/\n\s+at /); // one line, no stack
    // Not worth another attempt: the same call would send the same picture.
    expect(stub.requests.length - before).toBe(1);
    expect(result.stderr).not.toMatch(/node "clean"/);
  });
});
