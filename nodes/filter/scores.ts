/** Reading a model's scores for a list of actions, as leniently as a person would. */
import { jsonInAnswer } from '../../app/node-sdk/answer-json.ts';
import { SIMULATED_LABEL } from '../../app/schema/simulated.ts';

/**
 * Scores 1–5 for `count` actions from an answer: JSON (`{"scores": [4, 2]}`, `[4, 2]`, or an
 * object of scores by action), else the numbers in the text in order (a numbered list's item
 * numbers skipped: "1. 4" reads 4). An entry that cannot be read is undefined.
 */
export function readScores(answer: string, actions: readonly string[]): Array<number | undefined> {
  const text = answer.replace(SIMULATED_LABEL, '').trim();
  const json = jsonInAnswer(text);
  let values: unknown[] | undefined;
  if (Array.isArray(json)) values = json;
  else if (json && typeof json === 'object') {
    const record = json as Record<string, unknown>;
    if (Array.isArray(record.scores)) values = record.scores;
    else values = actions.map((action) => record[action]);
  }
  if (!values) values = numbersIn(text);
  return actions.map((_, i) => score(values[i]));
}

/** The single score in an answer to one action's question. */
export function readScore(answer: string): number | undefined {
  const text = answer.replace(SIMULATED_LABEL, '').trim();
  const json = jsonInAnswer(text);
  if (typeof json === 'number') return score(json);
  if (json && typeof json === 'object' && !Array.isArray(json)) {
    return score((json as Record<string, unknown>).score);
  }
  return score(numbersIn(text)[0]);
}

function score(value: unknown): number | undefined {
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n)) return undefined;
  return Math.min(5, Math.max(1, n));
}

/** Numbers in order, leaving out list markers at the start of a line ("2." or "2)"). */
function numbersIn(text: string): number[] {
  const found: number[] = [];
  for (const line of text.split('\n')) {
    const body = line.replace(/^\s*(?:\d+[.)]|[-*•])\s+/, '');
    for (const m of body.matchAll(/-?\d+(?:\.\d+)?/g)) found.push(Number(m[0]));
  }
  return found;
}
