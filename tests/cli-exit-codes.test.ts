/**
 * The command line's contract: 0 ok, 1 the run failed, 2 invalid arguments or document — with
 * one readable line, and nothing recorded in the run store for a run that never started.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { societyHere } from './support/cli.ts';

const VQA = 'templates/nlsom-vqa.society.json';
const IMAGE = 'templates/nlsom-vqa.example.png';
const dir = mkdtempSync(join(tmpdir(), 'society-exit-'));
const db = join(dir, 'runs.db');
const given = ['--input', 'question=What is it?', '--input', `image=@${IMAGE}`];

describe('exit codes', () => {
  it('refuses a run missing a required --input with exit 2, naming it, and records nothing', async () => {
    // The template carries an example question; a document without one must be given it.
    const doc = JSON.parse(readFileSync(VQA, 'utf8'));
    for (const node of doc.nodes) delete node.data.example;
    const bare = join(dir, 'no-examples.society.json');
    writeFileSync(bare, JSON.stringify(doc));
    const fresh = join(dir, 'untouched.db');
    const result = await societyHere(['run', bare, '--input', `image=@${IMAGE}`, '--db', fresh]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('society: missing input: question (pass --input question=...)\n');
    expect(result.stdout).toBe('');
    // The store was never opened, so no failed run is listed.
    expect(existsSync(fresh)).toBe(false);
  });

  it.each([
    [['run', 'nowhere.society.json'], 'cannot read nowhere.society.json'],
    [['run', VQA, '--model', 'organizer'], '--model expects NAME=VALUE'],
    [['run', VQA, '--model', 'organizer=gpt-4o'], '--model expects PROFILE=PROVIDER:MODEL'],
    [['run', VQA, '--model', 'nobody=openai:gpt-4o'], 'no model profile "nobody"'],
    [['run', VQA, '--provider', 'lab=not a url'], 'is not a URL'],
    [['run', VQA, '--input', 'colour=red'], 'unknown input "colour"'],
    [['run', VQA, '--input', 'image=@nowhere.png'], 'cannot read "nowhere.png"'],
    [['run', VQA, '--input', 'image=photo'], 'input "image" is an image'],
    [['run', VQA, ...given, '--replay', 'nowhere.cassette.json'], 'cannot use cassette'],
    [['run', VQA, ...given, '--replay', VQA, '--record', 'x.json'], 'use only one of'],
    [['run', VQA, ...given, '--break', 'sometime'], 'unknown breakpoint'],
    [['show', 'feedface'], 'no run "feedface"'],
    [['fork', 'feedface', '--edit', 'a=b'], 'no run "feedface"'],
    [['resume', 'feedface'], 'no run "feedface"'],
    [['export', 'feedface'], 'no run "feedface"'],
    [['replay', 'nowhere.run.json'], 'cannot read nowhere.run.json'],
    [['frobnicate'], "unknown command 'frobnicate'"],
    [['cuisineworld', 'sweep', '--controller', 'model', '--model', 'gpt-4o'], 'got "gpt-4o"'],
    [['nodes', 'oracle'], 'no node type "oracle"'],
  ])('society %j exits 2: %s', async (args, message) => {
    // Commands that keep runs get a throwaway store; the others take no --db.
    const keeps = !['cuisineworld', 'nodes', 'frobnicate'].includes(args[0]!);
    const result = await societyHere(keeps ? [...args, '--db', db] : args);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toContain(message);
    expect(result.stderr).not.toMatch(/\n\s+at /); // never a stack trace
  });
});
