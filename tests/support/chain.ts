/**
 * Three agents in a chain (`q` → a → b → c → `answer`) on OpenAI's gpt-4o-mini, each prompt
 * holding the answer before it: a run needs three calls. And a local OpenAI-compatible server
 * that answers such a chain (each answer is the call's prompt in angle brackets, so the output
 * shows every step) until it is told to refuse.
 */
import { type StubOpenAI, startStubOpenAI, stubError } from './stub-openai.ts';

/** The chain document; `settings` default to one attempt per call, so a refusal fails the run. */
export function chainOfThree(
  options: { name?: string; settings?: Record<string, unknown> } = {},
): Record<string, unknown> {
  return {
    version: 1,
    name: options.name ?? 'chain of three',
    models: { m: { provider: 'openai', model: 'gpt-4o-mini', maxTokens: 20 } },
    settings: options.settings ?? { retry: { attempts: 1 } },
    nodes: [
      { id: 'q', type: 'input', position: { x: 0, y: 0 }, data: { name: 'q' } },
      ...['a', 'b', 'c'].map((id, i) => ({
        id,
        type: 'agent',
        position: { x: 260 * (i + 1), y: 0 },
        data: { model: 'm', prompt: `${id.toUpperCase()}: {{ in }}` },
      })),
      { id: 'out', type: 'output', position: { x: 1040, y: 0 }, data: { name: 'answer' } },
    ],
    edges: [
      { id: 'e1', source: 'q', sourceHandle: 'value', target: 'a', targetHandle: 'in' },
      { id: 'e2', source: 'a', sourceHandle: 'text', target: 'b', targetHandle: 'in' },
      { id: 'e3', source: 'b', sourceHandle: 'text', target: 'c', targetHandle: 'in' },
      { id: 'e4', source: 'c', sourceHandle: 'text', target: 'out', targetHandle: 'value' },
    ],
  };
}

export interface ChainServer {
  stub: StubOpenAI;
  /** From now on, answers `n` requests, then refuses every one (503, "overloaded"). */
  refuseAfter(n: number): void;
  /** Answers every request from now on. */
  answerAll(): void;
}

/** Starts the server; it answers every request until `refuseAfter`. */
export async function startChainServer(): Promise<ChainServer> {
  let limit = Number.POSITIVE_INFINITY;
  let answered = 0;
  const stub = await startStubOpenAI({
    respond: (body) => {
      if (answered >= limit) return stubError(503, 'The server is overloaded');
      answered++;
      return {
        text: `<${body.messages.at(-1).content}>`,
        usage: { prompt_tokens: 5, completion_tokens: 2 },
      };
    },
  });
  return {
    stub,
    refuseAfter(n) {
      answered = 0;
      limit = n;
    },
    answerAll() {
      limit = Number.POSITIVE_INFINITY;
    },
  };
}
