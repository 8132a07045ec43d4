/**
 * A served run's result as text, the same on every face that shows text (the chat endpoint, MCP
 * tools): an output's value, labelled when the simulated provider made it up, and the one line
 * that says why a run did not succeed.
 */
import type { RunResult } from '../runtime/engine.ts';
import { isSimulatedText, SIMULATED_PREFIX } from '../schema/simulated.ts';

/**
 * `value`, an output of `result`, as text: a string as it is, any other value as JSON. A run the
 * simulated provider answered says so in the text itself (`[simulated] …`): a chat client or an
 * MCP client's model reads only the text, and must not take made-up answers for a model's.
 */
export function outputText(result: Pick<RunResult, 'simulated'>, value: unknown): string {
  const text = value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  return result.simulated && !isSimulatedText(text) ? `${SIMULATED_PREFIX}${text}` : text;
}

/** One line saying how a run that did not succeed ended, and why (its error's first line). */
export function runFailure(result: Pick<RunResult, 'runId' | 'status' | 'error'>): string {
  const ended = result.status === 'cancelled' ? 'was cancelled' : result.status;
  const why = result.error ? `: ${result.error.split('\n')[0]!.trim()}` : '';
  return `the society's run ${result.runId} ${ended}${why}`;
}
