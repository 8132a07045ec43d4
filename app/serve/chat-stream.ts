/**
 * Streaming a chat answer as it is produced, and only what will be the answer. A society's chat
 * output streams when the node wired straight into it makes that value from one model call's
 * text (its type's `streamedText` hook says which port), the node runs once (at the top level:
 * not in a loop, group or replicated) and nothing stands between it and the output. Otherwise the
 * answer comes whole when the run ends.
 *
 * What is sent is always a prefix of the answer as the run will give it: leading and trailing
 * whitespace is held back (the answer is trimmed), a text that may still become the simulated
 * label waits for it, and a retried call streams again from its start, sending only what goes
 * beyond what was already sent. A retry that says something else than was sent cannot be taken
 * back: the stream then stops sending deltas, and the end says so (`finish` gives undefined).
 */
import { type GraphPlan, ROOT } from '../compiler/analyze.ts';
import type { RunEvent } from '../runtime/events.ts';
import { SIMULATED_LABEL, SIMULATED_PREFIX } from '../schema/simulated.ts';

/** The node whose one model call makes the run output `output`, when it can stream as it comes. */
export function streamedNode(plan: GraphPlan, output: string): string | undefined {
  const target = [...plan.nodes.values()].find((n) => n.spec.runOutput?.(n.data)?.name === output);
  if (!target || target.scope !== ROOT || target.replicate) return undefined;
  const bindings = Object.values(target.inputs).flat();
  if (bindings.length !== 1) return undefined;
  const binding = bindings[0]!;
  const source = plan.nodes.get(binding.source);
  if (!source || source.scope !== ROOT || source.replicate || binding.previousRound)
    return undefined;
  return source.spec.streamedText?.(source.data) === binding.sourcePort ? source.id : undefined;
}

/** Reads a run's events and gives the next piece of its answer that is certain. */
export class AnswerStream {
  readonly #node: string | undefined;
  #simulated = false;
  #callId: string | undefined;
  #raw = '';
  #sent = '';
  #diverged = false;

  /** `node`: the node `streamedNode` found, or undefined to stream nothing before the end. */
  constructor(node: string | undefined) {
    this.#node = node;
  }

  /** What was sent so far. */
  get sent(): string {
    return this.#sent;
  }

  /** The text to send now after `event` ('' for none). */
  take(event: RunEvent): string {
    if (this.#node === undefined || this.#diverged) return '';
    switch (event.type) {
      case 'run.started':
        // A simulated run's answer starts with the label, whatever its model said.
        this.#simulated = event.mode === 'simulated' || event.mode === 'replay-then-simulated';
        return '';
      case 'model.request':
        if (event.node !== this.#node) return '';
        this.#callId = event.callId;
        this.#raw = '';
        return '';
      case 'model.retry':
        if (event.callId === this.#callId) this.#raw = '';
        return '';
      case 'model.delta':
        if (event.callId !== this.#callId) return '';
        this.#raw += event.text;
        return this.#advance();
      default:
        return '';
    }
  }

  /**
   * The rest of `answer` after what was sent, or undefined when what was sent is not how the
   * answer begins (a call retried mid-answer said something else).
   */
  finish(answer: string): string | undefined {
    if (this.#diverged || !answer.startsWith(this.#sent)) return undefined;
    const rest = answer.slice(this.#sent.length);
    this.#sent = answer;
    return rest;
  }

  #advance(): string {
    const certain = this.#certain();
    if (certain.length <= this.#sent.length) {
      if (!this.#sent.startsWith(certain)) this.#diverged = true;
      return '';
    }
    if (!certain.startsWith(this.#sent)) {
      this.#diverged = true;
      return '';
    }
    const piece = certain.slice(this.#sent.length);
    this.#sent = certain;
    return piece;
  }

  /** The longest start of the answer the text so far makes certain. */
  #certain(): string {
    const body = this.#raw.trim();
    // "[sim" may become the label or not: wait until it is one or the other.
    if (body.length < SIMULATED_LABEL.length && SIMULATED_LABEL.startsWith(body)) return '';
    if (!this.#simulated || body.startsWith(SIMULATED_LABEL)) return body;
    return `${SIMULATED_PREFIX}${body}`;
  }
}
