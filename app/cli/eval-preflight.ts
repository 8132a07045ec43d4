/**
 * The preflight of an eval (app/runtime/preflight.ts): the keys of every document its runs and
 * its scorer use, checked before the first run, so a missing key is one refusal (exit 2), not a
 * string of failed items.
 */
import { readFileSync } from 'node:fs';
import { compileGraph, type GraphPlan } from '../compiler/index.ts';
import { modelScorerDocument } from '../eval/graph-scorer.ts';
import type { EvalJob } from '../eval/job.ts';
import { MODEL_SCORERS } from '../eval/scorers.ts';
import type { EvalConfig, ScorerSpec } from '../eval/types.ts';
import { loadNodeRegistry } from '../node-sdk/registry.ts';
import type { ProfileOverride } from '../providers/profiles.ts';
import { type OriginNeed, unallowedOrigins } from '../runtime/origins.ts';
import { type MissingKey, type Preflight, preflight } from '../runtime/preflight.ts';
import { EXIT, Exit } from './errors.ts';
import { refuseOrigins } from './hosts.ts';
import { refusalLines } from './preflight.ts';

/** Compiles an eval's documents for its checks, each distinct one once. */
export type EvalCompiler = (document: unknown) => Promise<GraphPlan | undefined>;

/**
 * The compiler the checks of one eval share: the node registry loaded once, each distinct
 * document compiled once. A document that does not compile gives undefined: its own runs fail
 * with its own problems.
 */
export function evalCompiler(): EvalCompiler {
  const plans = new Map<string, Promise<GraphPlan | undefined>>();
  return (document) => {
    const key = typeof document === 'string' ? document : JSON.stringify(document);
    let plan = plans.get(key);
    if (!plan) {
      plan = loadNodeRegistry()
        .then((registry) => compileGraph(document, registry))
        .then((compiled) => (compiled.ok ? compiled.plan : undefined));
      plans.set(key, plan);
    }
    return plan;
  };
}

/**
 * The preflight of an eval run in this process: every distinct document its live jobs run
 * (each variant's, with its provider redirects) and the scorer's own document (a model scorer's
 * metric runs live unless the eval is simulated), checked before the first run. One refusal
 * names every missing key of them all.
 */
export async function refuseMissingEvalKeys(args: {
  jobs: readonly { job: EvalJob }[];
  scorer: ScorerSpec;
  mode: EvalConfig['mode'];
  stored: Record<string, ProfileOverride>;
  compile: EvalCompiler;
}): Promise<void> {
  const checks: Preflight[] = [];
  const seen = new Set<string>();
  const check = async (
    document: unknown,
    overrides: Record<string, ProfileOverride>,
    simulate: boolean,
  ) => {
    const key = JSON.stringify([document, overrides, simulate]);
    if (seen.has(key)) return;
    seen.add(key);
    const plan = await args.compile(document);
    if (plan) checks.push(preflight(plan, { providerOverrides: overrides, simulate }));
  };
  for (const { job } of args.jobs) {
    if (job.mode !== 'live') continue;
    await check(job.documentText, { ...args.stored, ...job.providerOverrides }, false);
  }
  const scorer = scorerDocument(args.scorer);
  if (scorer !== undefined) await check(scorer, args.stored, args.mode === 'simulated');
  const lines = refusalLines(mergeChecks(checks));
  if (lines.length) throw new Exit(EXIT.invalid, lines.join('\n'));
}

/**
 * Refuses (exit 2) an eval run in this process whose documents contact an origin not in
 * `allowed`, in any mode: a simulated or replayed run still plays against its simulator.
 */
export async function refuseUnallowedEvalHosts(
  jobs: readonly { job: EvalJob }[],
  allowed: readonly string[],
  compile: EvalCompiler,
): Promise<void> {
  const refused = new Map<string, OriginNeed>();
  for (const text of new Set(jobs.map(({ job }) => job.documentText))) {
    const plan = await compile(text);
    if (!plan) continue;
    for (const need of unallowedOrigins(plan, allowed)) {
      const had = refused.get(need.origin);
      if (!had) refused.set(need.origin, { ...need, nodes: [...need.nodes] });
      else for (const n of need.nodes) if (!had.nodes.includes(n)) had.nodes.push(n);
    }
  }
  refuseOrigins([...refused.values()]);
}

/** The document a graph or model scorer runs, when there is one to read. */
function scorerDocument(spec: ScorerSpec): unknown {
  if (spec.graph !== undefined) {
    try {
      return readFileSync(spec.graph, 'utf8');
    } catch {
      return undefined; // the scorer says it cannot read it, in its own words
    }
  }
  return spec.name in MODEL_SCORERS
    ? modelScorerDocument(spec.name as keyof typeof MODEL_SCORERS)
    : undefined;
}

/** Several preflights as one: each missing key once, with all that needs it. */
function mergeChecks(checks: readonly Preflight[]): Preflight {
  const missing = new Map<string, MissingKey>();
  const unusable = new Map<string, Preflight['unusable'][number]>();
  const union = (a: string[], b: readonly string[]) => {
    for (const x of b) if (!a.includes(x)) a.push(x);
  };
  for (const c of checks) {
    for (const m of c.missing) {
      const had = missing.get(m.apiKeyEnv);
      if (!had) missing.set(m.apiKeyEnv, structuredClone(m));
      else {
        union(had.providers, m.providers);
        union(had.profiles, m.profiles);
        union(had.nodes, m.nodes);
      }
    }
    for (const u of c.unusable) if (!unusable.has(u.name)) unusable.set(u.name, u);
  }
  return {
    live: true,
    providers: checks.flatMap((c) => c.providers),
    missing: [...missing.values()],
    unusable: [...unusable.values()],
  };
}
