/** Reading the JSON a model's answer holds, as leniently as a person would. */
import { SIMULATED_LABEL } from '../schema/simulated.ts';

/**
 * The JSON value in an answer: the whole text, a fenced block, or the span from the first `{`
 * or `[` to the last `}` or `]` (models put words around it); the simulated label is ignored.
 * Undefined when none of them parses.
 */
export function jsonInAnswer(answer: string): unknown {
  const text = answer.replace(SIMULATED_LABEL, '').trim();
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text)?.[1];
  const start = text.search(/[[{]/);
  const end = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']'));
  const candidates = [
    text,
    fenced,
    start >= 0 && end > start ? text.slice(start, end + 1) : undefined,
  ];
  for (const candidate of candidates) {
    if (candidate === undefined || candidate === '') continue;
    try {
      return JSON.parse(candidate);
    } catch {
      // the next candidate
    }
  }
  return undefined;
}
