/**
 * The sizes an estimate works with, over a compiled plan: the copies and rounds of every node,
 * what flows along each edge and through each transcript, and the templates nodes send, rendered
 * with what is known before the run. `estimateRun` walks the plan with it; every node type's
 * estimate hooks are offered its methods (`EstimatePlan`).
 */
import {
  ancestors,
  descendants,
  type GraphPlan,
  type InputBinding,
  type PlannedNode,
  scopeDependencies,
  topInScope,
} from '../compiler/analyze.ts';
import type {
  EstimateContext,
  EstimatePlan,
  EstimatePoint,
  LoopEffect,
} from '../node-sdk/estimate.ts';
import { documentRenderer, TemplateError, templateIndexes } from '../node-sdk/template.ts';
import { estimateTokens } from '../providers/text.ts';
import { isImageValue } from '../schema/blob-refs.ts';
import type { ModelProfile, Stage } from '../schema/document.ts';
import { withParamVars } from '../schema/params.ts';
import type { EstimateOptions } from './estimate.ts';
import { DEFAULT_MAX_TOKENS } from './prices.ts';

/** Tokens a transcript line adds around its text: `Round 3, member#2@r3: `. */
const TRANSCRIPT_ENTRY_TOKENS = 8;
const STAGE_ORDER: Record<Stage, number> = { init: 0, round: 1, gather: 2, decide: 3 };

/** Sizes over a plan: what every hook is offered (`EstimatePlan`), with memoised results. */
export class PlanSizes implements EstimatePlan {
  readonly #plan: GraphPlan;
  readonly #options: EstimateOptions;
  readonly #sizes = new Map<string, number>();
  readonly #visiting = new Set<string>();
  readonly #copies = new Map<string, Array<Record<string, unknown>>>();
  readonly #templates = new Map<string, number>();
  /** `templateUses` by template and input: parsed once, not once per copy. */
  readonly #uses = new Map<string, Array<string | undefined>>();
  /** `#readShare` by node and the indexes its template reads an input by. */
  readonly #shares = new Map<string, number>();
  readonly #senders = new Map<string, string[]>();
  readonly #deps = new Map<string, Map<string, Set<string>>>();
  readonly #effects = new Map<string, LoopEffect>();
  /** Templates render within small limits here: an estimate must not wait on a slow one. */
  readonly #reading = documentRenderer();

  constructor(plan: GraphPlan, options: EstimateOptions) {
    this.#plan = plan;
    this.#options = options;
  }

  // ---- structure ------------------------------------------------------------------------

  #node(id: string): PlannedNode {
    return this.#plan.nodes.get(id)!;
  }

  #isLoop(id: string): boolean {
    return this.#node(id).container === 'loop';
  }

  #maxRounds(loop: string): number {
    const node = this.#node(loop);
    return node.spec.loop?.maxRounds(node.data) ?? 1;
  }

  /** The innermost loop around a node. */
  #loopOf(id: string): string | undefined {
    return ancestors(this.#plan.nodes, id).find((a) => this.#isLoop(a));
  }

  /** The stage a node runs at in a loop: that of its ancestor-or-self directly inside it. */
  #stageIn(id: string, loop: string): Stage {
    return this.#node(topInScope(this.#plan.nodes, id, loop) ?? id).stage;
  }

  /** How often the loops beyond the innermost one repeat a node (max rounds for `round`). */
  outerFactor(id: string): number {
    const loops = ancestors(this.#plan.nodes, id).filter((a) => this.#isLoop(a));
    let factor = 1;
    for (const loop of loops.slice(1)) {
      if (this.#stageIn(id, loop) === 'round') factor *= this.#maxRounds(loop);
    }
    return factor;
  }

  /** The node's executions within its innermost loop (one outside any loop). */
  executions(id: string): EstimatePoint[] {
    const loop = this.#loopOf(id);
    if (!loop) return [{ stage: 'round', round: 1 }];
    const stage = this.#stageIn(id, loop);
    const rounds = this.#maxRounds(loop);
    if (stage !== 'round') return [{ stage, round: rounds }];
    return Array.from({ length: rounds }, (_, i) => ({ stage, round: i + 1 }));
  }

  /** How the innermost loop changes a node's calls, from the loop's spec. */
  effect(id: string): LoopEffect {
    const known = this.#effects.get(id);
    if (known) return known;
    const loop = this.#loopOf(id);
    const spec = loop ? this.#node(loop).spec.loop : undefined;
    const effect =
      loop && spec?.effect && this.#node(id).scope === loop
        ? spec.effect(this.#node(loop).data, id, Object.assign(this.#view(), { loop }))
        : {};
    this.#effects.set(id, effect);
    return effect;
  }

  /** What a node's own hooks get. */
  context(node: PlannedNode): EstimateContext {
    const loop = this.#loopOf(node.id);
    const at: EstimatePoint = loop
      ? { stage: this.#stageIn(node.id, loop), round: this.#maxRounds(loop) }
      : { stage: 'round', round: 1 };
    return Object.assign(this.#view(), {
      node: node.id,
      data: node.data,
      ...(loop ? { loop } : {}),
      at,
    });
  }

  /** This object's `EstimatePlan` methods, bound, for spreading into hook contexts. */
  #view(): EstimatePlan {
    return {
      tokens: (text) => this.tokens(text),
      render: (template, vars) => this.render(template, vars),
      nodeData: (id) => this.nodeData(id),
      copies: (id) => this.copies(id),
      inputTokens: (id, textOnly) => this.inputTokens(id, textOnly),
      templateTokens: (id, template, vars) => this.templateTokens(id, template, vars),
      connected: (id, port) => this.connected(id, port),
      copiesWithin: (id, loop) => this.copiesWithin(id, loop),
      maxCompletion: (id) => this.maxCompletion(id),
      answerTokens: (id) => this.answerTokens(id),
      outputTokens: (id, port) => this.outputTokens(id, port),
      transcriptTokens: (loop, reader, at) => this.transcriptTokens(loop, reader, at),
      readsTranscript: (template) => this.readsTranscript(template),
      given: (name, fallback, image) => this.given(name, fallback, image),
      portTokens: (id, port) => this.portTokens(id, port),
      answerLength: (maxTokens) => this.answerLength(maxTokens),
      knownInput: (id, port) => this.knownInput(id, port),
      knownInputLength: (id, port) => this.knownInputLength(id, port),
    };
  }

  tokens(text: string): number {
    return estimateTokens(text);
  }

  nodeData(id: string): Record<string, unknown> {
    return this.#node(id).data;
  }

  /**
   * The template variables of each copy of a node: one per combination of the items of its
   * replicated ancestors (outermost first) and its own, as the runtime binds them.
   */
  copies(id: string): Array<Record<string, unknown>> {
    const known = this.#copies.get(id);
    if (known) return known;
    const replications = [id, ...ancestors(this.#plan.nodes, id)]
      .reverse()
      .flatMap((a) => this.#node(a).replicate ?? []);
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
    this.#copies.set(id, copies);
    return copies;
  }

  /** Copies of a node per execution of a loop: replications between the node and the loop. */
  copiesWithin(id: string, loop: string): number {
    let count = 1;
    for (const a of [id, ...ancestors(this.#plan.nodes, id)]) {
      if (a === loop) break;
      count *= this.#node(a).replicate?.items.length ?? 1;
    }
    return count;
  }

  /** A template rendered with the given variables (inputs render empty); as written on failure. */
  render(template: string, vars: Record<string, unknown>): string {
    return this.#reading(template, withParamVars(vars, this.#plan.params)) ?? template;
  }

  readsTranscript(template: string): boolean {
    return /\bloop\.transcript\b/.test(template);
  }

  // ---- models ---------------------------------------------------------------------------

  profileName(node: PlannedNode, vars: Record<string, unknown>): string {
    const name = node.spec.models?.(node.data)[0] ?? '';
    return name.includes('{{') ? this.render(name, vars).trim() : name;
  }

  profile(node: PlannedNode, vars: Record<string, unknown>): ModelProfile | undefined {
    const profiles = this.#plan.doc.models ?? {};
    const name = this.profileName(node, vars);
    return Object.hasOwn(profiles, name) ? profiles[name] : undefined;
  }

  /** A call's completion tokens: the node's `maxTokens`, its profile's, or the default. */
  completion(node: PlannedNode, vars: Record<string, unknown>): number {
    const own = node.data.maxTokens;
    return this.answerLength(
      typeof own === 'number'
        ? own
        : (this.profile(node, vars)?.maxTokens ??
            this.#options.defaultMaxTokens ??
            DEFAULT_MAX_TOKENS),
    );
  }

  answerLength(maxTokens: number): number {
    return Math.ceil(maxTokens * (this.#options.answerShare ?? 1));
  }

  maxCompletion(id: string): number {
    const node = this.#node(id);
    return Math.max(...this.copies(id).map((b) => this.completion(node, b)));
  }

  answerTokens(id: string): number {
    return Math.max(this.maxCompletion(id), this.effect(id).answerTokens ?? 0);
  }

  // ---- sizes of values ------------------------------------------------------------------

  inputTokens(id: string, textOnly = false): number {
    const node = this.#node(id);
    let tokens = 0;
    for (const bindings of Object.values(node.inputs)) {
      for (const b of bindings) {
        if (textOnly && b.modality.includes('image')) continue;
        tokens += this.#delivered(b, node);
      }
    }
    return tokens;
  }

  portTokens(id: string, port: string): number {
    const node = this.#node(id);
    return sum((node.inputs[port] ?? []).map((b) => this.#delivered(b, node)));
  }

  knownInput(id: string, port: string): unknown {
    const binding = this.#node(id).inputs[port]?.[0];
    if (!binding) return undefined;
    const source = this.#node(binding.source);
    return source.spec.knownOutput?.(source.data, binding.sourcePort);
  }

  knownInputLength(id: string, port: string): number | undefined {
    const binding = this.#node(id).inputs[port]?.[0];
    if (!binding) return undefined;
    const source = this.#node(binding.source);
    return source.spec.knownLength?.(source.data, binding.sourcePort);
  }

  connected(id: string, port: string): boolean {
    return (this.#node(id).inputs[port] ?? []).length > 0;
  }

  /**
   * Tokens a consumer receives over an edge: the source's output, once per element when
   * replication between the two (or `collect: all`) turns it into a list.
   */
  #delivered(b: InputBinding, target: PlannedNode): number {
    return this.#elements(b, target) * this.outputTokens(b.source, b.sourcePort);
  }

  /** How many of the source's values one copy of the consumer receives over an edge. */
  #elements(b: InputBinding, target: PlannedNode): number {
    const targetSide = new Set([target.id, ...ancestors(this.#plan.nodes, target.id)]);
    let count = 1;
    for (const id of [b.source, ...ancestors(this.#plan.nodes, b.source)]) {
      if (targetSide.has(id)) break;
      if (b.collectLoop === id) count *= this.#maxRounds(id);
      count *= this.#node(id).replicate?.items.length ?? 1;
    }
    return count;
  }

  /** The value one copy of a node receives at an edge, when its source knows or samples it. */
  #sampleInput(b: InputBinding, target: PlannedNode): unknown {
    if (this.#elements(b, target) !== 1) return undefined;
    const source = this.#node(b.source);
    return (
      source.spec.knownOutput?.(source.data, b.sourcePort) ??
      source.spec.sampleOutput?.(source.data, b.sourcePort)
    );
  }

  templateTokens(id: string, template: string, vars: Record<string, unknown>): number {
    // A node's template is the same at every execution: render it once per copy.
    const key = `${id}\u0000${template}\u0000${JSON.stringify(vars)}`;
    const known = this.#templates.get(key);
    if (known !== undefined) return known;
    const tokens = this.#templateTokens(id, template, vars);
    this.#templates.set(key, tokens);
    return tokens;
  }

  #templateUses(template: string, port: string): Array<string | undefined> {
    const key = `${port}\u0000${template}`;
    let uses = this.#uses.get(key);
    if (!uses) {
      uses = templateUses(template, port);
      this.#uses.set(key, uses);
    }
    return uses;
  }

  #templateTokens(id: string, template: string, vars: Record<string, unknown>): number {
    const node = this.#node(id);
    const bound: Record<string, unknown> = {};
    let tokens = 0;
    for (const [port, bindings] of Object.entries(node.inputs)) {
      const uses = this.#templateUses(template, port);
      const sample =
        bindings.length === 1 && uses.length > 0
          ? this.#sampleInput(bindings[0]!, node)
          : undefined;
      if (sample !== undefined) bound[port] = sample;
      else tokens += Math.ceil(this.portTokens(id, port) / this.#readShare(id, uses));
    }
    return tokens + this.tokens(this.render(template, { ...vars, ...bound }));
  }

  /**
   * One over the share of an input a template reads: the number of items of the node's copies
   * when every use of the input is indexed by the copy's item (`scores[agent]`), else 1.
   */
  #readShare(id: string, uses: Array<string | undefined>): number {
    if (uses.length === 0) return 1;
    // The same for every copy of the node: counted once, not once per copy (a node of a
    // thousand copies would otherwise compare a thousand items a thousand times).
    const key = `${id}\u0000${uses.map((u) => u ?? '').join('\u0000')}`;
    const known = this.#shares.get(key);
    if (known !== undefined) return known;
    const share = this.#countShare(id, uses);
    this.#shares.set(key, share);
    return share;
  }

  #countShare(id: string, uses: Array<string | undefined>): number {
    const copies = this.copies(id);
    let share = Number.POSITIVE_INFINITY;
    for (const index of uses) {
      if (index === undefined || index === 'replica' || !(index in (copies[0] ?? {}))) return 1;
      share = Math.min(share, new Set(copies.map((c) => JSON.stringify(c[index]))).size);
    }
    return share;
  }

  outputTokens(id: string, port: string): number {
    const key = `${id}.${port}`;
    const known = this.#sizes.get(key);
    if (known !== undefined) return known;
    // A value that depends on itself (through a transcript or a previous-round edge) adds
    // nothing more than its other sources.
    if (this.#visiting.has(key)) return 0;
    this.#visiting.add(key);
    const node = this.#node(id);
    let size: number;
    if (node.spec.outputTokens) size = node.spec.outputTokens(this.context(node), port);
    else if ((node.spec.callsPerRun?.(node.data) ?? 0) > 0) size = this.answerTokens(id);
    else size = this.inputTokens(id);
    this.#visiting.delete(key);
    this.#sizes.set(key, size);
    return size;
  }

  given(name: string, fallback: unknown, image: boolean): number {
    const value = this.#options.inputs?.[name] ?? fallback;
    if (value !== undefined) return this.#valueTokens(value);
    return image ? (this.#options.imageTokens ?? 0) : (this.#options.defaultInputTokens ?? 0);
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
        (id) => this.#node(id).spec.sendsMessage === true && this.#loopOf(id) === loop,
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
  transcriptTokens(loop: string, reader: string | undefined, at: EstimatePoint): number {
    const rounds = this.#maxRounds(loop);
    const later = reader ? this.#waitingFor(loop, reader) : new Set<string>();
    let tokens = 0;
    for (const sender of this.#sendersOf(loop)) {
      if (this.effect(sender).replaced) continue;
      const top = topInScope(this.#plan.nodes, sender, loop) ?? sender;
      const stage = this.#node(top).stage;
      const current = later.has(top) ? 0 : 1;
      let executions = 0;
      if (STAGE_ORDER[stage] < STAGE_ORDER[at.stage]) {
        executions = stage === 'round' ? rounds : 1;
      } else if (stage === at.stage) {
        executions = stage === 'round' ? at.round - 1 + current : current;
      }
      if (executions === 0) continue;
      const node = this.#node(sender);
      const size = this.outputTokens(sender, node.ports.outputs[0]?.name ?? 'text');
      tokens += executions * this.copiesWithin(sender, loop) * (size + TRANSCRIPT_ENTRY_TOKENS);
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

/** Where a template reads an input (see `templateIndexes`); nowhere when it does not parse. */
function templateUses(template: string, name: string): Array<string | undefined> {
  try {
    return templateIndexes(template, name);
  } catch (error) {
    if (error instanceof TemplateError) return [];
    throw error;
  }
}

export function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
