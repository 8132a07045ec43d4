/**
 * `society openagi eval [TASKS]`: every task's scored graph (the one `society openagi build`
 * writes) runs as an eval item on a sample built for it, and its own metric node's score is the
 * item's score. The table is OpenAGI's Table 1 for one planner: the CLIP, BERT and ViT scores
 * (each over the categories the paper scores with it) and their average.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compileGraph } from '../../../compiler/index.ts';
import { evalIdentity } from '../../../eval/identity.ts';
import { jobBlobs, jobKeyOf } from '../../../eval/job.ts';
import type { PlannedJob } from '../../../eval/runner.ts';
import type { Scorer } from '../../../eval/scorers.ts';
import type { EvalConfig, VariantSpec } from '../../../eval/types.ts';
import {
  type PlannerModel,
  parsePlannerModel,
  selectTasks,
  taskGraph,
} from '../../../experts/benchmark.ts';
import { SAMPLE_TASK_LINES, taskSample } from '../../../experts/benchmark-samples.ts';
import { type OpenAgiTask, parseTaskFile } from '../../../experts/openagi.ts';
import { loadNodeRegistry } from '../../../node-sdk/registry.ts';
import { canonicalJson, sha256Hex } from '../../../providers/canonical.ts';
import { documentTextOf } from '../../../runs/record.ts';
import { BlobStore } from '../../../runtime/blobs.ts';
import { formatProblem } from '../../../schema/problems.ts';
import { UsageError } from '../../errors.ts';
import type { EvalRunFlags } from '../eval/eval.ts';
import { positiveInt, runPlannedEval } from '../eval/eval.ts';
import { parseIds } from './build.ts';
import { OPENAGI_TABLE1, type OpenAgiTableContext } from './table-presenter.ts';
import { formatTable1, table1 } from './table1.ts';
import { readTasks } from './task-file.ts';

/** The clean picture each task's sample is made from (a "22" on a grey field). */
const SAMPLE_PICTURE = fileURLToPath(
  new URL('../../../../templates/openagi.example.png', import.meta.url),
);

export interface OpenAgiEvalFlags extends EvalRunFlags {
  model?: string;
  category?: string;
  ids?: string;
  limit?: string;
  concurrency?: string;
  simulate?: boolean;
  json?: boolean;
  db?: string;
  quiet?: boolean;
}

/** The graph's own metric node scored the answer: its `score` output is the item's score. */
const metricNodeScorer: Scorer = {
  name: 'metric-node',
  describe: "the task graph's metric node (CLIP, BERT or ViT score by category)",
  score: (prediction) => {
    // A skipped metric gives null: no score, not 0 (Number(null) would make it one).
    if (prediction === null || prediction === undefined || prediction === '')
      throw new Error('the metric node gave no score (it was skipped: its run says why)');
    const n = typeof prediction === 'number' ? prediction : Number(prediction);
    if (!Number.isFinite(n)) throw new Error(`the metric gave no number (${String(prediction)})`);
    return n;
  },
};

/** Runs the eval; resolves to the exit code. */
export async function openAgiEvalCommand(
  file: string | undefined,
  flags: OpenAgiEvalFlags,
): Promise<number> {
  let model: PlannerModel | undefined;
  if (flags.model !== undefined) {
    try {
      model = parsePlannerModel(flags.model);
    } catch (error) {
      throw new UsageError(`--model: ${(error as Error).message}`);
    }
  }
  const limit = positiveInt(flags.limit, '--limit');
  const concurrency = positiveInt(flags.concurrency, '--concurrency') ?? 4;
  const ids = flags.ids === undefined ? undefined : parseIds(flags.ids);
  const source = file ?? 'built-in sample tasks (one per category)';
  const { tasks } = file ? readTasks(file) : parseTaskFile(SAMPLE_TASK_LINES.join('\n'));
  let selected: OpenAgiTask[];
  try {
    selected = selectTasks(tasks, {
      ...(flags.category !== undefined ? { category: flags.category } : {}),
      ...(ids ? { ids } : {}),
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  selected = selected.slice(0, limit ?? selected.length);
  if (selected.length === 0) throw new UsageError('no task matches --category and --ids');

  const registry = await loadNodeRegistry();
  const picture = readFileSync(SAMPLE_PICTURE);
  const planner = model ? `${model.provider}:${model.model}` : 'rule planner';
  const variant: VariantSpec = {
    name: model ? model.model.replace(/[^\w.-]+/g, '-').slice(0, 40) : 'rule-planner',
    model: flags.model ? [flags.model] : [],
    set: [],
    provider: [],
  };
  const mode: EvalConfig['mode'] = flags.simulate ? 'simulated' : 'live';
  const graphs: Array<{ task: OpenAgiTask; text: string; hash: string }> = [];
  for (const task of selected) {
    const compiled = await compileGraph(taskGraph(task, model ? { model } : {}), registry);
    if (!compiled.ok)
      throw new Error(
        `task ${task.id} made an invalid graph: ${compiled.problems.map(formatProblem).join('; ')}`,
      );
    const text = documentTextOf(compiled);
    graphs.push({ task, text, hash: sha256Hex(text) });
  }
  const documentHash = sha256Hex(graphs.map((g) => g.hash).join('\n'));
  const plan: PlannedJob[] = [];
  for (const [item, { task, text, hash }] of graphs.entries()) {
    const blobs = new BlobStore();
    const sample = await taskSample(task, picture);
    const value = (v: string | { png: Uint8Array }) =>
      typeof v === 'string' ? v : blobs.put(v.png, 'image/png');
    const inputs: Record<string, unknown> = { reference: value(sample.reference) };
    for (const [name, v] of Object.entries(sample.inputs)) inputs[name] = value(v);
    plan.push({
      job: {
        evalId: '',
        item,
        variant: variant.name,
        jobKey: jobKeyOf(hash, item, variant.name),
        documentText: text,
        inputs,
        blobs: jobBlobs(inputs, blobs),
        mode,
      },
      row: { id: task.id, category: task.category, task: task.description },
      label: `task ${task.id} (${task.category}): ${task.target}`,
      output: 'score',
    });
  }
  // The samples are data: a changed sample is another eval.
  const dataHash = sha256Hex(canonicalJson(plan.map((p) => p.job.inputs)));
  const tableContext: OpenAgiTableContext = {
    planner,
    tasks: graphs.length,
    categories: graphs.map((g) => g.task.category),
  };
  const config: EvalConfig = {
    name: `OpenAGI Table 1 · ${planner}`,
    document: `${graphs.length} task graph${graphs.length === 1 ? '' : 's'} (society openagi build)`,
    documentHash,
    data: source,
    dataHash,
    map: ['one sample per task: the sample picture and sentences, degraded as the task says'],
    output: 'score',
    scorer: { name: metricNodeScorer.name },
    variants: [variant],
    ...(limit !== undefined ? { limit } : {}),
    mode,
    table: { kind: OPENAGI_TABLE1, context: tableContext },
  };
  const evalId = evalIdentity({ documentHash, dataHash, variant, limit: limit ?? null, mode });

  for (const planned of plan) planned.job.evalId = evalId;
  const categoryOf = new Map(graphs.map((g, item) => [item, g.task.category]));
  if (!flags.quiet)
    process.stderr.write(
      `inputs: one sample per task, built from the sample picture and sentences (OpenAGI's 100 samples per task are not shipped), so a score is this planner on that sample${file ? '' : `; tasks: ${source} — pass OpenAGI's task_description.txt for the 185`}\n`,
    );
  return runPlannedEval({
    config,
    evalId,
    plan,
    prepared: [{ spec: variant }],
    rows: graphs.length,
    flags,
    concurrency,
    scorer: metricNodeScorer,
    present: {
      text: (summary, items) =>
        formatTable1(table1(items, categoryOf), planner, {
          simulated: summary.simulated,
          tasks: graphs.length,
        }),
      json: (summary, items) => ({ ...summary, planner, table1: table1(items, categoryOf) }),
    },
  });
}
