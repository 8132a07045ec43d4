/**
 * Text is clipped in many places before it reaches the one redactor (a text world quoting 80
 * characters of a model's answer, a progress line, an error quoting a body): whatever is left of
 * a key after a clip is still masked, in events and on the terminal, so no 12-character piece of
 * a key survives anywhere.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readAction } from '../environments/textworld/actions.ts';
import { buildLayout } from '../environments/textworld/layout.ts';
import { smallWorld } from '../environments/textworld/world.test-helper.ts';
import { EventLog } from '../runtime/event-log.ts';
import { FRAGMENT_LENGTH, Redactor } from './secrets.ts';
import { clip } from './text.ts';

/** A 164-character key, made up at run time so no key-shaped text is committed. */
const KEY = `sk-${randomBytes(121).toString('base64url').slice(0, 161)}`;

/** Every 12-character piece of the key that `text` holds. */
function piecesIn(text: string): string[] {
  const found: string[] = [];
  for (let i = 0; i + 12 <= KEY.length; i++) {
    if (text.includes(KEY.slice(i, i + 12))) found.push(KEY.slice(i, i + 12));
  }
  return found;
}

describe('redaction before clipping', () => {
  it('a text world quoting a clipped answer with a key leaves no piece of it in events', () => {
    expect(KEY).toHaveLength(164);
    const layout = buildLayout(smallWorld());
    const redactor = new Redactor([KEY]);
    const events: string[] = [];
    const log = new EventLog('run-1', redactor, (event) => events.push(JSON.stringify(event)));
    // Answers that put the key at every offset of the 80-character clip.
    for (let offset = 0; offset < 100; offset += 3) {
      const answer = `${'x'.repeat(offset)} Bearer ${KEY} and more words`;
      const read = readAction(answer, layout);
      expect(read.ok).toBe(false);
      const message = read.ok ? '' : read.message;
      // The clip really cut the key: the raw message holds a piece of it, not the whole.
      if (offset < 60) expect(piecesIn(message).length).toBeGreaterThan(0);
      expect(message.includes(KEY)).toBe(false);
      log.emit({ type: 'node.failed', node: 'world', instance: 'world', error: message } as never);
    }
    expect(events.length).toBeGreaterThan(30);
    const all = events.join('\n');
    expect(piecesIn(all)).toEqual([]);
    expect(all).toContain('[redacted]');
  });

  it('every clip of a text with a key, at every length, keeps fewer than 12 of its characters', () => {
    const redactor = new Redactor([KEY]);
    const text = `the header was Authorization: Bearer ${KEY} (sent twice: ${KEY})`;
    for (let max = 1; max <= text.length + 5; max++) {
      const shown = redactor.text(clip(text, max));
      expect(piecesIn(shown), `clip at ${max}`).toEqual([]);
      // A piece at the start of a text (a clip from the end) is masked too.
      expect(piecesIn(redactor.text(text.slice(-max)))).toEqual([]);
    }
    // Ordinary text is left alone, and a key in a JSON string is found in its escaped form.
    expect(redactor.text('nothing to hide here at all')).toBe('nothing to hide here at all');
    expect(FRAGMENT_LENGTH).toBe(12);
  });

  it('a streamed answer cut into pieces of any size keeps no 12-character piece', () => {
    const redactor = new Redactor([KEY]);
    const text = `start ${KEY.slice(20, 120)} middle ${KEY} end`;
    for (const size of [1, 5, 11, 12, 13, 40]) {
      const stream = redactor.stream();
      let out = '';
      for (let i = 0; i < text.length; i += size) out += stream.push(text.slice(i, i + size));
      out += stream.end();
      expect(piecesIn(out), `pieces of ${size}`).toEqual([]);
    }
  });
});
