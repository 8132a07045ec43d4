/** What a run is started with, and what it ends with. */

import type { PriceTable } from '../costs/prices.ts';
import type { NodeOutputs } from '../node-sdk/define.ts';
import type { NodeRegistry } from '../node-sdk/registry.ts';
import type { Cassette, CassetteMode, RecordedToolResult } from '../providers/cassette.ts';
import type { ExpertProvider, ExpertRequest, ExpertResult } from '../providers/expert-types.ts';
import type { Env, ProfileOverride } from '../providers/profiles.ts';
import type { RetryPolicy } from '../providers/retry.ts';
import type { Redactor } from '../providers/secrets.ts';
import type { ToolDefinition, ToolSources } from '../providers/tools.ts';
import type { ChatProvider, ChatRequest, ChatResult, ProviderProfile } from '../providers/types.ts';
import type { BlobStore } from './blobs.ts';
import type { Breakpoint } from './debugger.ts';
import type { RunEvent, RunStatus, ToolResultEditor, Usage } from './events.ts';

/**
 * A person's change to a tool call at the debugger: a denial, or new arguments (JSON text) before
 * it ran and/or the result the model reads instead of what the tool gave (after it returned).
 */
export type ToolEdit =
  | { denied: true }
  | { arguments?: string; result?: { text: string; by: ToolResultEditor } };

export interface RunOptions {
  registry: NodeRegistry;
  /** Values for input nodes by name; images as `{ $image, mime }` references in `blobs`. */
  inputs?: Record<string, unknown>;
  /** Answers for human nodes by name; otherwise `askHuman` is called. */
  humanAnswers?: Record<string, string>;
  askHuman?: (request: {
    node: string;
    name: string;
    prompt: string;
    /** The document's example answer, to offer as the default. */
    example?: string;
  }) => Promise<string>;
  blobs?: BlobStore;
  /** Every model call goes to the simulated provider. */
  simulate?: boolean;
  /** Answer calls from a cassette; `record` also writes new calls into it. */
  cassette?: { cassette: Cassette; mode: CassetteMode };
  /** Overrides provider creation (tests, or the desktop app's vault-backed providers). */
  providerFor?: (providerName: string) => ChatProvider;
  providerOverrides?: Record<string, ProfileOverride>;
  env?: Env;
  /**
   * Origins (scheme://host:port) the user allowed the document's nodes to contact, from their
   * settings or the command line, never from the document or a queued job. None by default:
   * a run whose nodes would contact another is refused before anything is sent.
   */
  allowedOrigins?: readonly string[];
  /** Overrides the document's retry settings. */
  retry?: Partial<RetryPolicy>;
  breakpoints?: Breakpoint[];
  /** Start paused: the first checkpoint holds until resume or step. */
  startPaused?: boolean;
  signal?: AbortSignal;
  runId?: string;
  /** Prices per model for costs and money budgets (default: DEFAULT_PRICES). */
  prices?: PriceTable;
  /** Injected for deterministic retry jitter in tests. */
  random?: () => number;
  /**
   * Continue from an earlier log (a resume after a crash, or the part of a parent run a fork
   * keeps). The graph runs again with the model calls answered from the run's own record (pass
   * it as `cassette` in replay-then-live mode); every event that matches one in this log is not
   * emitted again, and new events continue its sequence numbers.
   */
  continueFrom?: RunEvent[];
  /**
   * What makes the run's expert providers (app/experts/providers.ts `expertProviders`): the
   * engine is handed them, so the core holds no expert code.
   */
  experts: ExpertProviders;
  /**
   * What opens the tool sources nodes name (MCP server profiles): handed in by whoever starts
   * the run, as `experts` is. Without it a live run offered tools fails naming the profile; a
   * simulated one is offered none of them and says so.
   */
  tools?: ToolSources;
  /** Told of every answered tool call, with its result: the run's own record. */
  onToolCall?: (call: {
    callId: string;
    node: string;
    instance: string;
    source: string;
    tool: string;
    arguments: Record<string, unknown>;
    result: RecordedToolResult;
  }) => void;
  /** Told of the tools each source offered, so a replay of the record opens no source. */
  onToolList?: (list: { source: string; tools: ToolDefinition[] }) => void;
  /** Overrides expert provider creation (tests, or the desktop app's vault-backed tokens). */
  expertProviderFor?: (providerName: string) => ExpertProvider;
  /** Told of every answered expert call, with the exact request: the run's own record. */
  onExpertCall?: (call: {
    callId: string;
    node: string;
    instance: string;
    request: ExpertRequest;
    result: ExpertResult;
  }) => void;
  /** Told of every answered model call, with the exact request: the run's own record. */
  onModelCall?: (call: {
    callId: string;
    node: string;
    instance: string;
    request: ChatRequest;
    result: ChatResult;
  }) => void;
  /**
   * What given node instances produce instead of running (by instance id such as
   * `member#1@r3`): a fork's edit of a message or an output.
   */
  overrides?: Record<string, NodeOutputs>;
  /**
   * Texts given node instances' messages are delivered with instead of what they propose (by
   * instance id): a debugger's edit, given again by a replay. See `editsInLog`.
   */
  messageEdits?: Record<string, string>;
  /**
   * Tool calls a person changed at the debugger (by call id such as `asker:tool1`): the
   * arguments they gave, the result they gave the model instead of the tool's, or that they
   * denied the call. Given again by a replay or fork.
   */
  toolEdits?: Record<string, ToolEdit>;
  /**
   * Who answers a tool whose policy is `ask`. `interactive`: a person at a debugger (the studio,
   * `society run --step`) is asked before each call; otherwise a run offered such a tool fails
   * before its agent asks anything, unless `approved` names it (`PROFILE/TOOL`, `PROFILE/*`,
   * `all`): the `--approve-tools` flag.
   */
  toolApproval?: { interactive?: boolean; approved?: readonly string[] };
  /**
   * Scrubs key values from every event and from the result, streamed answers included (a key
   * a server echoes never leaves the run, even split across deltas).
   */
  redactor?: Redactor;
  /**
   * Nodes whose model calls stream (their deltas become `model.delta` events) whatever their own
   * settings say: a server streaming the call that makes its answer (app/serve/chat-stream.ts).
   */
  streamNodes?: readonly string[];
}

export interface RunResult {
  runId: string;
  status: RunStatus;
  outputs: Record<string, unknown>;
  usage: Usage;
  error?: string;
  /** True if any answer in the run was made up by the simulated provider. */
  simulated: boolean;
}

/**
 * What makes the expert providers of a run: local operations, simulated answers, a profile's
 * live service, a cassette in front of one. The engine is handed it (`RunOptions.experts`; the
 * experts folder's `expertProviders`), so the core reaches no expert code of its own.
 */
export interface ExpertProviders {
  /** Local operations (no model, no key, no network). */
  local(): ExpertProvider;
  /** Made-up answers, labelled as simulated. */
  simulated(): ExpertProvider;
  /** The live service a provider profile names; an error when the profile cannot run experts. */
  live(profile: ProviderProfile, env: Env): ExpertProvider;
  /** A cassette's recorded answers, with the live provider behind it when it may record. */
  cassette(options: {
    cassette: Cassette;
    mode: CassetteMode;
    live?: ExpertProvider;
  }): ExpertProvider;
}
