/**
 * A model's answer is printed, never obeyed: an answer carrying OSC 52 (write the clipboard),
 * an OSC 8 link and CSI cursor controls, served by a local OpenAI stub and printed by `society
 * run`, `society show` and `society replay`, reaches stdout and stderr without one ESC or BEL.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedText, terminalText } from '../app/terminal/terminal-text.ts';
import { societyHere } from './support/cli.ts';
import { type StubOpenAI, startStubOpenAI } from './support/stub-openai.ts';

const HOSTILE =
  'Hello\u001b]52;c;ZXZpbA==\u0007 see \u001b]8;;https://evil.example/\u001b\\the docs\u001b]8;;\u001b\\ \u001b[2J\u001b[1;1H\u001b[31mred\u001b[0m \u009b2J\u009d0;title\u009c done\r\n';

const society = {
  version: 1,
  name: 'echo\u001b]0;pwned\u0007',
  models: { m: { provider: 'openai', model: 'gpt-4o-mini' } },
  nodes: [
    { id: 'q', type: 'input', position: { x: 0, y: 0 }, data: { name: 'q', example: 'hi' } },
    { id: 'a', type: 'agent', position: { x: 200, y: 0 }, data: { model: 'm', prompt: '{{ q }}' } },
    { id: 'out', type: 'output', position: { x: 400, y: 0 }, data: { name: 'answer' } },
  ],
  edges: [
    { id: 'e1', source: 'q', sourceHandle: 'value', target: 'a', targetHandle: 'q' },
    { id: 'e2', source: 'a', sourceHandle: 'text', target: 'out', targetHandle: 'value' },
  ],
};

let dir: string;
let db: string;
let doc: string;
let stub: StubOpenAI;
const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'society-terminal-'));
  db = join(dir, 'runs.db');
  doc = join(dir, 'echo.society.json');
  writeFileSync(doc, JSON.stringify(society));
  stub = await startStubOpenAI({ respond: () => ({ text: HOSTILE }) });
  process.env.OPENAI_API_KEY = 'sk-terminal-text-test-0123456789';
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

/** No byte a terminal would obey: ESC, BEL, CSI/OSC/DCS/ST as C1, or another C0 but \n and \t. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const OBEYED = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
/** What no terminal may receive at all: OSC, BEL and the C1 controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const DANGEROUS = /\u001b\]|\u0007|[\u0080-\u009f]/;

describe('model text on the terminal', () => {
  it('run, show and replay print the answer without a control sequence', async () => {
    const run = await societyHere(['run', doc, '--db', db]);
    expect(run.code).toBe(0);
    expect(stub.count()).toBe(1);
    // The words stay; what the terminal would have obeyed is gone.
    expect(run.stdout).toBe('answer: Hello see the docs red  done\n');
    expect(run.stderr).not.toMatch(OBEYED);
    const runId = /run ([0-9a-f]{8,})/.exec(run.stderr)![1]!;

    const show = await societyHere(['show', runId, '--db', db]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('Hello see the docs red');
    expect(show.stdout + show.stderr).not.toMatch(OBEYED);

    const file = join(dir, 'echo.run.json');
    expect((await societyHere(['export', runId, '-o', file, '--db', db])).code).toBe(0);
    const replay = await societyHere(['replay', file, '--db', db]);
    expect(replay.code).toBe(0);
    expect(stub.count()).toBe(1);
    expect(replay.stdout).toBe('answer: Hello see the docs red  done\n');
    expect(replay.stdout + replay.stderr).not.toMatch(OBEYED);
    // The exported file keeps the answer as it was, for whoever reads it as data.
    expect(readFileSync(file, 'utf8')).toContain('\\u001b]52;c;ZXZpbA==');
  });

  it('--json escapes ESC as \\u001b, six harmless characters', async () => {
    const run = await societyHere(['run', doc, '--db', db, '--json']);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(OBEYED);
    expect(run.stdout).toContain('\\u001b]52;c;ZXZpbA==\\u0007');
    // Nothing lost: parsed, it is the answer exactly as the model wrote it.
    expect(JSON.parse(run.stdout).outputs.answer).toBe(HOSTILE.trim());
  });

  it('run and show strip even on a terminal, where our own colours would be kept', async () => {
    const tty = process.stdout.isTTY;
    process.stdout.isTTY = true;
    try {
      const run = await societyHere(['run', doc, '--db', db, '-q']);
      expect(run.stdout).toBe('answer: Hello see the docs red  done\n');
      const runId = /run ([0-9a-f]{8,})/.exec(run.stderr)![1]!;
      const show = await societyHere(['show', runId, '--db', db]);
      expect(show.stdout).toContain('Hello see the docs red');
      expect(show.stdout).not.toMatch(OBEYED);
    } finally {
      process.stdout.isTTY = tty;
    }
  });

  it('the stream guard keeps our colours and cursor moves on a terminal, nothing else', () => {
    const ours = '\r\u001b[2K\u001b[36m●\u001b[39m running\u001b[1A\u001b[G';
    expect(guardedText(ours, true)).toBe(ours);
    expect(guardedText(ours, false)).toBe('● running');
    expect(guardedText(HOSTILE, true)).not.toMatch(DANGEROUS);
    expect(terminalText('tab\tline\nend\u001b[0m\u001b')).toBe('tab\tline\nend');
    // An OSC cut off mid-way takes the rest of its chunk with it, as a terminal would.
    expect(terminalText('a\u001b]52;c;ZXZp')).toBe('a');
  });
});

describe('--json and 8-bit controls', () => {
  it('a C1 control in JSON output is written as its escape: the same JSON, harmless', () => {
    const json = JSON.stringify({ text: 'a\u009b2Jb\u009d0;t\u009c' });
    const guarded = guardedText(json, false);
    expect(guarded).not.toMatch(OBEYED);
    expect(JSON.parse(guarded)).toEqual(JSON.parse(json));
  });
});
