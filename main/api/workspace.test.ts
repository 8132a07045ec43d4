import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from './errors.ts';
import { checkDocumentName, listDocuments, readDocument, writeDocument } from './workspace.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('workspace document names', () => {
  it('accepts plain NAME.society.json file names', () => {
    for (const name of [
      'a.society.json',
      'My society (v2).society.json',
      'vqa-ünïcode.society.json',
    ]) {
      expect(checkDocumentName(name)).toBe(name);
    }
  });

  it('refuses paths, parent references, drives, other extensions and hidden files', () => {
    for (const name of [
      '../x.society.json',
      '..\\x.society.json',
      'a/b.society.json',
      'a\\b.society.json',
      '/etc/x.society.json',
      'C:x.society.json',
      'x..society.json',
      'x.society.json\u0000.png',
      '.hidden.society.json',
      ' x.society.json',
      'x.json',
      '.society.json',
      `${'x'.repeat(200)}.society.json`,
    ]) {
      expect(() => checkDocumentName(name), JSON.stringify(name)).toThrow(ApiError);
    }
  });
});

describe('workspace files', () => {
  it('lists nothing for a folder that does not exist, then creates it on the first save', async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'society-ws-')), 'new folder');
    dirs.push(path.dirname(dir));
    expect(await listDocuments(dir)).toEqual([]);
    await writeDocument(dir, 'one.society.json', '{"a":1}');
    await writeDocument(dir, 'one.society.json', '{"a":2}');
    expect(await readDocument(dir, 'one.society.json')).toBe('{"a":2}');
    expect((await listDocuments(dir)).map((f) => f.name)).toEqual(['one.society.json']);
    // No temporary file is left behind.
    expect(readdirSync(dir)).toEqual(['one.society.json']);
  });
});
