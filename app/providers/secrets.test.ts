import { describe, expect, it } from 'vitest';
import { Redactor, secretsIn } from './secrets.ts';

// Assembled at run time: no key-shaped literal is committed.
const KEY = ['sk', 'abc123', 'def456', 'ghi789'].join('-');
const OTHER = ['hf', 'ZYXWVU', '987654'].join('_');

describe('secretsIn', () => {
  it('finds the fixed variables, the named ones and any credential-like name', () => {
    const env = {
      OPENAI_API_KEY: KEY,
      LAB_ACCESS: 'lab-access-value-1',
      VLLM_TOKEN: 'vllm-token-value-1',
      MY_SECRET: 'my-secret-value-1',
      HOME: '/home/someone/far-away',
      SHORT_TOKEN: 'abc',
    };
    const found = secretsIn(env, ['LAB_ACCESS']);
    expect(found).toEqual(
      expect.arrayContaining([
        KEY,
        'lab-access-value-1',
        'vllm-token-value-1',
        'my-secret-value-1',
      ]),
    );
    // Neither an ordinary variable nor a value too short to scrub safely.
    expect(found).not.toContain('/home/someone/far-away');
    expect(found).not.toContain('abc');
  });
});

describe('Redactor', () => {
  it('scrubs every string in a value and leaves a clean value as it was', () => {
    const redactor = new Redactor([KEY, OTHER]);
    const value = { a: `key ${KEY}`, list: [OTHER, 'fine'], n: 3 };
    expect(redactor.apply(value)).toEqual({
      a: 'key [redacted]',
      list: ['[redacted]', 'fine'],
      n: 3,
    });
    const clean = { a: 'nothing here' };
    expect(redactor.apply(clean)).toBe(clean);
  });

  it('masks pieces of a key, never the digits of a number', () => {
    // A test key with a run of zeros, and a cost as floating point leaves it.
    const redactor = new Redactor(['sk-test-0000000000000000']);
    const event = {
      costUsd: 0.30000000000000004,
      text: 'answer id 000000000000 and sk-test-0000000000000000',
    };
    const clean = redactor.apply(event);
    expect(clean.costUsd).toBe(0.30000000000000004);
    // Digits alone could be any number: only a piece with more of the key in it is masked.
    expect(clean.text).toBe('answer id 000000000000 and [redacted]');
    expect(redactor.text('cut short: sk-test-00000')).toBe('cut short: [redacted]');
    // Serialised JSON stays JSON (the store keeps records as text).
    expect(JSON.parse(redactor.text(JSON.stringify(event))).costUsd).toBe(0.30000000000000004);
  });

  it('finds a key in JSON text in its escaped form', () => {
    const odd = 'quote"and\\slash-key';
    const redactor = new Redactor([odd]);
    const json = JSON.stringify({ said: `it was ${odd}` });
    expect(redactor.text(json)).toBe(JSON.stringify({ said: 'it was [redacted]' }));
  });

  it('learns keys and never forgets them', () => {
    const redactor = new Redactor();
    expect(redactor.text(KEY)).toBe(KEY);
    redactor.add([KEY]);
    redactor.add([OTHER]);
    expect(redactor.text(`${KEY} ${OTHER}`)).toBe('[redacted] [redacted]');
  });

  it('catches a key split across streamed pieces, whatever the cut', () => {
    const redactor = new Redactor([KEY]);
    const text = `you sent Bearer ${KEY} and then ${KEY}.`;
    for (let size = 1; size <= text.length; size += 3) {
      const stream = redactor.stream();
      let out = '';
      for (let i = 0; i < text.length; i += size) out += stream.push(text.slice(i, i + size));
      out += stream.end();
      expect(out, `pieces of ${size}`).toBe('you sent Bearer [redacted] and then [redacted].');
    }
  });

  it('passes a stream with no key on at once, holding back only what could begin one', () => {
    const redactor = new Redactor([KEY]);
    const stream = redactor.stream();
    expect(stream.push('hello ')).toBe('hello ');
    // "sk-ab" could be the start of the key: held until the next piece says.
    expect(stream.push('sk-ab')).toBe('');
    // "sk-above" is not; only a last character the key also holds waits for the next piece.
    const passed = stream.push('ove');
    expect('sk-above'.startsWith(passed) && passed.length >= 'sk-above'.length - 1).toBe(true);
    expect(passed + stream.end()).toBe('sk-above');
  });
});
