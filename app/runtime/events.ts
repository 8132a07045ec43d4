/**
 * The run's event stream. Every run is this log: transcripts, tallies, usage, the debugger's
 * view and (later) replay, resume and forks are views of it. Events carry references to images,
 * never their bytes.
 */

import type { ToolCall } from '../providers/tools.ts';
import type { ChatMessage } from '../providers/types.ts';
import type { GraphDocument } from '../schema/document.ts';

export type { Interaction, SeriesPoint } from '../node-sdk/reported.ts';

export interface Usage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** US dollars at the run's price table; calls to models without a price add nothing. */
  costUsd: number;
  /** Expert model calls answered (Hugging Face, local operations, cassette or simulated). */
  expertCalls?: number;
}

export type RunStatus = 'succeeded' | 'failed' | 'cancelled';

/** Where the debugger can stop. */
/** Who replaced a tool's result at the debugger: their login name, and where they did it. */
export interface ToolResultEditor {
  person: string;
  via: 'terminal' | 'studio';
}

export type Checkpoint =
  | { kind: 'node'; node: string; instance: string; round?: number }
  | { kind: 'message'; node: string; instance: string; round?: number; text: string }
  | {
      kind: 'round';
      loop: string;
      round: number;
      /**
       * The loop with its copies' numbers dropped (`artists/talk`, `inner@r2` inside another
       * loop): every copy of a replicated loop shares it, so a round breakpoint holds once for all.
       */
      group?: string;
    }
  | {
      /** Before a tool runs; `ask`: its policy holds the run here until a person answers. */
      kind: 'tool';
      node: string;
      instance: string;
      callId: string;
      source: string;
      tool: string;
      /** The arguments as they will be sent (JSON text, checked against the tool's schema). */
      arguments: string;
      ask?: true;
    }
  | {
      /**
       * After a tool returned, before its result goes back to the model: a person may replace
       * the result the model reads.
       */
      kind: 'tool-result';
      node: string;
      instance: string;
      callId: string;
      source: string;
      tool: string;
      /** The arguments the tool was sent (JSON text). */
      arguments: string;
      /** What the tool gave back, as the model would read it. */
      result: string;
      isError: boolean;
    };

export type RunEventBody =
  | {
      type: 'run.started';
      graph: string;
      inputs: Record<string, unknown>;
      mode: RunMode;
      /** The template parameters the run was bound with, when its document declares any. */
      params?: Record<string, unknown>;
    }
  | {
      type: 'run.finished';
      status: RunStatus;
      outputs: Record<string, unknown>;
      usage: Usage;
      error?: string;
      /**
       * How the run ended up answering its calls, when its `run.started` says otherwise: a replay
       * the debugger let go beyond its cassette after an edit, or a fork, whose log starts with
       * its parent's `run.started`.
       */
      mode?: RunMode;
    }
  | {
      type: 'node.started';
      node: string;
      instance: string;
      nodeType: string;
      round?: number;
      stage?: string;
      inputs: Record<string, unknown>;
    }
  | {
      type: 'node.finished';
      node: string;
      instance: string;
      outputs: Record<string, unknown>;
      durationMs: number;
      /**
       * The outputs were given, not produced (a fork's edit, the debugger's `o`): the node did
       * not run, and `outputs` hold the given values whole, so a replay can give them again.
       */
      given?: true;
      /** The outputs the node decided not to take (`notTaken`), with each one's reason. */
      notTaken?: Record<string, string>;
    }
  | { type: 'node.failed'; node: string; instance: string; error: string }
  | {
      /**
       * A node on a branch not taken: it was never started and made no call (see
       * `NodeSpec.inputs`). `from` is the input (`router.urgent`) that was not taken.
       */
      type: 'node.skipped';
      node: string;
      instance: string;
      from: string;
      reason: string;
      round?: number;
    }
  | {
      type: 'model.request';
      callId: string;
      node: string;
      instance: string;
      profile: string;
      provider: string;
      model: string;
      messages: ChatMessage[];
    }
  | { type: 'model.delta'; callId: string; text: string }
  | {
      type: 'model.response';
      callId: string;
      node: string;
      instance: string;
      text: string;
      promptTokens: number;
      completionTokens: number;
      /** Absent when the model has no price in the run's table. */
      costUsd?: number;
      source: 'live' | 'cassette' | 'simulated';
      simulated: boolean;
      durationMs: number;
      attempts: number;
      /** The tools the model asked to call (function calling), when it did. */
      toolCalls?: ToolCall[];
    }
  | {
      type: 'model.retry';
      callId: string;
      node: string;
      attempt: number;
      delayMs: number;
      error: string;
    }
  | ({ type: 'model.error'; callId: string; node: string; error: string } & CallErrorKind)
  | {
      type: 'expert.request';
      callId: string;
      node: string;
      instance: string;
      /** The provider profile, `local` for local operations, or `simulated`. */
      provider: string;
      task: string;
      model: string;
      /** Texts (clipped) and blob references, by input name. */
      inputs: Record<string, unknown>;
    }
  | {
      type: 'expert.response';
      callId: string;
      node: string;
      instance: string;
      /** Text, labels or a vector as returned; bytes as a blob reference. */
      output: unknown;
      source: 'live' | 'local' | 'cassette' | 'simulated';
      simulated: boolean;
      durationMs: number;
      attempts: number;
    }
  | ({ type: 'expert.error'; callId: string; node: string; error: string } & CallErrorKind)
  | {
      /** A tool call about to run: who asked (node, instance), where (source), what. */
      type: 'tool.call';
      callId: string;
      node: string;
      instance: string;
      /** The source's id (`mcp:tools`). */
      source: string;
      tool: string;
      /** The arguments as the model wrote them (JSON text, perhaps not valid). */
      arguments: string;
      /** A person replaced the model's arguments at the debugger; these are theirs. */
      edited?: true;
    }
  | {
      type: 'tool.result';
      callId: string;
      node: string;
      instance: string;
      source: string;
      tool: string;
      /** What the model reads back. */
      result: string;
      /** The tool reported a failure, or the call was refused before it ran (bad arguments). */
      isError: boolean;
      /** Where the result came from: the tool, a record, or made up under --simulate. */
      from: 'live' | 'cassette' | 'simulated';
      simulated: boolean;
      durationMs: number;
      /** A person denied the call at the debugger: the tool never ran. */
      denied?: true;
      /**
       * A person replaced the tool's result at the debugger after it returned: `result` is
       * theirs (what the model read), `original` what the tool gave, `editedBy` who changed it.
       */
      edited?: true;
      original?: string;
      editedBy?: ToolResultEditor;
    }
  | {
      /**
       * A tool call that failed (a server down, a time-out, a budget spent), or, without
       * `callId`, a source a simulated run could not open (its tools are then not offered).
       */
      type: 'tool.error';
      callId?: string;
      node: string;
      instance: string;
      source: string;
      tool?: string;
      error: string;
      durationMs?: number;
    }
  | {
      /** A node runs a graph of its own (a planner's accepted plan); its nodes follow. */
      type: 'subgraph.started';
      node: string;
      instance: string;
      /** The graph, as an ordinary document: it can be shown, inspected and saved. */
      document: GraphDocument;
      /** Its nodes' instance ids start with this. */
      prefix: string;
    }
  | {
      type: 'subgraph.finished';
      node: string;
      instance: string;
      outputs: Record<string, unknown>;
      /** Why the graph stopped, when it failed. */
      error?: string;
    }
  | {
      type: 'message';
      from: string;
      node: string;
      to: string[];
      text: string;
      loop?: string;
      round?: number;
      stage?: string;
      simulated: boolean;
      /** A person replaced the text the node proposed (the debugger's `e`); this is theirs. */
      edited?: true;
    }
  | { type: 'round.started'; loop: string; round: number; maxRounds: number }
  | { type: 'round.finished'; loop: string; round: number; stop?: string }
  | {
      /**
       * What a node reports for its own run view (`NodeContext.report`): `kind` is one of the
       * kinds its spec declares (`NodeSpec.reports`), `data` what that kind's schema parsed.
       * The core names no kind; the node type's run view (`run-view.tsx`) shows them.
       */
      type: 'report';
      node: string;
      instance: string;
      kind: string;
      data: unknown;
      round?: number;
    }
  | {
      type: 'human.request';
      node: string;
      instance: string;
      name: string;
      prompt: string;
      /** The document's example answer, offered as the default. */
      example?: string;
    }
  | {
      type: 'human.response';
      node: string;
      instance: string;
      name: string;
      answer: string;
      /** The answer is the document's example: no person was there to ask. */
      fromExample?: true;
    }
  /** `ask`: a tool whose policy is ask holds the run before its call. */
  | { type: 'paused'; reason: 'user' | 'breakpoint' | 'step' | 'ask'; at: Checkpoint }
  | { type: 'resumed' }
  | { type: 'error'; message: string; node?: string };

/**
 * What kind of failure a call's error is, beside its text: the provider's error code
 * (`missing_api_key` when the provider has no key) and the variable a missing key belongs in.
 * The text is the command line's advice; other front ends phrase their own from these.
 */
export interface CallErrorKind {
  code?: string;
  keyVariable?: string;
}

/** How model calls are answered in a run. */
/**
 * How a run's calls are answered. A fork replays its parent's calls, then asks anew: a real model
 * (`replay-then-live`) or, for a simulated parent or when asked, the simulator
 * (`replay-then-simulated`), so a listing never says "live" where no model was called.
 */
export type RunMode =
  | 'live'
  | 'simulated'
  | 'replay'
  | 'replay-then-live'
  | 'replay-then-simulated'
  | 'record';

export type RunEvent = RunEventBody & { runId: string; seq: number; time: number };
export type RunEventType = RunEvent['type'];

/**
 * Every event type, as a record over the union: an event type added to the engine fails the
 * type check here until it is listed, and so everything that checks types against this list
 * (breakpoints, the page's reading of pushed events) knows it at once.
 */
export const RUN_EVENT_TYPES: Readonly<Record<RunEventType, true>> = {
  'run.started': true,
  'run.finished': true,
  'node.started': true,
  'node.finished': true,
  'node.failed': true,
  'node.skipped': true,
  'model.request': true,
  'model.delta': true,
  'model.response': true,
  'model.retry': true,
  'model.error': true,
  'expert.request': true,
  'expert.response': true,
  'expert.error': true,
  'tool.call': true,
  'tool.result': true,
  'tool.error': true,
  'subgraph.started': true,
  'subgraph.finished': true,
  message: true,
  'round.started': true,
  'round.finished': true,
  report: true,
  'human.request': true,
  'human.response': true,
  paused: true,
  resumed: true,
  error: true,
};
