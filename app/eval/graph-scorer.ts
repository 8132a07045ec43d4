/**
 * Scorers that are societies: `--scorer-graph DOC` (a document with inputs `prediction` and
 * `reference` and an output `score`) and the model scorers (`clip`, `bertscore`, `vit-distance`,
 * `text-cosine`, `image-cosine`), which are
 * a one-metric-node document of the metric node's matching kind. Each score is a run of that
 * document (not stored: the scored run is what the debugger opens), simulated when the eval is.
 */

import { readFileSync } from 'node:fs';
import { type CompiledGraph, compileGraph } from '../compiler/index.ts';
import { expertProviders } from '../experts/providers.ts';
import { loadNodeRegistry } from '../node-sdk/registry.ts';
import { BlobStore } from '../runtime/blobs.ts';
import { startRun } from '../runtime/run.ts';
import type { GraphDocument } from '../schema/document.ts';
import { MODEL_SCORERS, type Scorer } from './scorers.ts';
import type { ScorerSpec } from './types.ts';

/** The document a model scorer runs: prediction and reference into one metric node. */
export function modelScorerDocument(name: keyof typeof MODEL_SCORERS): GraphDocument {
  const kind = MODEL_SCORERS[name];
  // CLIP scores a picture against the text it should show; the others compare like with like.
  const [predictionPort, referencePort] =
    kind === 'clip-score' ? ['image', 'text'] : ['prediction', 'reference'];
  const textual = kind === 'text-similarity' || kind === 'bertscore';
  const modality = textual ? 'text' : 'image';
  return {
    version: 1,
    name: `${name} scorer`,
    nodes: [
      {
        id: 'prediction',
        type: 'input',
        position: { x: 0, y: 0 },
        data: { name: 'prediction', modality },
      },
      {
        id: 'reference',
        type: 'input',
        position: { x: 0, y: 150 },
        data: {
          name: 'reference',
          modality: kind === 'image-similarity' || kind === 'vit-distance' ? 'image' : 'text',
        },
      },
      { id: 'metric', type: 'metric', position: { x: 300, y: 60 }, data: { kind } },
      { id: 'score', type: 'output', position: { x: 600, y: 60 }, data: { name: 'score' } },
    ],
    edges: [
      {
        id: 'p',
        source: 'prediction',
        sourceHandle: 'value',
        target: 'metric',
        targetHandle: predictionPort,
      },
      {
        id: 'r',
        source: 'reference',
        sourceHandle: 'value',
        target: 'metric',
        targetHandle: referencePort,
      },
      { id: 's', source: 'metric', sourceHandle: 'score', target: 'score', targetHandle: 'value' },
    ],
  } as GraphDocument;
}

/** A scorer that runs a document per score. */
export async function graphScorer(
  spec: ScorerSpec,
  options: { simulate: boolean },
): Promise<Scorer> {
  const registry = await loadNodeRegistry();
  let source: unknown;
  let label: string;
  if (spec.graph !== undefined) {
    try {
      source = readFileSync(spec.graph, 'utf8');
    } catch (error) {
      throw new Error(
        `--scorer-graph: cannot read ${spec.graph} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      );
    }
    label = `the scorer document ${spec.graph}`;
  } else {
    source = modelScorerDocument(spec.name as keyof typeof MODEL_SCORERS);
    label = `the ${spec.name} scorer`;
  }
  const compiled = await compileGraph(source, registry);
  if (!compiled.ok)
    throw new Error(
      `${label}: ${compiled.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
    );
  checkScorerShape(compiled, label);
  return {
    name: spec.graph !== undefined ? 'graph' : spec.name,
    describe:
      spec.graph !== undefined
        ? `the score ${spec.graph} gives`
        : `the metric node's ${MODEL_SCORERS[spec.name as keyof typeof MODEL_SCORERS]}`,
    async score(prediction, reference, context) {
      const blobs = context.blobs ?? new BlobStore();
      const run = startRun(compiled, {
        experts: expertProviders,
        registry,
        inputs: { prediction, reference },
        blobs,
        simulate: options.simulate,
      });
      const result = await run.result;
      if (result.status !== 'succeeded')
        throw new Error(`${label}: ${result.error ?? result.status}`);
      const value = result.outputs.score;
      // A metric skipped for want of a token answers null: that is no score, not a 0.
      const inner =
        value !== null && typeof value === 'object' && 'score' in value
          ? (value as { score: unknown }).score
          : value;
      if (inner === null || inner === undefined || inner === '')
        throw new Error(`${label} gave no score (score: ${JSON.stringify(value ?? null)})`);
      const score = typeof inner === 'number' ? inner : Number(inner);
      if (!Number.isFinite(score))
        throw new Error(`${label} gave no number (score: ${JSON.stringify(value)})`);
      return score;
    },
  };
}

/** A scorer document takes `prediction` and `reference` and gives `score`. */
function checkScorerShape(compiled: CompiledGraph, label: string): void {
  const inputs = new Set<string>();
  const outputs = new Set<string>();
  for (const node of compiled.plan.nodes.values()) {
    const input = node.spec.runInput?.(node.data);
    if (input) inputs.add(input.name);
    const output = node.spec.runOutput?.(node.data);
    if (output) outputs.add(output.name);
  }
  const missing = ['prediction', 'reference'].filter((n) => !inputs.has(n));
  if (missing.length > 0 || !outputs.has('score'))
    throw new Error(
      `${label} must take the inputs prediction and reference and give the output score (it takes ${[...inputs].join(', ') || 'nothing'}, gives ${[...outputs].join(', ') || 'nothing'})`,
    );
}
