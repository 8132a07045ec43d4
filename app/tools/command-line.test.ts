/**
 * A stdio server's command line: split as a shell splits quoted text, and written back with the
 * quotes that split into the same words, so the line a confirm shows is what will run.
 */
import { describe, expect, it } from 'vitest';
import { quoteCommandLine, splitCommandLine } from './command-line.ts';

describe('command lines', () => {
  it('splits quoted words and expands nothing', () => {
    expect(splitCommandLine(`npx -y "my server" 'it''s' a\\ b $HOME`)).toEqual([
      'npx',
      '-y',
      'my server',
      'its',
      'a b',
      '$HOME',
    ]);
    expect(() => splitCommandLine('run "open')).toThrow('a " is not closed');
    expect(() => splitCommandLine('   ')).toThrow('the command line is empty');
  });

  it('writes words back so they split into the same words', () => {
    const words = ['/usr/bin/node', 'server.js', 'with space', "it's", '$HOME;rm -rf', ''];
    const line = quoteCommandLine(words);
    expect(line).toBe(`/usr/bin/node server.js 'with space' 'it'\\''s' '$HOME;rm -rf' ''`);
    expect(splitCommandLine(line)).toEqual(words);
  });
});
