/**
 * `society eval … --baselines`: control arms at the society's own mean budget per item, run as
 * extra variants of the same eval after the society's variants (the first variant stays the
 * society, so "vs first" compares each arm with it). Their documents are generated
 * (app/eval/baselines/generate.ts), written to a folder, and run like any variant's document:
 * `society run` runs them too.
 *
 * Sizing: once the society's runs are in, its mean tokens (or dollars) per item is the budget.
 * A pilot (one plain call of the strongest member on the first items, an eval of its own in
 * the store) measures one call; self-consistency and the vote without discussion get as many
 * answers as the budget pays for, and the single call may spend the budget less the pilot's
 * prompt on its answer.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { DEFAULT_PRICES, priceFor } from '../../../costs/prices.ts';
import {
  type BaselineKind,
  type BaselineSize,
  baselineDocument,
  REASONING_EXTRA_TOKENS,
  type SocietyFacts,
  societyFacts,
} from '../../../eval/baselines/generate.ts';
import { evalIdOf } from '../../../eval/identity.ts';
import { type Executor, type PlannedJob, runEval } from '../../../eval/runner.ts';
import type { Scorer } from '../../../eval/scorers.ts';
import type { EvalConfig, EvalItemRecord, VariantSpec } from '../../../eval/types.ts';
import { loadNodeRegistry } from '../../../node-sdk/registry.ts';
import { DOCUMENT_BOUNDS } from '../../../schema/limits.ts';
import type { RunStore } from '../../../store/index.ts';
import { UsageError } from '../../errors.ts';
import { type JobInputs, type PreparedVariant, planJobs, prepareVariants } from './plan.ts';

/** The flags of `--baselines`. */
export interface BaselineFlags {
  baselines?: boolean;
  /** `tokens` (default) or `usd`: what "the same budget" holds equal. */
  baselinesBudget?: string;
  /** A model profile of the document to use as the strongest member. */
  baselineModel?: string;
  /** Where the generated documents are written (default: society-baselines/NAME). */
  baselinesDir?: string;
}

/** The arms, in the table's order, by variant name. */
const ARMS: readonly { name: string; kind: BaselineKind }[] = [
  { name: 'one-call', kind: 'single' },
  { name: 'self-consistency', kind: 'self-consistency' },
  { name: 'no-discussion', kind: 'no-discussion' },
];

/** Items the pilot measures one call on. */
const PILOT_ITEMS = 3;

/** What the arms are planned from. */
export interface BaselinePlan {
  facts: SocietyFacts;
  budget: 'tokens' | 'usd';
  dir: string;
  /** The arms' variants, appended to the eval's. */
  variants: VariantSpec[];
}

/** Checks the flags and reads the society; the arms' variants are known before anything runs. */
export function planBaselines(
  file: string,
  society: PreparedVariant,
  flags: BaselineFlags & { output?: string },
): BaselinePlan {
  const budget = flags.baselinesBudget ?? 'tokens';
  if (budget !== 'tokens' && budget !== 'usd')
    throw new UsageError(`--baselines-budget ${budget}: use tokens or usd`);
  let facts: SocietyFacts;
  try {
    facts = societyFacts(society.compiled.plan, {
      ...(flags.output !== undefined ? { output: flags.output } : {}),
      ...(flags.baselineModel !== undefined ? { model: flags.baselineModel } : {}),
    });
  } catch (error) {
    throw new UsageError(`--baselines: ${(error as Error).message}`);
  }
  if (budget === 'usd' && !priceOf(facts))
    throw new UsageError(
      `--baselines-budget usd: the strongest member's model (profile ${facts.strongest}) has no price; use --baselines-budget tokens`,
    );
  const dir = flags.baselinesDir ?? join('society-baselines', basename(file, '.society.json'));
  const arms = ARMS.filter((a) => a.kind !== 'no-discussion' || facts.members.length > 0);
  const variants = arms.map((arm) => ({
    name: arm.name,
    model: society.spec.model,
    set: [],
    provider: society.spec.provider,
    document: join(dir, `${arm.kind}.${budget}.society.json`),
  }));
  return { facts, budget, dir, variants };
}

function priceOf(facts: SocietyFacts, profile = facts.strongest) {
  const model = (facts.models[profile] as { model?: unknown } | undefined)?.model;
  return typeof model === 'string' ? priceFor(DEFAULT_PRICES, model) : undefined;
}

const mean = (values: readonly number[]) =>
  values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;

/**
 * After the society's runs: measures its budget, runs the pilot, writes the arms' documents at
 * their sizes and gives their jobs. Each line it writes to stderr says what was measured.
 */
export async function baselineJobs(args: {
  baseline: BaselinePlan;
  society: PreparedVariant;
  config: EvalConfig;
  items: readonly EvalItemRecord[];
  jobs: Omit<JobInputs, 'evalId'> & { evalId: string };
  providers: readonly string[];
  store: RunStore;
  scorer: Scorer;
  executor: Executor;
  quiet?: boolean;
}): Promise<PlannedJob[]> {
  const { baseline, society, store } = args;
  const usd = baseline.budget === 'usd';
  const runs = args.items.filter((i) => i.variant === society.spec.name && i.status !== 'running');
  const budget = mean(runs.map((i) => (usd ? i.costUsd : i.tokens)));
  if (!(budget > 0))
    throw new UsageError(
      `--baselines: the society's runs used no ${usd ? 'priced tokens' : 'tokens'}, so there is no budget to match`,
    );
  const registry = await loadNodeRegistry();
  mkdirSync(baseline.dir, { recursive: true });
  const write = (kind: BaselineKind, size: BaselineSize) => {
    const path = join(baseline.dir, `${kind}.${baseline.budget}.society.json`);
    const doc = baselineDocument(
      baseline.facts,
      kind,
      size,
      registry,
      `${args.config.name} · baseline ${kind}`,
    );
    writeFileSync(path, `${JSON.stringify(doc, null, 2)}\n`);
    return path;
  };

  // The pilot: one plain call on the first items, an eval of its own so it resumes and shows.
  const pilotSpec: VariantSpec = {
    name: 'pilot',
    model: society.spec.model,
    set: [],
    provider: society.spec.provider,
    document: write('pilot', {}),
  };
  const [pilot] = await prepareVariants(pilotSpec.document!, [pilotSpec], args.providers);
  const rows = args.jobs.rows.slice(0, PILOT_ITEMS);
  const pilotConfig: EvalConfig = {
    ...args.config,
    name: `${args.config.name} · baseline pilot`,
    document: pilotSpec.document!,
    documentHash: pilot!.documentHash,
    variants: [pilotSpec],
    limit: rows.length,
  };
  delete pilotConfig.rubric;
  const pilotId = evalIdOf(pilotConfig, [pilot!]);
  const record = store.openEval({
    id: pilotId,
    name: pilotConfig.name,
    config: pilotConfig,
    items: rows.length,
    simulated: pilotConfig.mode === 'simulated',
  });
  await runEval(
    store,
    record,
    planJobs([pilot!], { ...args.jobs, evalId: pilotId, rows }),
    args.scorer,
    args.executor,
  );
  const pilotRuns = store.evalItems(pilotId).filter((i) => i.status === 'scored' && i.runId);
  if (pilotRuns.length === 0)
    throw new UsageError(
      `--baselines: the pilot (eval ${pilotId.slice(0, 8)}, one call of ${baseline.facts.strongest}) failed on every item, so one call cannot be measured`,
    );
  const perCall = mean(pilotRuns.map((i) => (usd ? i.costUsd : i.tokens)));
  const usage = pilotRuns.map((i) => store.getRun(i.runId!)?.usage);
  const prompt = mean(usage.map((u) => u?.promptTokens ?? 0));
  const completion = mean(usage.map((u) => u?.completionTokens ?? 0));
  // As many answers as the budget pays for, within what a document may replicate.
  const answersFor = (each: number) =>
    Math.min(DOCUMENT_BOUNDS.maxReplicas, Math.max(1, Math.round(budget / each)));
  const answers = answersFor(perCall);
  // The members' models may be priced apart from the strongest: in dollars, a member's answer
  // costs the pilot's tokens at its own price (an unpriced one, what the pilot's call cost).
  const memberCall = (profile: string) => {
    const own = priceOf(baseline.facts, profile);
    return usd && own
      ? (prompt * own.inputPerMillion + completion * own.outputPerMillion) / 1e6
      : perCall;
  };
  const members = baseline.facts.members;
  const memberAnswers = members.length ? answersFor(mean(members.map(memberCall))) : answers;
  const price = priceOf(baseline.facts);
  const reasoningPrompt = prompt + REASONING_EXTRA_TOKENS;
  const spare = usd
    ? (budget - (reasoningPrompt * price!.inputPerMillion) / 1e6) / (price!.outputPerMillion / 1e6)
    : budget - reasoningPrompt;
  const maxTokens = Math.max(1, Math.round(spare));
  if (!args.quiet)
    process.stderr.write(
      `baselines: the society used ${usd ? `$${budget.toFixed(6)}` : `${Math.round(budget)} tokens`} per item; one call of ${baseline.facts.strongest} ${usd ? `$${perCall.toFixed(6)}` : `${Math.round(perCall)} tokens`} (pilot eval ${pilotId.slice(0, 8)}, ${pilotRuns.length} items): ${answers} answer${answers === 1 ? '' : 's'} per vote${memberAnswers === answers ? '' : ` (${memberAnswers} in the members' vote)`}, one call allowed ${maxTokens} completion tokens; documents in ${baseline.dir}\n`,
    );
  const sizes: Record<Exclude<BaselineKind, 'pilot'>, BaselineSize> = {
    single: { maxTokens },
    'self-consistency': { answers },
    // Every member answers at least once, even when that is over the budget (the table shows it).
    'no-discussion': { answers: Math.max(memberAnswers, members.length) },
  };
  const kinds = new Map(ARMS.map((a) => [a.name, a.kind]));
  for (const variant of baseline.variants) {
    const kind = kinds.get(variant.name) as Exclude<BaselineKind, 'pilot'>;
    write(kind, sizes[kind]);
  }
  const prepared = await prepareVariants('', baseline.variants, args.providers);
  return planJobs(prepared, args.jobs);
}
