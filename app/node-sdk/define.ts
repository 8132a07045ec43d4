/**
 * The node SDK. A node type is one folder under `nodes/`: `spec.ts` (pure data: ports, the data
 * schema with defaults, docs; safe to load in the editor) and `execute.ts` (run-time behaviour;
 * loaded only by the engine). Capabilities (model calls, messages, randomness, a person) reach
 * `execute` through the context, so node code never touches providers, keys or the network.
 */

import type { z } from 'zod';
import type { ToolCall, ToolDefinition, ToolResult, ToolSourceRef } from '../providers/tools.ts';
import type { AnswerShape, ChatMessage, ChatResult } from '../providers/types.ts';
import type { ImageValue } from '../schema/blob-refs.ts';
import type { GraphDocument } from '../schema/document.ts';
import type { Modality } from '../schema/modality.ts';
import type { Retyped } from '../schema/node-versions.ts';
import type { BaselineHooks } from './baseline.ts';
import type { ComputeTask } from './compute.ts';
import type { CallEstimateContext, EstimateContext, EstimatedCall } from './estimate.ts';
import type { RunExample } from './example.ts';
import type { GraphNodeView, GraphProblem, GraphView } from './graph-view.ts';
import type { LoopSpec } from './loop.ts';

export interface PortSpec {
  name: string;
  modality: Modality;
  /** The node cannot run unless this input is connected. */
  required?: boolean;
  /** Several edges may end here; the port then receives a list, in edge order. */
  multiple?: boolean;
  description?: string;
}

/** A node wired into a `tool` port, as the library graph that runs one call of it. */
export interface WiredToolGraph {
  graph: string;
  name: string;
  description: string;
}

export interface NodePorts {
  inputs: PortSpec[];
  outputs: PortSpec[];
}

/**
 * What a node's ports may read beyond its data: the ports of the document's library graphs
 * (a graph's input nodes are inputs, its output nodes outputs), for a node that stands for one.
 */
export interface PortsContext {
  /** The ports of the library graph `name`; undefined when the document has none by that name. */
  subgraphPorts(name: string): NodePorts | undefined;
}

/** A problem the spec found in a node's data, with a path relative to `data`. */
export interface DataProblem {
  path: PropertyKey[];
  message: string;
}

export interface NodeSpec<D = unknown> {
  /** Equal to the folder name under nodes/. */
  type: string;
  title: string;
  /** Palette group. */
  group: 'Flow' | 'Minds' | 'Experts' | 'Decisions' | 'Data' | 'People' | 'Structure';
  description: string;
  /** Parses `node.data`, filling defaults. */
  data: z.ZodType<D>;
  /** Containers hold other nodes (their `parentId`): a mindstorm loop or a plain group. */
  container?: 'loop' | 'group';
  /**
   * Ports can depend on data (an agent's prompt slots become its inputs) and, for a node that
   * stands for a library graph, on that graph (`context`, given wherever the document is known).
   */
  ports(data: D, context?: PortsContext): NodePorts;
  /**
   * The library graph (`GraphDocument.graphs`) this node stands for: a sub-society by
   * reference. Before analysis the graph's nodes are copied in its place as the members of a
   * group container (ids `<node>/<member>`), so it runs as a child machine, replicates and
   * nests like a group, and the estimate, the debugger and the record see into it.
   */
  subgraph?(data: D): string | undefined;
  /** Model profile names the node will call, for validation and the export manifest. */
  models?(data: D): string[];
  /**
   * Provider profiles the node reaches itself rather than through a model profile (an expert
   * model's Hugging Face profile), so the gallery and the export manifest name them.
   */
  providers?(data: D): string[];
  /**
   * Outside URLs the node contacts itself (a simulator's), as its data gives them. A run
   * contacts none whose origin (scheme://host:port) the user has not allowed, and refuses
   * before anything is sent (app/runtime/origins.ts); the node checks again at the point of
   * contact against `NodeContext.allowedOrigins`.
   */
  origins?(data: D): string[];
  /**
   * The tool sources the node's data names (an agent's `tools: [{ "mcp": "NAME" }]`), so a run
   * naming a server profile the user lacks is refused before anything is sent. Read only: a
   * source is opened when the run starts, never when a document is loaded or validated.
   */
  toolSources?(data: D): ToolSourceRef[];
  /**
   * The node's data as written, offering besides its own tools the nodes wired into its `tool`
   * ports, each laid out by the compiler as a library graph (app/compiler/wired-tools.ts): what
   * the plan runs and estimates. The document keeps its wires; this data is never saved.
   */
  withToolGraphs?(data: Record<string, unknown>, tools: WiredToolGraph[]): Record<string, unknown>;
  /** What the node does, told to a model it is offered to as a tool (else its title and summary). */
  toolDescription?(data: D): string | undefined;
  /** Checks beyond the schema. */
  check?(data: D): DataProblem[];
  /**
   * Model calls per execution (for estimates); 0 when it never calls a model. With an `estimate`
   * hook, which lists the calls itself, only whether it is above 0 matters.
   */
  callsPerRun?(data: D): number;

  // ---- Hooks the core calls instead of knowing node types ------------------------------
  // The engine, compiler and estimate name no node type: what a type means to a run, to the
  // machine, to graph checks and to estimates, it says here.

  /**
   * A run input: the run's value under `name` (else `default`) is the node's `value` input; a
   * value for an image, audio or 3D `modality` must be a file reference. The `description` is
   * shown beside its field in the editor's Inputs panel.
   */
  runInput?(data: D): { name: string; modality: Modality; default?: unknown; description?: string };
  /**
   * The example value a run input carries in its document (app/node-sdk/example.ts): what a
   * template's cassette was recorded with. Not a default: `society run` uses it, and says so,
   * when no `--input` names the input; the editor's Inputs panel starts with it filled in.
   */
  exampleInput?(data: D): RunExample | undefined;
  /** A run output: what arrives at the node's `value` input is the run's output `name`. */
  runOutput?(data: D): { name: string };
  /**
   * The output port whose value is its node's one model call's answer text, trimmed (no parsing,
   * no tool rounds), when `data` keeps it so: a server may stream that call as the answer.
   */
  streamedText?(data: D): string | undefined;
  /** Data of a run input standing for `port` (a node offered as a tool takes its inputs so). */
  makeRunInput?(port: PortSpec): D;
  /** Data of a run output named `name`. */
  makeRunOutput?(name: string): D;
  /** A loop container's states and estimate effects; its run-time part is `loop` in execute.ts. */
  loop?: LoopSpec<D>;
  /** Checks of the node's place in the graph (what it holds, whom it names), after the edges. */
  checkGraph?(node: GraphNodeView & { data: D }, graph: GraphView): GraphProblem[];
  /** Each execution sends a message, which enters its loop's transcript. */
  sendsMessage?: boolean;
  /**
   * The conversation the node's memory (`NodeContext.memory`) belongs to, when it shares one:
   * nodes naming the same thread in the same entry of the same loop (or outside loops, in the
   * same scope) share one memory, whatever stage each runs at (a questioner's rounds and its
   * summary at the gather stage). Without it, each copy of a node keeps its own. Either way a
   * loop entered again starts its memories afresh.
   */
  thread?(data: D): string | undefined;
  /**
   * The model calls one copy of the node makes in a run, in order, for the worst-case estimate.
   * Without it, a node that calls models sends what is connected to it once per execution.
   */
  estimate?(ctx: CallEstimateContext<D>): EstimatedCall[];
  /**
   * The largest value one copy gives on an output port, in tokens. Without it: its answer for a
   * node that calls models, else everything connected to it.
   */
  outputTokens?(ctx: EstimateContext<D>, port: string): number;
  /**
   * The value an output port gives when the data alone decides it (an environment's world), so
   * an estimate can build what a node downstream will send. Undefined when it is not known.
   */
  knownOutput?(data: D, port: string): unknown;
  /**
   * A value like the ones an output port gives, when the data decides what they look like but
   * not what they are (a text world as it starts, before anyone acts): an estimate renders the
   * templates that read the port with it, to size what they send. Undefined when it has none.
   */
  sampleOutput?(data: D, port: string): unknown;
  /**
   * How many items a list output port gives when the data alone decides the count though not
   * the items (a renderer's views), so an estimate can count the calls made per item downstream.
   */
  knownLength?(data: D, port: string): number | undefined;

  // Editor hooks: how the editor starts, shows and upgrades this type's data. They run in the
  // page as well as in the engine, so they stay pure (no I/O) and cheap. Field editors are not
  // here but on the data schema itself, with zod's `.meta()` (see `FieldEditorMeta`).

  /**
   * The card's one-line summary of valid data, e.g. an agent's model and the first line of its
   * prompt. Absent (or `undefined`): the card shows none.
   */
  summary?(data: D): string | undefined;
  /**
   * Data for a node just dropped on the canvas. Whatever it returns must pass `data` and
   * `check`, so a new node is valid at once; fields it leaves out take the schema's defaults.
   * Absent: the schema's defaults alone (which then must be valid on their own).
   */
  initialData?(context: InitialDataContext): Partial<D>;
  /**
   * The version of this type's data (default 1). Raise it when the data's shape changes and add
   * the step from the previous version to `migrations`; documents record each node's version
   * and are brought up to date when they are read (app/schema/node-versions.ts).
   */
  version?: number;
  /**
   * Steps between data versions, by the version they start from: `{ 1: (data) => … }` turns
   * version-1 data into version 2. Each gets a copy of the stored data (before defaults) and
   * returns the next version's; one that throws fails the document's loading with a line
   * naming the node.
   */
  migrations?: Readonly<Record<number, NodeDataMigration>>;
  /**
   * For a type split in two: stored data of this type that belongs to another type now, as the
   * type and data it becomes (or this type, with the fields it no longer has removed);
   * `undefined` when the data is this type's as it is. Documents are read through it before
   * the data versions (app/schema/node-versions.ts), so old documents load, run and save as
   * the new type.
   */
  retype?(data: Readonly<Record<string, unknown>>): Retyped | undefined;

  // ---- Hooks the CLI, the API and the editor call instead of knowing node types ---------
  // `society run --input`, the API's run inputs, the export manifest, pasting, the Inputs
  // panel, the container header and the Plans tab name no node type either: they read
  // `runInput`/`runOutput` above and these. Like the editor hooks, they are pure and cheap.
  // (A plan's steps, in the Plans tab, are its nodes that are neither run inputs nor run
  // outputs: the work between what the plan is given and what it answers.)

  /**
   * Answers a person can give for the questions this node asks during a run, by name: on the
   * command line (`--input NAME=VALUE`), through the API, or in the editor's Inputs panel
   * before the run starts. A `perStep` answer is asked once per step of an episode and is
   * given as `<name>@t<STEP>` (`agent1@t3`); the editor asks those while the run plays.
   */
  answers?(data: D): RunAnswer[];
  /**
   * The data of a pasted copy whose nodes got new ids: every id of another node it holds (a
   * mindstorm's leader and members) passed through `rename`, which returns an id it does not
   * rename unchanged. It receives the data as stored, perhaps half edited and not valid, and
   * changes only the fields that name nodes, so the copy is otherwise the original.
   */
  renameIds?(
    data: Readonly<Record<string, unknown>>,
    rename: (id: string) => string,
  ): Record<string, unknown>;
  /** What the type plays in `society eval --baselines`'s control documents (./baseline.ts). */
  baseline?: BaselineHooks<D>;
  /** Short labels in a container's header, after its title (a mindstorm's rounds). */
  badges?(data: D): NodeBadge[];
  /**
   * Per-agent credit (`society credit`): `members` names the nodes a container counts as its
   * members (each replica a member of its own); `leaveOut` is what an instance of this node
   * produces when its member is left out: it runs no model and sends no message, so no
   * transcript, peer or reader of messages sees it. A node without `leaveOut` cannot be left out.
   */
  credit?: { members?(data: D): string[]; leaveOut?(data: D): NodeOutputs };
  /**
   * The episode settings the node holds (an environment's world, a controller's prompt
   * ablations), so a sweep plays any document over its grid and ablations without knowing its
   * node types. The settings' names and types belong to the environment the sweep plays (the
   * core only passes them on). Both take the data as stored (perhaps holding `$param`
   * references); `apply` changes only the settings it holds and says which.
   */
  episode?: {
    read(data: Readonly<Record<string, unknown>>): Record<string, unknown>;
    apply(
      data: Readonly<Record<string, unknown>>,
      settings: Readonly<Record<string, unknown>>,
    ): { data: Record<string, unknown>; applied: string[] };
  };

  // ---- Hooks the run calls for simulated answers ------------------------------------------

  /**
   * What the node asks of the values arriving at its input `port`, when it knows (a vote with
   * a fixed candidate list asks for one of them). The engine hands it to the nodes that
   * feed the port (`NodeContext.answerShape`), so their simulated answers take that shape.
   * Real models never see it.
   */
  inputShape?(data: D, port: string): AnswerShape | undefined;
  /**
   * True when the node passes what arrives at input `port` on unchanged (a gate): what the
   * nodes it feeds ask of its outputs is then asked of the nodes feeding that port.
   */
  passesShape?(data: D, port: string): boolean;

  // ---- How the node joins branches ---------------------------------------------------------

  /**
   * When the node runs if some of what it reads was not taken (an output its source left unset
   * with `notTaken`): `all` (the default) skips it as soon as one connected input was not
   * taken; `any` runs it with the inputs that arrived (the others absent, a multiple port's
   * list without them) and skips it only when none did. A skipped node is never started: it
   * makes no calls, its outputs are not taken either, and the run logs one `node.skipped`.
   */
  inputs?: 'all' | 'any';
  /**
   * For a node that takes one of several outputs and leaves the others untaken (a router):
   * those outputs, and how often each is expected to be taken when the data says (any scale).
   * The estimate counts what lies behind them as "at most" and weighs the likely total by the
   * odds (equal odds without them).
   */
  branching?(data: D): { outputs: string[]; odds?: Record<string, number> };

  // ---- What the node reports for its own run view ------------------------------------------

  /**
   * The kinds of report the node makes (`NodeContext.report`), each with the schema its data
   * must fit: `{ flip: z.object({ side: z.enum(['heads', 'tails']) }) }`. The run checks each
   * report against it before logging a `report` event; the folder's `run-view.tsx` shows them.
   */
  reports?: Readonly<Record<string, z.ZodType>>;
  /**
   * The line a terminal shows for one of its reports (`society run`, `society show`): `null`
   * when the node's messages already say it (a step the transcript also tells); absent or
   * `undefined`: the report's kind and data, clipped.
   */
  reportLine?(kind: string, data: unknown): string | null | undefined;
}

/** An answer a person can give before or during a run (see `NodeSpec.answers`). */
export interface RunAnswer {
  name: string;
  /** What the person is asked, shown beside the answer's field. */
  prompt?: string;
  /** Asked once per step of an episode: given as `<name>@t<STEP>`. */
  perStep?: boolean;
}

/** A label in a container's header (see `NodeSpec.badges`). */
export interface NodeBadge {
  label: string;
  /**
   * Names the badge for styles and tests: it gets the class `badge-<testId>` and the test id
   * `<testId>-<node id>`.
   */
  testId?: string;
}

/** What a node type's `initialData` may know about the document a node is dropped into. */
export interface InitialDataContext {
  /** The new node's id (`agent2`). */
  id: string;
  /** The model profile a new node should use: the settings' default model, else the first. */
  profile: string;
  /** Every model profile name in the document, in document order. */
  profiles: readonly string[];
  /** Ids already taken in the document. */
  ids: ReadonlySet<string>;
}

/** One step of a node type's data migrations: version N's data in, version N+1's out. */
export type NodeDataMigration = (data: Record<string, unknown>) => Record<string, unknown>;

export type { FieldEditorMeta } from './field-editor.ts';

/** Identity helper that keeps the data type through inference. */
export function defineNode<D>(spec: NodeSpec<D>): NodeSpec<D> {
  return spec;
}

/** One entry of a mindstorm transcript. */
export interface TranscriptEntry {
  round: number;
  stage: string;
  from: string;
  to: string[];
  text: string;
}

/** A transcript as plain text, one line per message: "Round 2, organizer@r2: What colour…?". */
export function formatTranscript(entries: TranscriptEntry[]): string {
  return entries.map((e) => `Round ${e.round}, ${e.from}: ${e.text}`).join('\n');
}

/**
 * A turn a loop asks of a node outside its usual one (a revision, a vote among members). `kind`
 * names the turn: it is the stage the turn's events show and ends its instance id
 * (`member#1@r2:<kind>`); the rest is the loop type's own, declared and read in its folder.
 */
export type LoopPhase = { kind: string } & Record<string, unknown>;

/**
 * What a node inside a loop container can see of the loop. The named fields are every loop's;
 * a loop type adds what only it has meaning for (its own view, declared in its folder: see
 * `LoopRuntime.view`), which a node's templates read as `loop.<name>` like the rest.
 */
export interface LoopView {
  id: string;
  round: number;
  maxRounds: number;
  stage: string;
  /** Every message sent inside the loop so far, oldest first. */
  transcript: TranscriptEntry[];
  /** Set when the loop asks the node for a turn outside its usual prompt. */
  phase?: LoopPhase;
  /**
   * Words that end the loop when this node says them (its container's stop conditions on the
   * node), so a simulated run can say one and end as a real one would.
   */
  stopKeywords?: string[];
  /**
   * The loop's own words for this turn, when it has any: a template the node renders with
   * `vars` (plus `prompt`, its own prompt as rendered, on a usual turn) and sends instead of its
   * prompt. `field` names the template in a failure.
   */
  wording?: { template: string; vars: Record<string, unknown>; field: string };
  /** What the loop type adds for the nodes inside. */
  readonly [own: string]: unknown;
}

export interface ModelCall {
  /** A model profile name from the document's `models`. */
  profile: string;
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  /** Stream the answer (deltas become events). */
  stream?: boolean;
  /**
   * Structured output: OpenAI's `response_format` (e.g. a JSON schema). Servers that do not
   * support it may ignore it, so callers still check what comes back.
   */
  responseFormat?: Record<string, unknown>;
  /**
   * The shape of answer the node needs (JSON, one of its options, a candidate's name, commands), so a
   * simulated run answers in it. Only the simulated provider reads it; it changes nothing a
   * model is sent and no cassette key.
   */
  answerShape?: AnswerShape;
  /** Tools the model may call (from `NodeContext.tools`). */
  tools?: ToolDefinition[];
}

/** A call to an expert model. Inputs are graph values: texts, image and blob references. */
export interface ExpertCall {
  /** `local` runs a local operation (the model is then `local:<operation>`). */
  backend: 'huggingface' | 'local';
  /** The provider profile (for the huggingface backend). */
  provider: string;
  /** The task, as Hugging Face names its pipelines (`image-to-text`); checked when called. */
  task: string;
  model: string;
  inputs: Record<string, unknown>;
  parameters?: Record<string, unknown>;
}

/** A tool source offered to a node: `allow` picks its tools; `name`, `description` a graph's. */
export interface ToolOffer {
  source: ToolSourceRef;
  allow?: string[];
  name?: string;
  description?: string;
  /** Values for a graph tool's inputs a model cannot write (an image), for every call. */
  given?: Record<string, unknown>;
  /** The document's policy: honoured for the graph's own tools, never an MCP server's. */
  policy?: 'allow' | 'ask' | 'deny';
}

/** An expert's answer: text, labels or a vector as returned; bytes as a blob reference. */
export interface ExpertAnswer {
  output: unknown;
  simulated: boolean;
}

export interface NodeContext<D = unknown> {
  nodeId: string;
  /** Unique per execution: `vlm#2@r3` is replica 2 of node vlm in round 3. */
  instanceId: string;
  data: D;
  /** Input values by port name; a `multiple` port holds a list. */
  inputs: Record<string, unknown>;
  /** For each multiple port, who sent each list element (instance ids). */
  senders: Record<string, string[]>;
  /** Template variables supplied by replication (`as` name and `replica`) and the loop. */
  bindings: Record<string, unknown>;
  loop?: LoopView;
  signal: AbortSignal;
  /**
   * The origins (scheme://host:port, as `originOf` gives them) the user allowed this run to
   * contact. A node that reaches a URL itself checks it here before connecting.
   */
  allowedOrigins: ReadonlySet<string>;
  /** Seeded per run and node: the same seed gives the same draws. */
  random(): number;
  /**
   * Renders one of the node's templates (`field` names it in a failure: "its prompt template
   * went past …"). The engine renders within the run's limits and off the event loop.
   */
  renderTemplate(template: string, vars: Record<string, unknown>, field: string): Promise<string>;
  /**
   * Runs a pure task over document data (app/node-sdk/compute.ts): at once when it is light,
   * else on a worker thread within the run's `computeMs`, stopped with the run. `what` names
   * it in a failure: "its rules went past the 2,000 ms compute limit (…)".
   */
  compute<I, O>(task: ComputeTask<I, O>, input: I, what: string): Promise<O>;
  /** Everything about the call (budget, limits, retries, cassettes, events) is the engine's job. */
  callModel(call: ModelCall): Promise<ChatResult>;
  /** Runs an expert model; retries, limits, the call record and events are the engine's. */
  callExpert(call: ExpertCall): Promise<ExpertAnswer>;
  /**
   * The tools this instance is offered from the sources it names (opened once per run; under
   * a replay, the recorded list). Pass them as `ChatRequest` tools through `ModelCall.tools`.
   */
  tools(offers: readonly ToolOffer[]): Promise<ToolDefinition[]>;
  /**
   * Runs one tool call a model asked for, among the tools `tools` offered: the arguments are
   * checked first, and a bad call comes back as an error result the model can read. Budgets
   * (`maxCalls` for this node, the run's), limits, records, cassettes and events are the
   * engine's; the gateway is also where a call may wait for approval.
   */
  callTool(call: ToolCall, options?: { maxCalls?: number }): Promise<ToolResult>;
  /**
   * Runs a graph as this instance's child (a planner's plan) with values for its input nodes
   * by name; resolves with its outputs by name. Its nodes' events are the run's own.
   */
  runGraph(
    document: GraphDocument,
    inputs: Record<string, unknown>,
  ): Promise<Record<string, unknown>>;
  /** Sends a message to the node's downstream recipients; may pause at a breakpoint first. */
  message(text: string): Promise<void>;
  /**
   * Reports something for the node type's own run view (a `report` event): `kind` must be one
   * its spec declares in `reports`, and `data` must fit that kind's schema, or the node fails
   * saying which. The data is logged as the schema parsed it, keys scrubbed like any event.
   */
  report(kind: string, data: unknown): void;
  /**
   * Asks a person; resolves with their answer. An answer given ahead under `name` answers it,
   * else one given under `fallback` (a person asked every round, `scene@r2`, takes a `scene`
   * answer given once for all rounds).
   */
  /**
   * Asks a person. `example` is the document's answer to try the society with: the run uses it
   * when no person can be asked (a script, a recording) and offers it to one who can.
   */
  askHuman(request: {
    name: string;
    prompt: string;
    fallback?: string;
    example?: string;
  }): Promise<string>;
  /**
   * This instance's conversation so far: kept across the rounds and stages of its loop's entry
   * (shared with the nodes of its thread, see `NodeSpec.thread`). Agents append to it; their
   * history policy decides how much of it is sent.
   */
  memory: ChatMessage[];
  /** A URL a model can fetch the image from (a data URL for local images). */
  imageUrl(image: ImageValue): string;
  /**
   * What the nodes this one feeds ask of its answer (their `inputShape`), if any: pass it on
   * as `ModelCall.answerShape` so a simulated answer fits where it goes.
   */
  answerShape?: AnswerShape;
}

export type NodeOutputs = Record<string, unknown>;

/**
 * The value of an output a node decided not to take (a router's other branches): what reads
 * only such outputs is skipped (see `NodeSpec.inputs`). Plain data, so it travels with the
 * run's values and its log like any value.
 */
export interface NotTaken {
  $notTaken: string;
}

/**
 * Marks an output as not taken, as a decision: `return { yes: value, no: notTaken('rule 1
 * matched') }`. The reason is shown beside each node this skips.
 */
export function notTaken(reason = 'not taken'): NotTaken {
  return { $notTaken: reason };
}

/** Whether a value is an output left untaken (`notTaken`). */
export function isNotTaken(value: unknown): value is NotTaken {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as { $notTaken?: unknown }).$notTaken === 'string' &&
    Object.keys(value).length === 1
  );
}
export type NodeExecutor<D = unknown> = (ctx: NodeContext<D>) => Promise<NodeOutputs>;
