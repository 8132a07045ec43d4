/**
 * The control documents of `society eval --baselines`, generated from the society's compiled
 * document: the same run inputs and scored output, answered by one call of its strongest
 * member, by k samples of it and a vote, or by its members' own answers and a vote without
 * discussion. Every node is built through a node type's `baseline` hook
 * (app/node-sdk/baseline.ts), so no node type is named here.
 */
import type { GraphPlan, PlannedNode } from '../../compiler/analyze.ts';
import { DEFAULT_PRICES, priceFor } from '../../costs/prices.ts';
import type { BaselineHooks, BaselineNode } from '../../node-sdk/baseline.ts';
import type { NodeRegistry } from '../../node-sdk/registry.ts';
import { estimateTokens } from '../../providers/text.ts';

/** What the generator reads off the society once. */
export interface SocietyFacts {
  /** Its run input nodes as written (copied into every control document). */
  inputs: { id: string; name: string; modality: string; node: Record<string, unknown> }[];
  /** The output the eval scores. */
  output: string;
  /** How the node feeding that output reads its answer (e.g. `choice`), when it says. */
  parse?: string;
  /** The profiles of the members a vote without discussion polls; empty when none declares. */
  members: string[];
  /** The member one call and self-consistency ask: see `strongestProfile`. */
  strongest: string;
  /** Every model profile the document defines, copied so variants' `--model` still apply. */
  models: Record<string, unknown>;
}

/** The kinds of control document; `pilot` measures one plain call (not an arm). */
export type BaselineKind = 'pilot' | 'single' | 'self-consistency' | 'no-discussion';

type Hooks = BaselineHooks<unknown>;

/** The profiles a compiled node calls, its replicated copies' included (`{{ profile }}`). */
function profilesOf(node: PlannedNode): string[] {
  const models = node.spec.models?.(node.data) ?? [];
  return models.flatMap((model) => {
    const bound = /^\{\{\s*([\w.]+)\s*\}\}$/.exec(model);
    if (bound && node.replicate && bound[1] === node.replicate.as)
      return node.replicate.items.filter((i): i is string => typeof i === 'string');
    return [model];
  });
}

/**
 * The strongest of `profiles`: the one whose model costs most per token (input and output
 * price per million added up, from the built-in price table), the first among equals; when
 * none has a price, the first. A rule about price, not about skill: `--baseline-model` names
 * another.
 */
export function strongestProfile(
  profiles: readonly string[],
  models: Readonly<Record<string, unknown>>,
): string | undefined {
  let best: string | undefined;
  let bestPrice = -1;
  for (const profile of profiles) {
    const model = (models[profile] as { model?: unknown } | undefined)?.model;
    const price = typeof model === 'string' ? priceFor(DEFAULT_PRICES, model) : undefined;
    const perToken = price ? price.inputPerMillion + price.outputPerMillion : -1;
    if (best === undefined || perToken > bestPrice) {
      best = profile;
      bestPrice = perToken;
    }
  }
  return best;
}

/** Reads the facts off the compiled society; `output` is the scored output (else the first). */
export function societyFacts(
  plan: GraphPlan,
  options: { output?: string; model?: string },
): SocietyFacts {
  const nodes = [...plan.nodes.values()];
  const raw = new Map(
    (plan.doc.nodes as unknown as Record<string, unknown>[]).map((n) => [String(n.id), n]),
  );
  const inputs = nodes.flatMap((n) => {
    const input = n.spec.runInput?.(n.data);
    if (!input) return [];
    const { parentId: _parent, ...node } = raw.get(n.id) ?? {};
    return [{ id: n.id, name: input.name, modality: String(input.modality), node }];
  });
  const outputs = nodes.flatMap((n) => {
    const out = n.spec.runOutput?.(n.data);
    return out ? [{ id: n.id, name: out.name }] : [];
  });
  const scored = outputs.find((o) => o.name === options.output) ?? outputs[0];
  if (!scored) throw new Error('the society has no run output to score');
  const feeder = plan.doc.edges.find((e) => e.target === scored.id);
  const feederData = feeder ? plan.nodes.get(feeder.source)?.data : undefined;
  const parse = typeof feederData?.parse === 'string' ? feederData.parse : undefined;
  const members = nodes
    .flatMap((n) => (n.spec.baseline as Hooks | undefined)?.members?.(n.data) ?? [])
    .flatMap((id) => {
      const node = plan.nodes.get(id);
      return node ? profilesOf(node) : [];
    });
  const models = (plan.doc.models ?? {}) as Record<string, unknown>;
  const all = [...new Set(nodes.flatMap(profilesOf))];
  const strongest = options.model ?? strongestProfile(members.length ? members : all, models);
  if (strongest === undefined) throw new Error('the society calls no model');
  if (!Object.hasOwn(models, strongest))
    throw new Error(
      `--baseline-model ${strongest}: the document has no model profile "${strongest}" (profiles: ${Object.keys(models).join(', ')})`,
    );
  return {
    inputs,
    output: scored.name,
    ...(parse !== undefined ? { parse } : {}),
    members,
    strongest,
    models,
  };
}

/** The sizes a control document is generated at (chosen by ./budget.ts). */
export interface BaselineSize {
  /** `single`: completion tokens its one call may spend. */
  maxTokens?: number;
  /** `self-consistency` and `no-discussion`: how many answers are voted on. */
  answers?: number;
}

const PLAIN = 'Reply with the answer only.';
const REASONED =
  'Think it through step by step, as long as it helps. Then write the answer alone on the last line.';

/**
 * How many more prompt tokens the single call's request to reason costs than a plain call's
 * (the pilot measures a plain call): taken off what the single call may write.
 */
export const REASONING_EXTRA_TOKENS = Math.max(0, estimateTokens(REASONED) - estimateTokens(PLAIN));

/** The temperature of sampled answers: identical samples would make voting pointless. */
export const SAMPLE_TEMPERATURE = 0.7;

/** The document of `kind` at `size`, as plain JSON (a `*.society.json`). */
export function baselineDocument(
  facts: SocietyFacts,
  kind: BaselineKind,
  size: BaselineSize,
  registry: NodeRegistry,
  name: string,
): Record<string, unknown> {
  const hook = <K extends keyof Hooks>(key: K) => {
    for (const [type, spec] of registry.specs) {
      const found = (spec.baseline as Hooks | undefined)?.[key];
      if (found) return { type, make: found as NonNullable<Hooks[K]> };
    }
    throw new Error(`no node type offers the baseline hook "${key}"`);
  };
  const text = facts.inputs.filter((i) => i.modality === 'text');
  const image = facts.inputs.find((i) => i.modality === 'image');
  const asked =
    text.length === 1
      ? `{{ ${text[0]!.name} }}`
      : text.map((i) => `${i.name}: {{ ${i.name} }}`).join('\n');
  const plain = `Answer this question.\n${asked}\n${PLAIN}`;
  const reasoned = `Answer this question.\n${asked}\n${REASONED}`;
  const nodes: Record<string, unknown>[] = [];
  const edges: Record<string, unknown>[] = [];
  let y = 0;
  for (const input of facts.inputs) {
    nodes.push({ ...input.node, position: { x: 0, y } });
    y += 160;
  }
  const place = (id: string, x: number, made: { type: string; node: BaselineNode }) => {
    nodes.push({ id, type: made.type, position: { x, y: 0 }, data: made.node.data });
    return made.node;
  };
  const wire = (source: string, sourceHandle: string, target: string, targetHandle: string) =>
    edges.push({
      id: `${source}-${target}-${targetHandle}`,
      source,
      sourceHandle,
      target,
      targetHandle,
    });
  const answerHook = hook('answer');
  const copies =
    kind === 'self-consistency'
      ? Array.from({ length: size.answers ?? 1 }, () => facts.strongest)
      : kind === 'no-discussion'
        ? Array.from(
            { length: size.answers ?? facts.members.length },
            (_, i) => facts.members[i % facts.members.length]!,
          )
        : undefined;
  const answer = place('answer-call', 300, {
    type: answerHook.type,
    node: answerHook.make({
      prompt: kind === 'single' ? reasoned : plain,
      profile: facts.strongest,
      vision: image !== undefined,
      ...(kind === 'single' && size.maxTokens !== undefined ? { maxTokens: size.maxTokens } : {}),
      ...(copies ? { copies, temperature: SAMPLE_TEMPERATURE } : {}),
      ...(kind !== 'single' && facts.parse !== undefined ? { parse: facts.parse } : {}),
    }),
  });
  for (const input of text) wire(input.id, 'value', 'answer-call', input.name);
  if (image && answer.input) wire(image.id, 'value', 'answer-call', answer.input);
  let last = { id: 'answer-call', port: answer.output };
  if (copies) {
    const tally = hook('tally');
    const made = place('majority', 600, { type: tally.type, node: tally.make() });
    wire('answer-call', answer.output, 'majority', made.input ?? 'ballots');
    last = { id: 'majority', port: made.output };
  } else if (kind === 'single') {
    const line = hook('lastLine');
    const made = place('final-line', 600, { type: line.type, node: line.make() });
    wire('answer-call', answer.output, 'final-line', made.input ?? 'text');
    last = { id: 'final-line', port: made.output };
  }
  const outputType = [...registry.specs].find(([, s]) => s.makeRunOutput)?.[0];
  const outputSpec = outputType ? registry.get(outputType) : undefined;
  if (!outputType || !outputSpec?.makeRunOutput) throw new Error('no node type makes a run output');
  nodes.push({
    id: 'scored',
    type: outputType,
    position: { x: 900, y: 0 },
    data: outputSpec.makeRunOutput(facts.output),
  });
  wire(last.id, last.port, 'scored', 'value');
  return { version: 1, name, description: DESCRIPTIONS[kind], models: facts.models, nodes, edges };
}

const DESCRIPTIONS: Record<BaselineKind, string> = {
  pilot:
    "A budget-matched baseline's pilot: one plain call of the society's strongest member, to measure what one call costs.",
  single:
    "A budget-matched baseline: one call of the society's strongest member, allowed the society's mean tokens per item, reasoning before it answers.",
  'self-consistency':
    "A budget-matched baseline: samples of the society's strongest member and a plurality vote, as many as the society's mean budget per item pays for.",
  'no-discussion':
    "A budget-matched baseline: the society's members answer on their own, without rounds of discussion, and a plurality vote decides; as many answers as the society's mean budget per item pays for.",
};
