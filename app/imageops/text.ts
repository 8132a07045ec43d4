/**
 * Text degradation for benchmark tasks modelled on OpenAGI: one word of a sentence replaced by
 * a mask token, for fill-mask style tasks.
 */
import { seededRandom } from '../node-sdk/random.ts';

/** A word: a run of letters (with their combining marks) and digits, in any script. */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;

export type MaskResult = {
  /** The text with one word replaced by the token, or the input unchanged when it has no word. */
  text: string;
  /** Which word was masked; absent when the text has no word to mask. */
  masked?: {
    /** Position of the word among the words of the text, from 0. */
    index: number;
    /** The word as it was written. */
    word: string;
    /** Offset of the word in the original text, in UTF-16 code units. */
    offset: number;
  };
};

/**
 * Replaces exactly one word of `text` with `token`, choosing the word with a PRNG seeded by
 * `seed`, so the same text and seed always mask the same word. Punctuation and spacing around
 * the word are kept: "Hello, world!" can become "Hello, [MASK]!". A contraction such as "don't"
 * counts as two words, "don" and "t".
 */
export function maskWord(text: string, seed: string | number, token = '[MASK]'): MaskResult {
  if (typeof text !== 'string') throw new Error('maskWord: text must be a string');
  if (typeof token !== 'string' || token === '') {
    throw new Error('maskWord: token must be a non-empty string');
  }
  const words = [...text.matchAll(WORD)];
  if (words.length === 0) return { text };
  const index = Math.floor(seededRandom(seed)() * words.length);
  const match = words[index]!;
  const word = match[0];
  const offset = match.index;
  return {
    text: text.slice(0, offset) + token + text.slice(offset + word.length),
    masked: { index, word, offset },
  };
}
