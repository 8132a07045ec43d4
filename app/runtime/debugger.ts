/**
 * Debugger control for a run. Nodes pass checkpoints before they start and before each message
 * they send; the first node of a round passes a round checkpoint. While the run is paused a
 * checkpoint blocks (calls already in flight finish; nothing new starts). A tool call passes two:
 * before it runs and, once it returned, before the model reads its result. Stepping lets the
 * run go on until the next checkpoint of the chosen kind, and pauses there.
 */
import type { Checkpoint, RunEventType } from './events.ts';

/**
 * Where to stop: before a node starts, before a round begins, right after an event of a kind
 * (a vote tally, say), or before a message matching a condition is delivered.
 */
export type Breakpoint =
  | { node: string }
  /**
   * Before a round begins. Copies of a replicated loop reach a round one after another: without
   * `loop`, or with a loop named without copy numbers (`artists/talk`), the run holds once per
   * round for all of them (the first copy to get there pauses the run; one Continue lets every
   * copy through). A loop named with its copy (`artists#3/talk`) holds for that copy only.
   */
  | { round: number; loop?: string }
  /** After an event of a type; for `report`, only reports of `report`'s kind when it is given. */
  | { event: RunEventType; report?: string }
  | { message: { from?: string; contains?: string } }
  /** Before a call to a tool of this name (`*`: any tool). */
  | { tool: string }
  /** After a tool of this name (`*`: any tool) returned, before the model reads its result. */
  | { toolResult: string };
export type StepKind = 'node' | 'message' | 'round' | 'tool';
type PauseReason = 'user' | 'breakpoint' | 'step' | 'ask';

/** A loop instance's id without its copies' numbers: `artists#3/talk` → `artists/talk`. */
export function withoutCopies(loop: string): string {
  return loop.replace(/#\d+/g, '');
}

interface Waiter {
  at: Checkpoint;
  release: () => void;
}

export class DebugGate {
  #mode: { kind: 'run' } | { kind: 'paused' } | { kind: 'step'; step: StepKind } = { kind: 'run' };
  #waiters: Waiter[] = [];
  #breakpoints: Breakpoint[] = [];
  readonly #onPause: (reason: PauseReason, at: Checkpoint) => void;
  readonly #onResume: () => void;
  /** The rounds of loops (by copy-less group) a shared round breakpoint has already held. */
  #roundsHeld = new Set<string>();
  /** A pause requested while nothing was waiting is announced at the next checkpoint. */
  #pendingUserPause = false;

  constructor(hooks: {
    onPause: (reason: PauseReason, at: Checkpoint) => void;
    onResume: () => void;
  }) {
    this.#onPause = hooks.onPause;
    this.#onResume = hooks.onResume;
  }

  get paused(): boolean {
    return this.#mode.kind === 'paused';
  }

  /** Where the run is held, oldest first. */
  get waitingAt(): Checkpoint[] {
    return this.#waiters.map((w) => w.at);
  }

  setBreakpoints(breakpoints: Breakpoint[]): void {
    this.#breakpoints = [...breakpoints];
  }

  get breakpoints(): Breakpoint[] {
    return [...this.#breakpoints];
  }

  /** Whether a breakpoint pauses the run when this event is emitted. */
  pausesOn(event: { type: string; kind?: unknown }): boolean {
    return this.#breakpoints.some(
      (b) =>
        'event' in b &&
        b.event === event.type &&
        (b.report === undefined || (event.type === 'report' && event.kind === b.report)),
    );
  }

  pause(): void {
    if (this.#mode.kind === 'paused') return;
    this.#mode = { kind: 'paused' };
    this.#pendingUserPause = true;
  }

  resume(): void {
    const wasHeld = this.#mode.kind !== 'run' || this.#waiters.length > 0;
    this.#mode = { kind: 'run' };
    this.#pendingUserPause = false;
    const waiters = this.#waiters;
    this.#waiters = [];
    if (wasHeld) this.#onResume();
    for (const w of waiters) w.release();
  }

  /**
   * Lets the checkpoint the run is held at go, runs on until the next checkpoint of `kind`, and
   * pauses before it (`tool` stops after a tool returned too). Held checkpoints of other kinds
   * go too.
   */
  step(kind: StepKind): void {
    this.#mode = { kind: 'step', step: kind };
    this.#pendingUserPause = false;
    const [head, ...rest] = this.#waiters;
    this.#waiters = [];
    if (head) {
      this.#onResume();
      head.release();
    }
    for (const w of rest) this.#admit(w);
  }

  /** Resolves when the run may pass this checkpoint. */
  check(at: Checkpoint): Promise<void> {
    return new Promise((release) => this.#admit({ at, release }));
  }

  #admit(waiter: Waiter): void {
    const { at } = waiter;
    const mode = this.#mode;
    // A tool whose policy is ask holds whatever the mode, and says so even when the run is
    // already held elsewhere: only a person who saw it lets it go.
    if (at.kind === 'tool' && at.ask) {
      this.#mode = { kind: 'paused' };
      this.#pendingUserPause = false;
      this.#hold(waiter, 'ask');
      return;
    }
    if (mode.kind === 'paused') {
      this.#hold(waiter, this.#pendingUserPause ? 'user' : undefined);
      this.#pendingUserPause = false;
      return;
    }
    if (
      mode.kind === 'step' &&
      (mode.step === at.kind ||
        (mode.step === 'node' && at.kind === 'round') ||
        (mode.step === 'tool' && at.kind === 'tool-result'))
    ) {
      this.#mode = { kind: 'paused' };
      this.#hold(waiter, 'step');
      return;
    }
    if (this.#hits(at)) {
      this.#mode = { kind: 'paused' };
      this.#hold(waiter, 'breakpoint');
      return;
    }
    waiter.release();
  }

  #hold(waiter: Waiter, reason: PauseReason | undefined): void {
    this.#waiters.push(waiter);
    if (reason) this.#onPause(reason, waiter.at);
  }

  #hits(at: Checkpoint): boolean {
    return this.#breakpoints.some((b) => {
      if ('event' in b) return false; // the engine pauses on events as they are emitted
      if ('message' in b) {
        if (at.kind !== 'message') return false;
        const { from, contains } = b.message;
        return (
          (from === undefined || at.instance === from || at.node === from) &&
          (contains === undefined || at.text.toLowerCase().includes(contains.toLowerCase()))
        );
      }
      if ('tool' in b) return at.kind === 'tool' && (b.tool === '*' || at.tool === b.tool);
      if ('toolResult' in b)
        return at.kind === 'tool-result' && (b.toolResult === '*' || at.tool === b.toolResult);
      if ('node' in b) return at.kind === 'node' && at.node === b.node;
      if (at.kind !== 'round' || at.round !== b.round) return false;
      if (b.loop?.includes('#')) return b.loop === at.loop;
      if (b.loop !== undefined && b.loop !== at.loop && b.loop !== withoutCopies(at.loop))
        return false;
      // Once per round for all copies: the other copies pass the round they were released into.
      const group = `${at.group ?? withoutCopies(at.loop)}|${at.round}`;
      if (this.#roundsHeld.has(group)) return false;
      this.#roundsHeld.add(group);
      return true;
    });
  }
}
