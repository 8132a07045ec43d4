import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from './errors.ts';
import { checkDocumentName, listDocuments, readDocument, writeDocument } from './workspace.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder, removed after the test. */
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'society-ws-'));
  dirs.push(dir);
  return dir;
}

/** The message `checkDocumentName` refuses `name` with. */
function refusal(name: string): string {
  try {
    checkDocumentName(name);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return (error as Error).message;
  }
  throw new Error(`${JSON.stringify(name)} was accepted`);
}

describe('workspace document names', () => {
  it('accepts plain NAME.society.json file names', () => {
    for (const name of [
      'a.society.json',
      'My society (v2).society.json',
      'vqa-ünïcode.society.json',
      'שלום.society.json',
      'مرحبا.society.json',
      'console.society.json',
      'CONFIG.society.json',
      'com10.society.json',
      'lpt0.society.json',
      'a½b.society.json',
      '👩‍💻 notes.society.json',
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

describe('workspace document names that would deceive or not travel', () => {
  it('refuses text-direction controls, naming the character instead of printing it', () => {
    for (const char of [
      '\u202A',
      '\u202B',
      '\u202C',
      '\u202D',
      '\u202E',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
      '\u200E',
      '\u200F',
      '\u061C',
    ]) {
      const message = refusal(`invoice${char}nosj.yteicos.society.json`);
      const code = `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
      expect(message).toContain(`invisible text-direction character ${code}`);
      // The message itself holds no control: it reads the same whatever surrounds it.
      expect(message).not.toContain(char);
    }
  });

  it('refuses Windows device names in any case, with or without more extension', () => {
    for (const stem of [
      'CON',
      'con',
      'Prn',
      'AUX',
      'nul',
      'COM1',
      'com9',
      'LPT1',
      'lpt9',
      'COM¹',
    ]) {
      for (const name of [
        `${stem}.society.json`,
        `${stem}.backup.society.json`,
        `${stem} .society.json`,
      ]) {
        expect(refusal(name), name).toMatch(
          new RegExp(
            `cannot be a file name on Windows, which keeps ${stem.toUpperCase()} for a device`,
          ),
        );
      }
    }
  });

  it('refuses characters drawn like a slash', () => {
    for (const char of ['\u2215', '\u2044', '\u29F8', '\uFF0F', '\uFF3C', '\u2216']) {
      expect(refusal(`reports${char}q3.society.json`)).toContain(
        `holds "${char}" (U+${char.codePointAt(0)!.toString(16).toUpperCase()}), which looks like a path separator`,
      );
    }
  });

  it('refuses control characters, line separators and broken characters', () => {
    for (const [char, code] of [
      ['\u0001', 'U+0001'],
      ['\n', 'U+000A'],
      ['\u007F', 'U+007F'],
      ['\u0085', 'U+0085'],
      ['\u009B', 'U+009B'],
      ['\u2028', 'U+2028'],
    ] as const) {
      const message = refusal(`a${char}b.society.json`);
      expect(message).toContain(`control character ${code}`);
      expect(message).not.toContain(char);
    }
    expect(refusal('a\ud800b.society.json')).toContain('lone surrogate');
  });
});

describe('workspace files and links', () => {
  it('refuses to read or save through a symbolic link, even one already in the folder', async () => {
    const root = tempDir();
    const workspace = path.join(root, 'workspace');
    mkdirSync(workspace);
    const outside = path.join(root, 'outside.society.json');
    writeFileSync(outside, '{"secret":true}');
    symlinkSync(outside, path.join(workspace, 'linked.society.json'));
    symlinkSync(path.join(root, 'nowhere'), path.join(workspace, 'dangling.society.json'));

    await expect(readDocument(workspace, 'linked.society.json')).rejects.toThrow(
      'cannot open "linked.society.json": in the workspace it is a symbolic link',
    );
    await expect(writeDocument(workspace, 'linked.society.json', '{}')).rejects.toThrow(
      'cannot save "linked.society.json": in the workspace it is a symbolic link',
    );
    await expect(writeDocument(workspace, 'dangling.society.json', '{}')).rejects.toThrow(
      /symbolic link/,
    );
    // Neither the file behind the link nor the place a dangling one points to was touched.
    expect(readFileSync(outside, 'utf8')).toBe('{"secret":true}');
    expect(readdirSync(root).sort()).toEqual(['outside.society.json', 'workspace']);
    // Links are not listed, so the page never offers one.
    expect(await listDocuments(workspace)).toEqual([]);
  });

  it('refuses a folder where a document should be', async () => {
    const workspace = tempDir();
    mkdirSync(path.join(workspace, 'folder.society.json'));
    await expect(readDocument(workspace, 'folder.society.json')).rejects.toThrow(
      /cannot open "folder.society.json": in the workspace it is not a regular file/,
    );
    await expect(writeDocument(workspace, 'folder.society.json', '{}')).rejects.toThrow(
      /not a regular file/,
    );
  });

  it('works in a workspace reached through a link (a symlinked folder, /tmp on macOS)', async () => {
    const root = tempDir();
    const real = path.join(root, 'real');
    mkdirSync(real);
    const viaLink = path.join(root, 'via-link');
    symlinkSync(real, viaLink);
    await writeDocument(viaLink, 'one.society.json', '{"a":1}');
    expect(await readDocument(viaLink, 'one.society.json')).toBe('{"a":1}');
    expect((await listDocuments(viaLink)).map((f) => f.name)).toEqual(['one.society.json']);
    expect(readFileSync(path.join(realpathSync(real), 'one.society.json'), 'utf8')).toBe('{"a":1}');
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
