/**
 * The preflight before the first call: a live run whose keys are not all set is refused before it
 * is recorded or anything is sent (exit 2, every missing key named at once), and `--estimate`
 * lists the providers and keys a live run needs. Against a local OpenAI-compatible server that
 * counts what it receives.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openRunStore } from '../app/store/index.ts';
import { societyHere } from './support/cli.ts';
import { type StubOpenAI, startStubOpenAI } from './support/stub-openai.ts';

const ARTIST_CRITIC = 'templates/nlsom-artist-critic.society.json';
const KEY = 'sk-preflight-test-0123456789abcdef';
const VARS = ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'HF_TOKEN', 'HUGGING_FACE_HUB_TOKEN'] as const;

let stub: StubOpenAI;
let dir: string;
let db: string;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  stub = await startStubOpenAI();
  dir = mkdtempSync(join(tmpdir(), 'society-preflight-'));
  db = join(dir, 'runs.db');
  for (const name of VARS) saved[name] = process.env[name];
});

afterEach(() => {
  for (const name of VARS) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

afterAll(async () => {
  await stub.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Sets the process's keys for one command: a value, or unset. */
function keys(values: Partial<Record<(typeof VARS)[number], string>>): void {
  for (const name of VARS) {
    const value = values[name];
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}

function runsIn(file: string): number {
  const store = openRunStore(file);
  try {
    return store.listRuns().length;
  } finally {
    store.close();
  }
}

describe('society run refuses a live run whose keys are not all set', () => {
  it('names HF_TOKEN for the painter before a single request, and records no run', async () => {
    keys({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: stub.url });
    const before = stub.count();
    const result = await societyHere(['run', ARTIST_CRITIC, '--db', db, '-q']);
    expect(result.code).toBe(2);
    const lines = result.stderr.split('\n').filter((l) => l.startsWith('society: '));
    expect(lines[0]).toBe(
      'society: HF_TOKEN is not set: provider "hf-inference", for node painter',
    );
    expect(lines.at(-1)).toMatch(/^society: nothing was sent\. Set it \(export HF_TOKEN=…/);
    expect(result.stderr).not.toContain('OPENAI_API_KEY is not set');
    expect(result.stderr).not.toContain(KEY);
    expect(stub.count()).toBe(before);
    expect(runsIn(db)).toBe(0);
  });

  it('lists every missing key at once, each with the nodes that need it', async () => {
    keys({ OPENAI_BASE_URL: stub.url });
    const result = await societyHere(['run', ARTIST_CRITIC, '--db', db, '-q']);
    expect(result.code).toBe(2);
    const missing = result.stderr
      .split('\n')
      .filter((l) => / is not set: /.test(l))
      .map((l) => l.split(' ')[1]);
    expect(missing).toEqual(['OPENAI_API_KEY', 'HF_TOKEN']);
    expect(result.stderr).toMatch(
      /OPENAI_API_KEY is not set: provider "openai" with model profiles artist, critic, collector, for nodes artists\/mission, artists\/questioner, artists\/answerer, artists\/leader and 2 more$/m,
    );
    expect(stub.count()).toBe(0);
  });

  it('needs every key with --replay-then-live (the cassette may lack a call), none to estimate', async () => {
    keys({});
    const estimateOnly = await societyHere(['run', ARTIST_CRITIC, '--estimate', '--db', db]);
    expect(estimateOnly.code).toBe(0);
    const replayThenLive = await societyHere([
      'run',
      ARTIST_CRITIC,
      '--replay-then-live',
      'templates/nlsom-artist-critic.cassette.json',
      '--db',
      db,
      '-q',
    ]);
    expect(replayThenLive.code).toBe(2);
    expect(replayThenLive.stderr).toContain('society: HF_TOKEN is not set');
  });
});

describe('society run --estimate', () => {
  it('lists the providers and keys a live run needs, set or not, and labels its columns', async () => {
    keys({ OPENAI_API_KEY: KEY });
    const result = await societyHere(['run', ARTIST_CRITIC, '--estimate', '--db', db]);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain(KEY);
    const lines = result.stdout.split('\n');
    const head = lines.findIndex((l) => /^node\s+model\s/.test(l));
    // A group line names each block of figures: likely first, then the worst case.
    expect(lines[head - 1]).toMatch(/^\s+likely\s+worst case$/);
    expect(lines[head]).toMatch(
      /^node\s+model\s+calls\s+prompt\s+completion\s+cost\s+calls\s+prompt\s+completion\s+cost$/,
    );
    const likelyAt = lines[head - 1]!.indexOf('likely');
    const worstAt = lines[head - 1]!.indexOf('worst case');
    expect(lines[head]!.indexOf('calls')).toBeGreaterThanOrEqual(likelyAt - 2);
    expect(lines[head]!.lastIndexOf('calls')).toBeGreaterThanOrEqual(worstAt - 2);
    const at = lines.indexOf('providers and keys a live run needs:');
    expect(at).toBeGreaterThan(head);
    expect(lines[at + 2]).toMatch(
      /^\s+openai\s+OPENAI_API_KEY\s+set\s+artists\/mission, artists\/questioner/,
    );
    expect(lines[at + 3]).toMatch(/^\s+hf-inference\s+HF_TOKEN\s+not set\s+painter$/);
  });

  it('--json carries the providers with set or not, never a key', async () => {
    keys({ OPENAI_API_KEY: KEY });
    const result = await societyHere(['run', ARTIST_CRITIC, '--estimate', '--json', '--db', db]);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain(KEY);
    const { providers } = JSON.parse(result.stdout);
    expect(providers).toEqual([
      expect.objectContaining({ provider: 'openai', keyEnv: 'OPENAI_API_KEY', set: true }),
      {
        provider: 'hf-inference',
        kind: 'huggingface',
        keyEnv: 'HF_TOKEN',
        set: false,
        profiles: [],
        nodes: ['painter'],
      },
    ]);
  });
});
