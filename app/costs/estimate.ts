/**
 * A worst-case estimate of a run's model calls, tokens and cost, made from the compiled plan
 * before any call. The call count never under-counts: every replica of every model-calling
 * node runs in every round of every loop it sits in (stop conditions are ignored, so a loop
 * runs `maxRounds`), plus the revisions (right to change) and ballots (right to execute) of a
 * mindstorm's members. Token counts are upper-ish estimates at about four characters a token:
 *
 * - completion tokens of a call are its `maxTokens`: the node's, else its model profile's,
 *   else `defaultMaxTokens` (1024);
 * - prompt tokens of a call are the node's own text (role and prompt, or a summary's
 *   instructions) rendered with its replica's variables and empty inputs, plus what flows in:
 *   each connected source's output size (a model node's `maxTokens`; a list from a replicated
 *   source or `collect: all` counts every element), plus, when the node reads its mindstorm's
 *   transcript (`loop.transcript` in its template, or a summarize node with nothing
 *   connected), every message that could be in the transcript by then, plus what the right to
 *   know shows a member and what an agent's `history` replays;
 * - graph inputs and human answers count as `defaultInputTokens` (0) unless their values are
 *   given in `inputs`, and images as `imageTokens` (0), as the runtime's own estimate does.
 */
import { effectiveRights, type MindstormData } from '../../nodes/mindstorm/spec.ts';
import {
  ancestors,
  descendants,
  type GraphPlan,
  type InputBinding,
  type PlannedNode,
  scopeDependencies,
  topInScope,
} from '../compiler/analyze.ts';
import { documentRenderer, isImageValue } from '../nodes/template.ts';
import { estimateTokens } from '../providers/text.ts';
import type { ModelProfile, Stage } from '../schema/document.ts';
import { callCost, type PriceTable } from './prices.ts';

/** Completion tokens for a call when neither the node nor its model profile sets `maxTokens`. */
export const DEFAULT_MAX_TOKENS = 1024;

/** Tokens a transcript line adds around its text: `Round 3, member#2@r3: `. */
const TRANSCRIPT_ENTRY_TOKENS = 8;
/** The fixed wording of a revision request (right to change), and each option's `(a) `. */
const REVISE_TOKENS = 45;
const OPTION_TOKENS = 2;
/** The fixed wording around the previous round's answers (right to know), and per answer. */
const PEERS_TOKENS = 12;
const PEER_ANSWER_TOKENS = 3;
/** Node types whose output is a message in their mindstorm's transcript. */
const MESSAGE_SENDERS = new Set(['agent', 'summarize', 'human']);
const STAGE_ORDER: Record<Stage, number> = { init: 0, round: 1, gather: 2, decide: 3 };

/** Options of `estimateRun`. */
export interface EstimateOptions {
  /** Completion tokens when neither a node nor its profile sets `maxTokens` (default 1024). */
  defaultMaxTokens?: number;
  /** Known values of graph inputs and human answers, by name; their text counts at chars/4. */
  inputs?: Record<string, unknown>;
  /** Tokens for a graph input or human answer whose value is not known (default 0). */
  defaultInputTokens?: number;
  /** Prompt tokens per image sent to a model (default 0: images are not counted). */
  imageTokens?: number;
}

/** The calls of one node on one model; a mindstorm member's revisions and ballots have their own rows. */
export interface NodeEstimate {
  node: string;
  /** The model id from the node's profile (a profile name when the profile is missing). */
  model: string;
  /** Set on a member's extra calls: revisions (right to change) or ballots (right to execute). */
  phase?: 'revise' | 'ballot';
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** Absent when the model has no price. */
  costUsd?: number;
}

/** A worst-case estimate of a run, made before any call. */
export interface RunEstimate {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** The sum over priced calls; calls to models in `unpriced` add nothing. */
  costUsd: number;
  /** Model ids without a price (local or simulated models, or missing from the table). */
  unpriced: string[];
  byNode: NodeEstimate[];
}

/** When a node runs inside its innermost mindstorm: a stage and, for `round`, the round. */
interface At {
  stage: Stage;
  round: number;
}

/**
 * Estimates the worst case of a run from its plan: calls, prompt and completion tokens and
 * cost, per node and model and in total. See the module comment for what is counted.
 */
export function estimateRun(
  plan: GraphPlan,
  prices: PriceTable,
  options: EstimateOptions = {},
): RunEstimate {
  return new Estimator(plan, options).estimate(prices);
}

class Estimator {
  readonly #plan: GraphPlan;
  readonly #options: EstimateOptions;
  readonly #sizes = new Map<string, number>();
  readonly #visiting = new Set<string>();
  readonly #copies = new Map<string, Array<Record<string, unknown>>>();
  readonly #senders = new Map<string, string[]>();
  readonly #deps = new Map<string, Map<string, Set<string>>>();
  /** Templates render within small limits here: an estimate must not wait on a slow one. */
  readonly #reading = documentRenderer();

  constructor(plan: GraphPlan, options: EstimateOptions) {
    this.#plan = plan;
    this.#options = options;
  }

  estimate(prices: PriceTable): RunEstimate {
    const rows = new Map<string, NodeEstimate>();
    const record = (
      node: string,
      model: string,
      phase: NodeEstimate['phase'],
      calls: number,
      prompt: number,
      completion: number,
    ) => {
      const key = `${node}\u0000${model}\u0000${phase ?? ''}`;
      let row = rows.get(key);
      if (!row) {
        row = {
          node,
          model,
          ...(phase ? { phase } : {}),
          calls: 0,
          promptTokens: 0,
          completionTokens: 0,
        };
        rows.set(key, row);
      }
      row.calls += calls;
      row.promptTokens += prompt * calls;
      row.completionTokens += completion * calls;
    };

    for (const node of this.#plan.nodes.values()) {
      const perRun = node.spec.callsPerRun?.(node.data) ?? 0;
      if (perRun <= 0) continue;
      const loop = this.#loopOf(node.id);
      const data = loop ? this.#loopData(loop) : undefined;
      const rights = data ? effectiveRights(data) : undefined;
      const member = !!data && node.scope === loop && data.members.includes(node.id);
      const replacedByVote = !!rights?.rte && data?.leader === node.id;
      const factor = this.#outerFactor(node.id) * perRun;
      for (const bindings of this.#copiesOf(node)) {
        const model = this.#profile(node, bindings)?.model ?? this.#profileName(node, bindings);
        const completion = this.#completion(node, bindings);
        const system = this.#systemTokens(node, bindings);
        /** Tokens of each earlier exchange of this copy, for its history policy. */
        const memory: number[] = [];
        const call = (phase: NodeEstimate['phase'], user: number) => {
          const prompt = system + this.#remembered(node, memory) + user;
          memory.push(user + completion);
          record(node.id, model, phase, factor, prompt, completion);
        };
        if (!replacedByVote) {
          for (const at of this.#executions(node.id)) {
            call(undefined, this.#userTokens(node, bindings, at));
          }
        }
        if (member && loop && data && rights?.rtc) {
          for (let r = 1; r <= data.maxRounds; r++) call('revise', this.#reviseTokens(node, loop));
        }
        if (member && loop && data?.leader && rights?.rte) {
          call('ballot', this.#ballotTokens(loop));
        }
      }
    }

    const byNode = [...rows.values()];
    const unpriced = new Set<string>();
    let costUsd = 0;
    for (const row of byNode) {
      const cost = callCost(prices, row.model, row.promptTokens, row.completionTokens);
      if (cost === undefined) unpriced.add(row.model);
      else {
        row.costUsd = cost;
        costUsd += cost;
      }
    }
    return {
      calls: sum(byNode.map((r) => r.calls)),
      promptTokens: sum(byNode.map((r) => r.promptTokens)),
      completionTokens: sum(byNode.map((r) => r.completionTokens)),
      costUsd,
      unpriced: [...unpriced],
      byNode,
    };
  }

  // ---- structure ------------------------------------------------------------------------

  #node(id: string): PlannedNode {
    return this.#plan.nodes.get(id)!;
  }

  #loopData(loop: string): MindstormData {
    return this.#node(loop).data as unknown as MindstormData;
  }

  /** The innermost mindstorm around a node. */
  #loopOf(id: string): string | undefined {
    return ancestors(this.#plan.nodes, id).find((a) => this.#node(a).type === 'mindstorm');
  }

  /** The stage a node runs at in a loop: that of its ancestor-or-self directly inside it. */
  #stageIn(id: string, loop: string): Stage {
    return this.#node(topInScope(this.#plan.nodes, id, loop) ?? id).stage;
  }

  /** How often the loops beyond the innermost one repeat a node (max rounds for `round`). */
  #outerFactor(id: string): number {
    const loops = ancestors(this.#plan.nodes, id).filter((a) => this.#node(a).type === 'mindstorm');
    let factor = 1;
    for (const loop of loops.slice(1)) {
      if (this.#stageIn(id, loop) === 'round') factor *= this.#loopData(loop).maxRounds;
    }
    return factor;
  }

  /** The node's executions within its innermost loop (one outside any loop). */
  #executions(id: string): At[] {
    const loop = this.#loopOf(id);
    if (!loop) return [{ stage: 'round', round: 1 }];
    const stage = this.#stageIn(id, loop);
    const rounds = this.#loopData(loop).maxRounds;
    if (stage !== 'round') return [{ stage, round: rounds }];
    return Array.from({ length: rounds }, (_, i) => ({ stage, round: i + 1 }));
  }

  /**
   * The template variables of each copy of a node: one per combination of the items of its
   * replicated ancestors (outermost first) and its own, as the runtime binds them.
   */
  #copiesOf(node: PlannedNode): Array<Record<string, unknown>> {
    const known = this.#copies.get(node.id);
    if (known) return known;
    const replications = [node.id, ...ancestors(this.#plan.nodes, node.id)]
      .reverse()
      .flatMap((id) => this.#node(id).replicate ?? []);
    let copies: Array<Record<string, unknown>> = [{}];
    for (const { items, as } of replications) {
      copies = copies.flatMap((vars) =>
        items.map((item, index) => ({
          ...vars,
          [as]: item,
          replica: { index, count: items.length },
        })),
      );
    }
    this.#copies.set(node.id, copies);
    return copies;
  }

  /** Copies of a node per execution of a loop: replications between the node and the loop. */
  #countWithin(id: string, loop: string): number {
    let count = 1;
    for (const a of [id, ...ancestors(this.#plan.nodes, id)]) {
      if (a === loop) break;
      count *= this.#node(a).replicate?.items.length ?? 1;
    }
    return count;
  }

  /**
   * A template rendered with the given variables (inputs not given render empty); as written
   * when it cannot be.
   */
  #render(template: string, vars: Record<string, unknown>): string {
    return this.#reading(template, vars) ?? template;
  }

  // ---- models ---------------------------------------------------------------------------

  #profileName(node: PlannedNode, bindings: Record<string, unknown>): string {
    const name = node.spec.models?.(node.data)[0] ?? '';
    return name.includes('{{') ? this.#render(name, bindings).trim() : name;
  }

  #profile(node: PlannedNode, bindings: Record<string, unknown>): ModelProfile | undefined {
    const profiles = this.#plan.doc.models ?? {};
    const name = this.#profileName(node, bindings);
    return Object.hasOwn(profiles, name) ? profiles[name] : undefined;
  }

  #completion(node: PlannedNode, bindings: Record<string, unknown>): number {
    const own = node.data.maxTokens;
    if (typeof own === 'number') return own;
    return (
      this.#profile(node, bindings)?.maxTokens ??
      this.#options.defaultMaxTokens ??
      DEFAULT_MAX_TOKENS
    );
  }

  /** The largest completion any copy of a node may give. */
  #maxCompletion(node: PlannedNode): number {
    return Math.max(...this.#copiesOf(node).map((b) => this.#completion(node, b)));
  }

  // ---- prompts --------------------------------------------------------------------------

  #systemTokens(node: PlannedNode, bindings: Record<string, unknown>): number {
    const role = node.type === 'agent' ? String(node.data.role ?? '') : '';
    return role ? estimateTokens(this.#render(role, bindings)) : 0;
  }

  /** The user message of a node's call at a point of its loop. */
  #userTokens(node: PlannedNode, bindings: Record<string, unknown>, at: At): number {
    const loop = this.#loopOf(node.id);
    if (node.type === 'agent') {
      const prompt = String(node.data.prompt ?? '');
      let tokens = estimateTokens(this.#render(prompt, bindings)) + this.#inputTokens(node);
      if (loop && readsTranscript(`${node.data.role ?? ''}${prompt}`)) {
        tokens += this.#transcriptTokens(loop, node.id, at);
      }
      const data = loop ? this.#loopData(loop) : undefined;
      if (
        loop &&
        data &&
        effectiveRights(data).rtk &&
        node.scope === loop &&
        data.members.includes(node.id) &&
        at.stage === 'round' &&
        at.round > 1
      ) {
        tokens += this.#peersTokens(loop) + this.#inputTokens(node, true);
      }
      return tokens;
    }
    if (node.type === 'summarize') {
      const instructions = this.#render(String(node.data.instructions ?? ''), bindings);
      const own = estimateTokens(`${instructions}\n\nRecord:\n`);
      if ((node.inputs.text ?? []).length > 0) return own + this.#inputTokens(node);
      return own + (loop ? this.#transcriptTokens(loop, node.id, at) : 0);
    }
    return this.#inputTokens(node);
  }

  /** What a history policy replays of a copy's earlier exchanges. */
  #remembered(node: PlannedNode, memory: number[]): number {
    const policy = node.type === 'agent' ? node.data.history : 'none';
    if (policy === 'all') return sum(memory);
    if (typeof policy === 'number') return sum(memory.slice(-policy));
    return 0;
  }

  /** Right to know: every member's previous answer, shown to a member from round 2. */
  #peersTokens(loop: string): number {
    let tokens = PEERS_TOKENS;
    for (const m of this.#loopData(loop).members) {
      const member = this.#node(m);
      tokens += this.#countWithin(m, loop) * (this.#maxCompletion(member) + PEER_ANSWER_TOKENS);
    }
    return tokens;
  }

  /** Right to change: the member's question and every member's answer of that round. */
  #reviseTokens(node: PlannedNode, loop: string): number {
    let tokens = REVISE_TOKENS + this.#inputTokens(node, true);
    for (const m of this.#loopData(loop).members) {
      const member = this.#node(m);
      tokens += this.#countWithin(m, loop) * (this.#maxCompletion(member) + OPTION_TOKENS);
    }
    return tokens;
  }

  /** Right to execute: a member answers the leader's prompt. */
  #ballotTokens(loop: string): number {
    const leader = this.#node(this.#loopData(loop).leader!);
    const prompt = String(leader.data.prompt ?? '');
    const bindings = this.#copiesOf(leader)[0] ?? {};
    let tokens = estimateTokens(this.#render(prompt, bindings)) + this.#inputTokens(leader);
    if (readsTranscript(prompt)) {
      tokens += this.#transcriptTokens(loop, leader.id, {
        stage: 'decide',
        round: this.#loopData(loop).maxRounds,
      });
    }
    return tokens;
  }

  // ---- sizes of values ------------------------------------------------------------------

  /** Tokens of everything connected to a node's inputs (text only: no image inputs). */
  #inputTokens(node: PlannedNode, textOnly = false): number {
    let tokens = 0;
    for (const bindings of Object.values(node.inputs)) {
      for (const b of bindings) {
        if (textOnly && b.modality.includes('image')) continue;
        tokens += this.#delivered(b, node);
      }
    }
    return tokens;
  }

  /**
   * Tokens a consumer receives over an edge: the source's output, once per element when
   * replication between the two (or `collect: all`) turns it into a list.
   */
  #delivered(b: InputBinding, target: PlannedNode): number {
    const targetSide = new Set([target.id, ...ancestors(this.#plan.nodes, target.id)]);
    let count = 1;
    for (const id of [b.source, ...ancestors(this.#plan.nodes, b.source)]) {
      if (targetSide.has(id)) break;
      const node = this.#node(id);
      if (b.collectLoop === id) count *= this.#loopData(id).maxRounds;
      count *= node.replicate?.items.length ?? 1;
    }
    return count * this.#size(b.source, b.sourcePort);
  }

  /** The largest output one copy of a node may give on a port, in tokens. */
  #size(id: string, port: string): number {
    const key = `${id}.${port}`;
    const known = this.#sizes.get(key);
    if (known !== undefined) return known;
    // A value that depends on itself (through a transcript or a previous-round edge) adds
    // nothing more than its other sources.
    if (this.#visiting.has(key)) return 0;
    this.#visiting.add(key);
    const size = this.#computeSize(this.#node(id), port);
    this.#visiting.delete(key);
    this.#sizes.set(key, size);
    return size;
  }

  #computeSize(node: PlannedNode, port: string): number {
    const data = node.data;
    if (node.type === 'input' || node.type === 'human') {
      const given = this.#options.inputs?.[String(data.name)] ?? data.default;
      if (given !== undefined) return this.#valueTokens(given);
      return String(data.modality ?? 'text').includes('image')
        ? (this.#options.imageTokens ?? 0)
        : (this.#options.defaultInputTokens ?? 0);
    }
    if (node.type === 'mindstorm') {
      const loop = data as unknown as MindstormData;
      const members = loop.members.map((m) => this.#node(m));
      const voting = effectiveRights(loop).rte && loop.leader;
      if (port === 'transcript') {
        return this.#transcriptTokens(node.id, undefined, {
          stage: 'decide',
          round: loop.maxRounds,
        });
      }
      if (port === 'verdict') return loop.leader ? this.#outputOf(this.#node(loop.leader)) : 0;
      if (port === 'tally' && voting) {
        return sum(members.map((m) => this.#countWithin(m.id, node.id) * this.#maxCompletion(m)));
      }
      return 1;
    }
    if ((node.spec.callsPerRun?.(data) ?? 0) > 0) return this.#outputOf(node);
    const loop = this.#loopOf(node.id);
    const at: At = { stage: loop ? this.#stageIn(node.id, loop) : 'round', round: 1 };
    if (loop) at.round = this.#loopData(loop).maxRounds;
    if (node.type === 'summarize') {
      if ((node.inputs.text ?? []).length > 0 || !loop) return this.#inputTokens(node);
      return this.#transcriptTokens(loop, node.id, at);
    }
    if (node.type === 'transform') {
      const template = String(data.template ?? '');
      const bindings = this.#copiesOf(node)[0] ?? {};
      let tokens = estimateTokens(this.#render(template, bindings)) + this.#inputTokens(node);
      if (loop && readsTranscript(template)) tokens += this.#transcriptTokens(loop, node.id, at);
      return tokens;
    }
    return this.#inputTokens(node);
  }

  /** A model node's answer; a leader outvoted by members (right to execute) gives a member's. */
  #outputOf(node: PlannedNode): number {
    let size = this.#maxCompletion(node);
    const loop = this.#loopOf(node.id);
    const data = loop ? this.#loopData(loop) : undefined;
    if (data && effectiveRights(data).rte && data.leader === node.id) {
      for (const m of data.members) size = Math.max(size, this.#maxCompletion(this.#node(m)));
    }
    return size;
  }

  #valueTokens(value: unknown): number {
    if (typeof value === 'string') return estimateTokens(value);
    if (isImageValue(value)) return this.#options.imageTokens ?? 0;
    if (Array.isArray(value)) return sum(value.map((v) => this.#valueTokens(v)));
    return estimateTokens(JSON.stringify(value) ?? '');
  }

  // ---- transcripts ----------------------------------------------------------------------

  /** Nodes whose messages go into a loop's transcript: senders whose innermost loop it is. */
  #sendersOf(loop: string): string[] {
    let senders = this.#senders.get(loop);
    if (!senders) {
      senders = descendants(this.#plan.nodes, loop).filter(
        (id) => MESSAGE_SENDERS.has(this.#node(id).type) && this.#loopOf(id) === loop,
      );
      this.#senders.set(loop, senders);
    }
    return senders;
  }

  /**
   * Tokens of every message that could be in a loop's transcript when `reader` runs at `at`:
   * all messages of earlier stages and rounds, and of the current one those from nodes that
   * do not wait for the reader (worst case: they all finished first). Without a reader, the
   * transcript at that point in full.
   */
  #transcriptTokens(loop: string, reader: string | undefined, at: At): number {
    const data = this.#loopData(loop);
    const rights = effectiveRights(data);
    const later = reader ? this.#waitingFor(loop, reader) : new Set<string>();
    let tokens = 0;
    for (const sender of this.#sendersOf(loop)) {
      if (rights.rte && data.leader === sender) continue;
      const top = topInScope(this.#plan.nodes, sender, loop) ?? sender;
      const stage = this.#node(top).stage;
      const current = later.has(top) ? 0 : 1;
      let executions = 0;
      if (STAGE_ORDER[stage] < STAGE_ORDER[at.stage]) {
        executions = stage === 'round' ? data.maxRounds : 1;
      } else if (stage === at.stage) {
        executions = stage === 'round' ? at.round - 1 + current : current;
      }
      if (executions === 0) continue;
      const node = this.#node(sender);
      const size = this.#size(sender, node.ports.outputs[0]?.name ?? 'text');
      tokens += executions * this.#countWithin(sender, loop) * (size + TRANSCRIPT_ENTRY_TOKENS);
    }
    return tokens;
  }

  /**
   * Children of a loop that cannot have sent this stage's message before `reader` runs: the
   * reader itself (when directly in the loop) and everything that waits for it.
   */
  #waitingFor(loop: string, reader: string): Set<string> {
    let deps = this.#deps.get(loop);
    if (!deps) {
      deps = scopeDependencies(this.#plan.nodes, loop, this.#plan.children.get(loop) ?? []);
      this.#deps.set(loop, deps);
    }
    const top = topInScope(this.#plan.nodes, reader, loop) ?? reader;
    const waiting = new Set<string>();
    const queue = [top];
    while (queue.length > 0) {
      const done = queue.pop()!;
      for (const [child, needs] of deps) {
        if (!waiting.has(child) && needs.has(done)) {
          waiting.add(child);
          queue.push(child);
        }
      }
    }
    if (top === reader) waiting.add(top);
    return waiting;
  }
}

function readsTranscript(template: string): boolean {
  return /\bloop\.transcript\b/.test(template);
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

// ---- formatting ---------------------------------------------------------------------------

/**
 * A small aligned table, one row per node and model, and the totals, e.g.
 * `worst case: 17 calls, ~9,800 tokens, $0.0031`. Unpriced models show as "no price".
 */
export function formatEstimate(e: RunEstimate): string {
  const header = ['node', 'model', 'calls', 'prompt', 'completion', 'cost'];
  const rows = e.byNode.map((r) => [
    r.phase ? `${r.node} (${r.phase})` : r.node,
    r.model,
    count(r.calls),
    count(r.promptTokens),
    count(r.completionTokens),
    r.costUsd === undefined ? 'no price' : usd(r.costUsd),
  ]);
  const table = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  const lines = table.map((row) =>
    row
      .map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
  const tokens = e.promptTokens + e.completionTokens;
  const priced = e.byNode.some((r) => r.costUsd !== undefined);
  const cost = [
    ...(priced || e.unpriced.length === 0 ? [usd(e.costUsd)] : []),
    ...(e.unpriced.length > 0 ? [`no price for ${e.unpriced.join(', ')}`] : []),
  ].join(' + ');
  const total = `worst case: ${count(e.calls)} ${e.calls === 1 ? 'call' : 'calls'}, ~${count(roughly(tokens))} tokens, ${cost}`;
  return [...lines, total].join('\n');
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** Rounded to hundreds from 1,000 up and to tens below: the figures are estimates. */
function roughly(n: number): number {
  const step = n >= 1000 ? 100 : 10;
  return Math.round(n / step) * step;
}

/** Dollars and cents from $1 up, two significant digits below: `$0.0031`, `$0.000026`. */
function usd(n: number): string {
  if (n === 0) return '$0';
  if (n >= 1) return `$${n.toFixed(2)}`;
  if (n < 0.000001) return '<$0.000001';
  return `$${Number(n.toPrecision(2)).toString()}`;
}
