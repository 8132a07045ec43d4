/**
 * `society eval FILE --data DATA`: runs a society over a dataset under one or more variants,
 * scores every answer, and prints the table. Each item × variant is an ordinary run in the
 * store; the same command again resumes the eval where it stopped.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { DatasetError, readDataset } from '../../../eval/dataset.ts';
import { evalIdOf } from '../../../eval/identity.ts';
import { repeatedEvalId, repeatPlan } from '../../../eval/repeats.ts';
import { type Executor, localExecutor, type PlannedJob, runEval } from '../../../eval/runner.ts';
import { failureVerdict } from '../../../eval/score-text.ts';
import {
  MODEL_SCORERS,
  RENAMED_SCORERS,
  SCORER_NAMES,
  type Scorer,
  textScorer,
} from '../../../eval/scorers.ts';
import type { RunOutputs } from '../../../eval/table-presenters.ts';
import type {
  EvalConfig,
  EvalItemRecord,
  EvalSummary,
  ScorerSpec,
  VariantSpec,
} from '../../../eval/types.ts';
import type { RunStore } from '../../../store/index.ts';
import { terminalText } from '../../../terminal/terminal-text.ts';
import { type BudgetFlags, checkVariantBudgets } from '../../budget-check.ts';
import { EXIT, UsageError } from '../../errors.ts';
import {
  evalCompiler,
  refuseMissingEvalKeys,
  refuseUnallowedEvalHosts,
} from '../../eval-preflight.ts';
import { runOrigins } from '../../hosts.ts';
import {
  approvedToolsFlag,
  mcpOverrideProfiles,
  refuseMissingEvalMcp,
  runMcpProfiles,
} from '../../mcp-servers.ts';
import { openStore, storedOverrides } from '../../run-store.ts';
import type { BaselineFlags } from './baselines.ts';
import {
  checkFields,
  checkMappings,
  type PreparedVariant,
  parseMappings,
  parseVariant,
  planJobs,
  prepareVariants,
} from './plan.ts';
import { evalProgress, formatSummary } from './print.ts';
import { checkQueueFlags, queueExecutorFor, refuseKeyShapedJobs } from './queue.ts';
import { checkReportPath, writeReport } from './report-file.ts';
import { rubricFlag } from './rubric-flag.ts';

/** What every command that stores an eval takes (`evalRunOptions`): a report, workers, hosts. */
export interface EvalRunFlags {
  /** `--report FILE.html`: the eval's page, written after the run. */
  report?: string;
  /** `--queue redis://HOST:PORT`: the jobs run on workers (queue.ts). */
  queue?: string;
  /** `--rate PROVIDER=N/UNIT`: limits every worker applies (needs --queue). */
  rate?: string[];
  /** `--queue-secret-file FILE`: the secret shared with the workers (else SOCIETY_QUEUE_SECRET). */
  queueSecretFile?: string;
  /**
   * `--allow-host ORIGIN`: an origin this eval's runs may contact beyond the store's allowed
   * hosts, as `society run --allow-host` (not with --queue: a worker allows only its own).
   */
  allowHost?: string[];
  /** `--repeats N`: each item × variant runs N times, each with its own seed (default 1). */
  repeats?: string;
}

export interface EvalFlags extends EvalRunFlags, BudgetFlags, BaselineFlags {
  data: string;
  map: string[];
  /** `--files DIR`: where `--map INPUT=@FIELD` files are read (default: the data file's folder). */
  files?: string;
  expect?: string;
  output?: string;
  scorer?: string;
  scorerGraph?: string;
  tolerance?: string;
  variant: string[];
  /** `--provider NAME=URL` for every variant (a variant's own come after it). */
  provider: string[];
  /** `--mcp NAME=URL`: an MCP server (HTTP) for the runs in this process. */
  mcp?: string[];
  /** `--approve-tools NAME/TOOL,…`: tools whose policy is ask run without asking. */
  approveTools?: string;
  limit?: string;
  concurrency?: string;
  budget?: string;
  simulate?: boolean;
  replay?: string;
  db?: string;
  json?: boolean;
  quiet?: boolean;
  /** Run again the items an earlier session recorded as failed. */
  retryFailed?: boolean;
  /** `--rubric NAME|FILE.json`: the scales people rate the items on (not part of the id). */
  rubric?: string;
}

/** A flag's whole number ≥ 1, or undefined when the flag is absent. */
export const positiveInt = (text: string | undefined, flag: string): number | undefined => {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a whole number ≥ 1`);
  return n;
};

/** The scorer the flags name; a graph scorer or a model scorer comes from graph-scorer.ts. */
export async function scorerOf(
  spec: ScorerSpec,
  run: { mode: EvalConfig['mode']; store: RunStore },
): Promise<Scorer> {
  if (spec.graph !== undefined || spec.name in MODEL_SCORERS) {
    const { graphScorer } = await import('../../../eval/graph-scorer.ts');
    return graphScorer(spec, { simulate: run.mode === 'simulated' });
  }
  return textScorer(spec.name, spec.tolerance === undefined ? {} : { tolerance: spec.tolerance });
}

/** Runs the eval; resolves to the exit code. */
export async function evalCommand(file: string, flags: EvalFlags): Promise<number> {
  if (flags.simulate && flags.replay)
    throw new UsageError('use one of --simulate and --replay, not both');
  checkQueueFlags(flags);
  if (flags.scorer !== undefined && flags.scorerGraph !== undefined)
    throw new UsageError('use one of --scorer and --scorer-graph, not both');
  const scorerName = flags.scorer ?? (flags.scorerGraph ? 'graph' : 'exact');
  const renamed = RENAMED_SCORERS[scorerName];
  if (flags.scorerGraph === undefined && renamed !== undefined)
    throw new UsageError(`--scorer ${scorerName}: now ${renamed}`);
  if (flags.scorerGraph === undefined && !SCORER_NAMES.includes(scorerName))
    throw new UsageError(
      `--scorer ${scorerName}: no such scorer (scorers: ${SCORER_NAMES.join(', ')})`,
    );
  let tolerance: number | undefined;
  if (flags.tolerance !== undefined) {
    tolerance = Number(flags.tolerance);
    if (!Number.isFinite(tolerance) || tolerance < 0)
      throw new UsageError('--tolerance must be a number ≥ 0');
  }
  const limit = positiveInt(flags.limit, '--limit');
  // Checked here too, before the data is read (runPlannedEval applies it).
  positiveInt(flags.repeats, '--repeats');
  const concurrency = positiveInt(flags.concurrency, '--concurrency') ?? 4;
  let budgetUsd: number | undefined;
  if (flags.budget !== undefined) {
    budgetUsd = Number(flags.budget);
    if (!Number.isFinite(budgetUsd) || budgetUsd <= 0)
      throw new UsageError('--budget must be an amount of US dollars above 0');
  }
  const variants: VariantSpec[] = flags.variant.length
    ? flags.variant.map(parseVariant)
    : [{ name: 'default', model: [], set: [], provider: [] }];
  const names = variants.map((v) => v.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new UsageError(`--variant ${twice} is given twice`);
  const mappings = parseMappings(flags.map);
  const rubric = flags.rubric === undefined ? undefined : rubricFlag(flags.rubric);
  if (flags.expect === undefined && scorerName !== 'cos' && flags.scorerGraph === undefined)
    throw new UsageError(
      `--expect FIELD names the dataset field holding the right answer (scorer ${scorerName} compares against it)`,
    );

  let dataset: ReturnType<typeof readDataset>;
  try {
    dataset = readDataset(flags.data);
  } catch (error) {
    if (error instanceof DatasetError) throw new UsageError(error.message);
    throw error;
  }
  const rows = dataset.rows.slice(0, limit ?? dataset.rows.length);
  const filesDir = flags.files === undefined ? undefined : filesFolder(flags.files);
  // Checked before anything is stored: a typo makes no eval that a rerun would "resume".
  checkFields(
    { map: flags.map, mappings, ...(flags.expect !== undefined ? { expect: flags.expect } : {}) },
    rows,
  );
  let cassetteText: string | undefined;
  if (flags.replay !== undefined) {
    try {
      cassetteText = readFileSync(flags.replay, 'utf8');
      JSON.parse(cassetteText);
    } catch (error) {
      throw new UsageError(`cannot use cassette ${flags.replay}: ${(error as Error).message}`);
    }
  }
  const prepared = await prepareVariants(file, variants, flags.provider ?? [], flags);
  checkVariantBudgets(prepared, flags);
  checkMappings(mappings, prepared);
  if (flags.baselines && flags.queue !== undefined)
    throw new UsageError('--baselines runs in this process: it is not offered with --queue');
  // The arms are variants from the start (their documents are sized once the society has run).
  const baseline = flags.baselines
    ? (await import('./baselines.ts')).planBaselines(file, prepared[0]!, flags)
    : undefined;
  const mode: EvalConfig['mode'] = flags.simulate ? 'simulated' : flags.replay ? 'replay' : 'live';
  const scorer: ScorerSpec = {
    name: scorerName,
    ...(tolerance !== undefined ? { tolerance } : {}),
    ...(flags.scorerGraph !== undefined ? { graph: flags.scorerGraph } : {}),
  };
  const config: EvalConfig = {
    name: prepared[0]!.compiled.doc.name ?? basename(file),
    document: file,
    documentHash: prepared[0]!.documentHash,
    data: flags.data,
    dataHash: dataset.hash,
    map: flags.map,
    ...(flags.expect !== undefined ? { expect: flags.expect } : {}),
    ...(flags.output !== undefined ? { output: flags.output } : {}),
    scorer,
    variants: baseline ? [...variants, ...baseline.variants] : variants,
    ...(limit !== undefined ? { limit } : {}),
    mode,
    ...(flags.replay !== undefined ? { cassette: flags.replay } : {}),
    ...(budgetUsd !== undefined ? { budgetUsd } : {}),
    ...(rubric !== undefined ? { rubric } : {}),
  };
  const evalId = evalIdOf(config, prepared);
  const jobInputs = {
    evalId,
    dataset,
    ...(filesDir !== undefined ? { filesDir } : {}),
    rows,
    mappings,
    ...(flags.expect !== undefined ? { expect: flags.expect } : {}),
    ...(flags.output !== undefined ? { output: flags.output } : {}),
    mode,
    ...(cassetteText !== undefined ? { cassetteText } : {}),
    scorer,
  };
  const plan = planJobs(prepared, jobInputs);
  const extend: EvalExtension | undefined = baseline
    ? async (ctx) =>
        (await import('./baselines.ts')).baselineJobs({
          baseline,
          society: prepared[0]!,
          config,
          jobs: jobInputs,
          providers: flags.provider ?? [],
          ...(flags.quiet ? { quiet: true } : {}),
          ...ctx,
        })
    : undefined;
  return runPlannedEval({
    config,
    evalId,
    plan,
    prepared: baseline ? [...prepared, ...baseline.variants.map((spec) => ({ spec }))] : prepared,
    rows: rows.length,
    flags,
    concurrency,
    ...(extend ? { extend } : {}),
  });
}

/** A paper's layout of an eval's table (see `runPlannedEval`). */
export interface EvalPresenter {
  /** `outputs` reads a run's outputs from the eval's store (a layout may need more than a score). */
  text(summary: EvalSummary, items: readonly EvalItemRecord[], outputs: RunOutputs): string;
  json?(summary: EvalSummary, items: readonly EvalItemRecord[], outputs: RunOutputs): unknown;
}

/**
 * More jobs planned from the first ones' results (the baselines, sized by the society's runs):
 * given the items so far, the store, the scorer and the executor.
 */
export type EvalExtension = (ctx: {
  items: readonly EvalItemRecord[];
  store: RunStore;
  scorer: Scorer;
  executor: Executor;
}) => Promise<PlannedJob[]>;

/** Opens the eval in the store, runs its jobs with progress, prints and reports the table. */
export async function runPlannedEval(args: {
  config: EvalConfig;
  evalId: string;
  plan: PlannedJob[];
  prepared: readonly Pick<PreparedVariant, 'spec'>[];
  rows: number;
  flags: Pick<
    EvalFlags,
    | 'db'
    | 'json'
    | 'quiet'
    | 'retryFailed'
    | 'report'
    | 'queue'
    | 'rate'
    | 'queueSecretFile'
    | 'allowHost'
    | 'mcp'
    | 'approveTools'
    | 'repeats'
  >;
  concurrency: number;
  scorer?: Scorer;
  /**
   * Prints the table in another layout (a paper's): the text above the usual table, and the
   * `--json` object in place of the summary. Given the summary and every item.
   */
  present?: EvalPresenter;
  /** Jobs planned after the first ones have run, then run in the same eval. */
  extend?: EvalExtension;
}): Promise<number> {
  const { flags } = args;
  // Repeats make another eval (unless N is 1, so an eval's id stays what it was) whose jobs are
  // the planned ones N times over, each repeat with its own seed (app/eval/repeats.ts).
  const repeats = positiveInt(flags.repeats, '--repeats') ?? 1;
  const evalId = repeatedEvalId(args.evalId, repeats);
  const config: EvalConfig = repeats > 1 ? { ...args.config, repeats } : args.config;
  let plan = repeats > 1 ? repeatPlan(args.plan, repeats, evalId) : args.plan;
  checkQueueFlags(flags);
  if (flags.queue !== undefined && flags.allowHost?.length)
    throw new UsageError(
      '--allow-host applies to runs in this process: a worker contacts only the origins its own store allows (society hosts --allow ORIGIN --db WORKER_DB)',
    );
  if (flags.queue !== undefined && flags.mcp?.length)
    throw new UsageError(
      '--mcp applies to runs in this process: a worker opens only the MCP servers of its own store (society mcp --add NAME=URL --db WORKER_DB)',
    );
  if (flags.queue !== undefined && flags.approveTools !== undefined)
    throw new UsageError(
      '--approve-tools applies to runs in this process: a worker approves no tool for a job',
    );
  const approvedTools = approvedToolsFlag(flags.approveTools);
  if (flags.queue !== undefined) refuseKeyShapedJobs(plan);
  if (flags.report !== undefined) checkReportPath(flags.report);
  const store = openStore(flags.db);
  let executor: Executor | undefined;
  try {
    const stored = storedOverrides(store);
    const compile = evalCompiler();
    // Keys are checked where the runs happen: here, unless workers elsewhere run them.
    if (flags.queue === undefined)
      await refuseMissingEvalKeys({
        jobs: plan,
        scorer: config.scorer,
        mode: config.mode,
        stored,
        compile,
      });
    // So are the hosts its documents contact: here against this store's (and --allow-host), on
    // workers theirs.
    const allowed = runOrigins(store, flags);
    if (flags.queue === undefined) await refuseUnallowedEvalHosts(plan, allowed, compile);
    // And the MCP servers they name: this store's profiles, with --mcp over them.
    const mcp = mcpOverrideProfiles(flags.mcp);
    if (flags.queue === undefined)
      await refuseMissingEvalMcp(plan, runMcpProfiles(store, flags.mcp), compile);
    const before = store.getEval(evalId);
    executor =
      flags.queue !== undefined
        ? await queueExecutorFor(store, evalId, plan, { ...flags, queue: flags.queue })
        : localExecutor(store, args.concurrency, stored, allowed, mcp, approvedTools);
    // A reopened eval keeps its stored config; a rubric given now is attached (or replaces its own).
    const record = store.openEval({
      id: evalId,
      name: config.name,
      config,
      items: args.rows,
      simulated: config.mode === 'simulated',
    });
    const scorer = args.scorer ?? (await scorerOf(config.scorer, { mode: config.mode, store }));
    const earlier = before ? store.evalItems(evalId).filter((i) => i.status !== 'running') : [];
    const failedBefore = earlier.filter((i) => i.status === 'failed').length;
    // Failed items stay failed on a rerun (a failure is a result), so say how to run them again.
    const resumed = before
      ? ` · resuming: ${earlier.length} of ${args.rows * args.prepared.length * repeats} done before${failedBefore && !flags.retryFailed ? ` (${failedBefore} failed: --retry-failed runs them again)` : ''}`
      : '';
    if (!flags.quiet)
      process.stderr.write(
        `eval ${evalId}: ${args.rows} item${args.rows === 1 ? '' : 's'} × ${args.prepared.length} variant${args.prepared.length === 1 ? '' : 's'}${repeats > 1 ? ` × ${repeats} repeats` : ''}${resumed}${config.mode === 'simulated' ? ' · simulated answers' : ''}\n`,
      );
    const progress = flags.quiet ? undefined : evalProgress(process.stderr);
    const stop = new AbortController();
    let interrupts = 0;
    const onSigint = () => {
      interrupts++;
      if (interrupts === 1) {
        process.stderr.write(
          '\nsociety: no new items start; the running ones finish (Ctrl-C again stops now; the same command resumes)\n',
        );
        stop.abort();
      } else process.exit(130);
    };
    process.on('SIGINT', onSigint);
    let summary: EvalSummary;
    try {
      summary = await runEval(store, record, plan, scorer, executor, {
        ...(config.budgetUsd !== undefined ? { budgetUsd: config.budgetUsd } : {}),
        ...(progress ? { onProgress: (p) => progress.update(p) } : {}),
        signal: stop.signal,
        ...(args.flags.retryFailed ? { retryFailed: true } : {}),
      });
      if (args.extend && summary.status === 'finished' && !stop.signal.aborted) {
        progress?.done();
        const more = await args.extend({ items: store.evalItems(evalId), store, scorer, executor });
        const extra = repeats > 1 ? repeatPlan(more, repeats, evalId) : more;
        await refuseMissingEvalKeys({
          jobs: extra,
          scorer: config.scorer,
          mode: config.mode,
          stored,
          compile,
        });
        await refuseUnallowedEvalHosts(extra, allowed, compile);
        plan = [...plan, ...extra];
        summary = await runEval(store, record, plan, scorer, executor, {
          ...(config.budgetUsd !== undefined ? { budgetUsd: config.budgetUsd } : {}),
          ...(progress ? { onProgress: (p) => progress.update(p) } : {}),
          signal: stop.signal,
          ...(args.flags.retryFailed ? { retryFailed: true } : {}),
        });
      }
    } finally {
      process.off('SIGINT', onSigint);
      progress?.done();
    }
    const items = store.evalItems(evalId);
    const outputs: RunOutputs = (runId) => store.getRun(runId)?.outputs;
    if (flags.json)
      process.stdout.write(
        `${JSON.stringify(args.present?.json ? args.present.json(summary, items, outputs) : summary)}\n`,
      );
    else
      process.stdout.write(
        terminalText(
          `${args.present ? `${args.present.text(summary, items, outputs)}\n\n` : ''}${formatSummary(summary)}\n`,
        ),
      );
    if (flags.report !== undefined) {
      writeReport(flags.report, summary, items);
      if (!flags.quiet) process.stderr.write(`society: report written to ${flags.report}\n`);
    }
    if (summary.stopped !== undefined) {
      process.stderr.write(
        `society: stopped: the first runs all failed the same way, so the rest would too: ${terminalText(summary.stopped)}\n(those items run again when you run the same command)\n`,
      );
      return EXIT.runFailed;
    }
    // An eval whose every run failed measured nothing: exit 1, with the reason most runs gave.
    const verdict = failureVerdict(items);
    if (verdict)
      process.stderr.write(
        `society: ${verdict.all ? '' : 'warning: '}${terminalText(verdict.text)}\n`,
      );
    if (verdict?.all) return EXIT.runFailed;
    if (summary.status === 'over-budget')
      process.stderr.write(
        `society: the budget of $${config.budgetUsd} is spent; ${plan.length - summary.variants.reduce((a, v) => a + v.n, 0)} items did not run\n`,
      );
    return summary.status === 'finished' ? EXIT.ok : EXIT.runFailed;
  } finally {
    await executor?.close?.();
    store.close();
  }
}

/** `--files DIR`, resolved; a folder that is not there ends the command (exit 2). */
function filesFolder(dir: string): string {
  const path = resolve(dir);
  if (!existsSync(path) || !statSync(path).isDirectory())
    throw new UsageError(`--files ${dir}: no such folder`);
  return path;
}
