/**
 * `society openagi eval [TASKS]`: every task's scored graph (the one `society openagi build`
 * writes) runs as an eval item on each of its samples — OpenAGI's own data with `--data DIR`,
 * else one sample built per task — and its own metric node's score is the item's score. The
 * table is OpenAGI's Table 1, one column per planner preset: the CLIP, BERT and ViT scores
 * (each over the categories the paper scores with it) and their average, beside the paper's.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
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
import {
  type DataValue,
  OPENAGI_PAPER_SPLIT,
  OpenAgiDataError,
  readOpenAgiData,
} from '../../../experts/openagi-data.ts';
import type { PlannerProtocol } from '../../../experts/paper-planner.ts';
import { loadNodeRegistry } from '../../../node-sdk/registry.ts';
import {
  inferPaperColumn,
  PAPER_COLUMNS,
  paperColumn,
} from '../../../paper-tables/openagi/paper-values.ts';
import {
  invalidPlanOf,
  OPENAGI_TABLE1,
  type OpenAgiTableContext,
  openAgiTables,
  openAgiText,
} from '../../../paper-tables/openagi/table-presenter.ts';
import type { ItemTask } from '../../../paper-tables/openagi/table1.ts';
import { canonicalJson, sha256Hex } from '../../../providers/canonical.ts';
import { documentTextOf } from '../../../runs/record.ts';
import { BlobStore } from '../../../runtime/blobs.ts';
import { formatProblem } from '../../../schema/problems.ts';
import { UsageError } from '../../errors.ts';
import { parseProviders } from '../../provider-flags.ts';
import type { EvalRunFlags } from '../eval/eval.ts';
import { positiveInt, runPlannedEval } from '../eval/eval.ts';
import { parseIds } from './build.ts';
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
  data?: string;
  split?: string;
  samples?: string;
  planner?: string;
  paperColumn?: string;
  provider?: string[];
}

/** `--planner` presets and the planner protocol each stands for. */
const PLANNER_PRESETS: Record<string, PlannerProtocol> = {
  schema: 'schema',
  'paper-zero-shot': 'paper-zero-shot',
  'few-shot': 'paper-few-shot',
};

/**
 * A variant's name as `society eval` spells them (up to 40 letters, digits, dots, dashes or
 * underscores): the model, then the preset when there are several or it is not the default.
 */
function variantName(model: PlannerModel | undefined, preset: string | undefined): string {
  const suffix = preset === undefined ? '' : `_${preset}`;
  const base = model ? model.model.replace(/[^\w.-]+/g, '-') : 'rule-planner';
  return `${base.slice(0, 40 - suffix.length)}${suffix}`;
}

/**
 * The graph's own metric node scored the answer: its `score` output is the item's score. Under
 * the paper's protocols an invalid plan scores 0, as OpenAGI's code scores it; the table reads
 * the reason (and each item's metric definition) from the run.
 */
const metricNodeScorer: Scorer = {
  name: 'metric-node',
  describe: "the task graph's metric node (CLIP, BERT or ViT score by category)",
  score: (prediction, _reference, context) => {
    if (invalidPlanOf(context.outputs) !== undefined) return 0;
    // A skipped metric gives null: no score, not 0 (Number(null) would make it one).
    if (prediction === null || prediction === undefined || prediction === '')
      throw new Error('the metric node gave no score (it was skipped: its run says why)');
    const n = typeof prediction === 'number' ? prediction : Number(prediction);
    if (!Number.isFinite(n)) throw new Error(`the metric gave no number (${String(prediction)})`);
    return n;
  },
};

/** The task ids `--split` names: `paper` (OpenAGI's test list), `folder` (every task folder). */
function splitIds(split: string, data: string): number[] | undefined {
  if (split === 'paper') return [...OPENAGI_PAPER_SPLIT.ids];
  if (split === 'folder') {
    const ids = readdirSync(data)
      .filter((n) => /^\d+$/.test(n))
      .map(Number)
      .sort((a, b) => a - b);
    if (ids.length === 0)
      throw new UsageError(`--split folder: ${data} has no task folders (0, 1, …)`);
    return ids;
  }
  if (split === 'all') return undefined;
  throw new UsageError(`--split: expected paper, folder or all, got "${split}"`);
}

/** The task file: the argument, else `task_description.txt` in the data folder, else the samples. */
function taskSource(file: string | undefined, data: string | undefined) {
  if (file) return { source: file, ...readTasks(file) };
  if (data) {
    const inData = join(data, 'task_description.txt');
    if (!existsSync(inData))
      throw new UsageError(
        `${inData}: missing (OpenAGI's data folder holds it; or give the task file as the argument)`,
      );
    return { source: inData, ...readTasks(inData) };
  }
  return {
    source: 'built-in sample tasks (one per category)',
    ...parseTaskFile(SAMPLE_TASK_LINES.join('\n')),
  };
}

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
  const planners = (flags.planner ?? 'schema').split(',').map((p) => p.trim());
  for (const p of planners)
    if (!(p in PLANNER_PRESETS))
      throw new UsageError(
        `--planner: unknown preset "${p}"; presets: ${Object.keys(PLANNER_PRESETS).join(', ')}`,
      );
  if (new Set(planners).size !== planners.length)
    throw new UsageError('--planner: a preset is given twice');
  if (!model && planners.some((p) => p !== 'schema'))
    throw new UsageError('--planner: the paper presets plan with a model; give --model');
  const columnsGiven = flags.paperColumn?.split(',').map((c) => c.trim());
  if (columnsGiven && columnsGiven.length !== 1 && columnsGiven.length !== planners.length)
    throw new UsageError('--paper-column: one column, or one per --planner preset');
  const columnFor = planners.map((p, i) => {
    const given = columnsGiven?.[columnsGiven.length === 1 ? 0 : i];
    if (given === undefined) return inferPaperColumn(model?.model, p);
    const column = paperColumn(given);
    if (!column)
      throw new UsageError(
        `--paper-column: no column "${given}" in Table 1; columns: ${PAPER_COLUMNS.join(', ')}`,
      );
    return column;
  });
  const limit = positiveInt(flags.limit, '--limit');
  const samplesWanted = positiveInt(flags.samples, '--samples');
  const concurrency = positiveInt(flags.concurrency, '--concurrency') ?? 4;
  if (flags.data === undefined && (flags.split !== undefined || samplesWanted !== undefined))
    throw new UsageError(`${flags.split !== undefined ? '--split' : '--samples'} needs --data DIR`);
  if (flags.data !== undefined && !(existsSync(flags.data) && statSync(flags.data).isDirectory()))
    throw new UsageError(`--data ${flags.data}: no such folder`);
  const splitIdsWanted =
    flags.data === undefined ? undefined : splitIds(flags.split ?? 'paper', flags.data);
  const ids = flags.ids === undefined ? splitIdsWanted : parseIds(flags.ids);
  const { tasks, source } = taskSource(file, flags.data);
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

  // Every sample is read and checked before any run: a bad folder is one line, exit 2.
  type Sample = { inputs: Record<string, DataValue>; reference: DataValue };
  let perTask: Array<{ task: OpenAgiTask; samples: Sample[] }>;
  if (flags.data !== undefined) {
    try {
      perTask = readOpenAgiData(flags.data, selected, {
        ...(samplesWanted !== undefined ? { samples: samplesWanted } : {}),
      });
    } catch (error) {
      if (error instanceof OpenAgiDataError) throw new UsageError(error.message);
      throw error;
    }
  } else {
    const picture = readFileSync(SAMPLE_PICTURE);
    perTask = [];
    for (const task of selected) {
      const sample = await taskSample(task, picture);
      const value = (v: string | { png: Uint8Array }): DataValue =>
        typeof v === 'string' ? v : { bytes: v.png, mime: 'image/png' };
      perTask.push({
        task,
        samples: [
          {
            inputs: Object.fromEntries(
              Object.entries(sample.inputs).map(([k, v]) => [k, value(v)]),
            ),
            reference: value(sample.reference),
          },
        ],
      });
    }
  }

  const registry = await loadNodeRegistry();
  const metricSpec = registry.get('metric');
  const modelName = model ? `${model.provider}:${model.model}` : 'rule planner';
  const variants = planners.map((p): VariantSpec & { protocol: PlannerProtocol } => ({
    name: variantName(model, planners.length > 1 || p !== 'schema' ? p : undefined),
    model: flags.model ? [flags.model] : [],
    set: [],
    provider: flags.provider ?? [],
    protocol: PLANNER_PRESETS[p]!,
  }));
  const providerOverrides = parseProviders(flags.provider ?? []);
  const mode: EvalConfig['mode'] = flags.simulate ? 'simulated' : 'live';
  const graphs = new Map<string, Array<{ text: string; hash: string }>>();
  for (const v of variants) {
    const list: Array<{ text: string; hash: string }> = [];
    for (const { task } of perTask) {
      const probe = taskGraph(task, {
        ...(model ? { model } : {}),
        protocol: v.protocol,
      });
      const metricData = probe.nodes.find((n) => n.id === 'metric')!.data;
      const parsed = metricSpec?.data.safeParse(metricData);
      const outputs = parsed?.success
        ? metricSpec!.ports(parsed.data).outputs.map((o) => o.name)
        : [];
      const compiled = await compileGraph(
        taskGraph(task, {
          ...(model ? { model } : {}),
          protocol: v.protocol,
          metricOutputs: outputs,
        }),
        registry,
      );
      if (!compiled.ok)
        throw new Error(
          `task ${task.id} made an invalid graph: ${compiled.problems.map(formatProblem).join('; ')}`,
        );
      const text = documentTextOf(compiled);
      list.push({ text, hash: sha256Hex(text) });
    }
    graphs.set(v.name, list);
  }
  const documentHash = sha256Hex(
    [...graphs.values()].flatMap((l) => l.map((g) => g.hash)).join('\n'),
  );
  const plan: PlannedJob[] = [];
  const taskOf = new Map<number, ItemTask>();
  const inputsOf: Array<Record<string, unknown>> = [];
  let item = 0;
  for (const [t, { task, samples }] of perTask.entries()) {
    for (const [index, sample] of samples.entries()) {
      const blobs = new BlobStore();
      const value = (v: DataValue) => (typeof v === 'string' ? v : blobs.put(v.bytes, v.mime));
      const inputs: Record<string, unknown> = { reference: value(sample.reference) };
      for (const [name, v] of Object.entries(sample.inputs)) inputs[name] = value(v);
      taskOf.set(item, { task: task.id, category: task.category });
      inputsOf.push(inputs);
      for (const v of variants) {
        const { text, hash } = graphs.get(v.name)![t]!;
        plan.push({
          job: {
            evalId: '',
            item,
            variant: v.name,
            jobKey: jobKeyOf(hash, item, v.name),
            documentText: text,
            inputs,
            blobs: jobBlobs(inputs, blobs),
            mode,
            ...(Object.keys(providerOverrides).length ? { providerOverrides } : {}),
          },
          row: {
            key: `${item}\u0000${v.name}`,
            id: task.id,
            sample: index,
            category: task.category,
            task: task.description,
          },
          label: `task ${task.id}${samples.length > 1 ? ` sample ${index}` : ''} (${task.category}): ${task.target}`,
          output: 'score',
        });
      }
      item++;
    }
  }
  const items = item;
  // The samples are data: a changed sample is another eval.
  const dataHash = sha256Hex(canonicalJson(inputsOf));
  const specs: VariantSpec[] = variants.map(({ protocol: _p, ...spec }) => spec);
  const tableContext: OpenAgiTableContext = {
    model: modelName,
    namePresets: flags.planner !== undefined,
    variants: variants.map((v, i) => ({
      name: v.name,
      planner: planners[i]!,
      paperColumn: columnFor[i] ?? null,
    })),
    tasks: perTask.length,
    ...(flags.data !== undefined ? { samples: items } : {}),
    items: [...taskOf.values()],
  };
  const config: EvalConfig = {
    name: `OpenAGI Table 1 · ${modelName}${flags.planner === undefined ? '' : ` · ${planners.join(', ')}`}`,
    document: `${perTask.length} task graph${perTask.length === 1 ? '' : 's'} per planner (society openagi build)`,
    documentHash,
    data: flags.data ?? source,
    dataHash,
    map: [
      flags.data !== undefined
        ? `OpenAGI's task folders: ${items} samples over ${perTask.length} tasks`
        : 'one sample per task: the sample picture and sentences, degraded as the task says',
    ],
    output: 'score',
    scorer: { name: 'metric-node' },
    variants: specs,
    ...(limit !== undefined ? { limit } : {}),
    mode,
    table: { kind: OPENAGI_TABLE1, context: tableContext },
  };
  const evalId = evalIdentity({
    documentHash,
    dataHash,
    variant: specs.length === 1 ? specs[0] : specs,
    planners: planners.length === 1 && planners[0] === 'schema' ? undefined : planners,
    limit: limit ?? null,
    mode,
  });

  for (const planned of plan) planned.job.evalId = evalId;
  if (!flags.quiet)
    process.stderr.write(
      flags.data !== undefined
        ? `inputs: ${items} samples of ${perTask.length} task${perTask.length === 1 ? '' : 's'} from ${flags.data} (${flags.ids !== undefined ? '--ids' : (flags.split ?? 'paper') === 'paper' ? OPENAGI_PAPER_SPLIT.source : `--split ${flags.split}`})\n`
        : `inputs: one sample per task, built from the sample picture and sentences (OpenAGI's 100 samples per task are not shipped: --data DIR reads them), so a score is this planner on that sample${file ? '' : `; tasks: ${source} — pass OpenAGI's task_description.txt for the 185`}\n`,
    );
  return runPlannedEval({
    config,
    evalId,
    plan,
    prepared: specs.map((spec) => ({ spec })),
    rows: items,
    flags,
    concurrency,
    scorer: metricNodeScorer,
    present: {
      // The table reads what each item's run recorded (its metric definition, an invalid plan).
      text: (summary, all, outputs) => openAgiText(summary, all, tableContext, outputs),
      json: (summary, all, outputs) => {
        const tables = openAgiTables(all, tableContext, outputs);
        return {
          ...summary,
          planner: modelName,
          ...(tables.length === 1
            ? { table1: tables[0]!.table, paperColumn: tables[0]!.paperColumn }
            : {}),
          table1ByPlanner: tables,
        };
      },
    },
  });
}
