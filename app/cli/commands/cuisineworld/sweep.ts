/**
 * `society cuisineworld sweep [FILE]`: episodes over a level × agent-count × order-frequency
 * grid, printed as MindAgent's tables with the collaboration score. FILE is a dispatcher
 * document (a template such as cuisineworld-dispatcher-2); without one the sweep builds a
 * two-node graph from `--controller`, `--model` and `--behaviour`. The ablation flags of
 * Tables 8 and 9 change the document's dispatcher. Each episode is an ordinary run in the
 * store and the sweep is an eval (scorer `cos`), so `society evals` lists it, `society
 * eval-show` prints it again, and the same command resumes it.
 */
import { readFileSync } from 'node:fs';
import { compileGraph } from '../../../compiler/index.ts';
import { DEFAULT_PRICES } from '../../../costs/prices.ts';
import { TAU_ALPHAS } from '../../../environments/cos.ts';
import type {
  EpisodeSetting,
  EpisodeSettings,
} from '../../../environments/cuisineworld/settings.ts';
import { environmentKind } from '../../../environments/registry.ts';
import { evalIdentity } from '../../../eval/identity.ts';
import { jobKeyOf } from '../../../eval/job.ts';
import type { PlannedJob } from '../../../eval/runner.ts';
import { textScorer } from '../../../eval/scorers.ts';
import type { EvalConfig, EvalItemRecord, VariantSpec } from '../../../eval/types.ts';
import { loadNodeRegistry } from '../../../node-sdk/registry.ts';
import {
  type SweepLayout,
  sweepPaperCells,
  sweepTables,
  sweepText,
} from '../../../paper-tables/cuisineworld/table-presenter.ts';
import { canonicalJson, sha256Hex } from '../../../providers/canonical.ts';
import { documentTextOf } from '../../../runs/record.ts';
import type { GraphDocument } from '../../../schema/document.ts';
import { migrateNodeData } from '../../../schema/node-versions.ts';
import { formatProblem } from '../../../schema/problems.ts';
import { applyBudgetFlags, type BudgetFlags, checkBudgets } from '../../budget-check.ts';
import { UsageError } from '../../errors.ts';
import { readSets } from '../../params.ts';
import { parseProviders } from '../../provider-flags.ts';
import type { EvalRunFlags } from '../eval/eval.ts';
import { positiveInt, runPlannedEval } from '../eval/eval.ts';
import { applyModelOverrides } from '../run.ts';
import { episodeDocument, readEpisodeSettings, withEpisodeSettings } from './sweep-document.ts';

function list(text: string, what: string): string[] {
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0) throw new UsageError(`${what}: give a comma-separated list`);
  return items;
}

/** Exactly one positive number. */
function one(text: string, what: string, integer: boolean): number {
  const values = numbers(text, what, integer);
  if (values.length !== 1) throw new UsageError(`${what}: give one number, not a list`);
  return values[0]!;
}

function numbers(text: string, what: string, integer: boolean): number[] {
  return list(text, what).map((item) => {
    const n = Number(item);
    if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)))
      throw new UsageError(`${what}: "${item}" is not a positive ${integer ? 'whole ' : ''}number`);
    return n;
  });
}

export interface SweepFlags extends EvalRunFlags, BudgetFlags {
  levels?: string;
  agents?: string;
  alphas?: string;
  episodes: string;
  steps: string;
  seed: string;
  controller?: string;
  model: string[];
  behaviour?: string;
  runner?: string;
  /** False with `--no-feedback` (commander's negation); true otherwise. */
  feedback: boolean;
  hints: boolean;
  demoSteps?: string;
  demoAgents?: string;
  set: string[];
  simulate?: boolean;
  provider?: string[];
  concurrency?: string;
  json?: boolean;
  db?: string;
  quiet?: boolean;
}

const FLAGS: Record<EpisodeSetting, string> = {
  level: '--levels',
  agents: '--agents',
  alpha: '--alphas',
  seed: '--seed',
  maxSteps: '--steps',
  runner: '--runner',
  feedback: '--no-feedback',
  hints: '--no-hints',
  demoSteps: '--demo-steps',
  demoAgents: '--demo-agents',
};

/** The document the sweep plays, before the grid: the file's or one built from the flags. */
function baseDocument(
  file: string | undefined,
  flags: SweepFlags,
): { doc: GraphDocument; who: string } {
  if (file !== undefined) {
    if (flags.controller !== undefined || flags.behaviour !== undefined)
      throw new UsageError(
        '--controller and --behaviour build a dispatcher; with a document, change its dispatcher instead',
      );
    let doc: GraphDocument;
    try {
      doc = JSON.parse(readFileSync(file, 'utf8')) as GraphDocument;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new UsageError(`cannot read ${file} (${code ?? (error as Error).message})`);
    }
    if (!doc || typeof doc !== 'object' || !Array.isArray(doc.nodes))
      throw new UsageError(`${file}: not a society document (no "nodes" list)`);
    applyModelOverrides(doc as unknown as Record<string, unknown>, flags.model);
    const models = Object.values(doc.models ?? {}).map((m) => `${m.provider}:${m.model}`);
    return {
      doc,
      who: `${doc.name ?? file}${models.length ? ` (${[...new Set(models)].join(', ')})` : ''}`,
    };
  }
  const controller = flags.controller ?? 'greedy';
  const behaviour = flags.behaviour ?? 'feedback';
  if (controller !== 'greedy' && controller !== 'model')
    throw new UsageError('--controller must be greedy or model');
  if (behaviour !== 'feedback' && behaviour !== 'retry')
    throw new UsageError('--behaviour must be feedback or retry');
  if (flags.model.length > 1) throw new UsageError('--model: give one PROVIDER:MODEL');
  let model: { provider: string; model: string } | undefined;
  if (controller === 'model') {
    const m = /^([^:=]+):(.+)$/.exec(flags.model[0] ?? '');
    if (!m)
      throw new UsageError(
        flags.model[0]
          ? `--model expects PROVIDER:MODEL, e.g. openai:gpt-4o-mini, got "${flags.model[0]}"`
          : '--controller model needs --model PROVIDER:MODEL, e.g. openai:gpt-4o-mini',
      );
    model = { provider: m[1]!, model: m[2]! };
  }
  return {
    doc: episodeDocument({ controller, behaviour, ...(model ? { model } : {}) }),
    who: model ? `${model.provider}:${model.model}` : 'greedy dispatcher (no model)',
  };
}

/** The ablations the flags ask for, and the variant's name they make. */
function ablationsOf(flags: SweepFlags): { settings: Partial<EpisodeSettings>; name: string } {
  const settings: Partial<EpisodeSettings> = {};
  const words: string[] = [];
  if (flags.feedback === false) {
    settings.feedback = false;
    words.push('no-feedback');
  }
  if (flags.hints === false) {
    settings.hints = false;
    words.push('no-hints');
  }
  const demoSteps = positiveInt(flags.demoSteps, '--demo-steps');
  if (demoSteps !== undefined) {
    if (demoSteps > 30) throw new UsageError('--demo-steps: at most 30');
    settings.demoSteps = demoSteps;
    words.push(`demo-steps-${demoSteps}`);
  }
  const demoAgents = positiveInt(flags.demoAgents, '--demo-agents');
  if (demoAgents !== undefined) {
    if (demoAgents > 8) throw new UsageError('--demo-agents: at most 8');
    settings.demoAgents = demoAgents;
    words.push(`demo-agents-${demoAgents}`);
  }
  return { settings, name: words.join('+') || 'full' };
}

export async function sweepCommand(file: string | undefined, flags: SweepFlags): Promise<number> {
  const kitchen = await environmentKind('cuisineworld');
  const registry = await loadNodeRegistry();
  const { doc: stored, who } = baseDocument(file, flags);
  // Nodes as this build reads them (an old dispatcher stored as a planner is a dispatcher),
  // so their `episode` hooks find the settings they hold.
  const upgraded = migrateNodeData(stored, registry);
  if (!upgraded.ok)
    throw new UsageError(`${file}: ${upgraded.problems.map(formatProblem).join('; ')}`);
  const base = upgraded.doc;
  const own = readEpisodeSettings(base, registry);
  const levels = list(flags.levels ?? (file && own.level ? own.level : '0,3'), '--levels').map(
    (name) => {
      const level = kitchen.level(name);
      if (!level)
        throw new UsageError(
          `--levels: no level "${name}" (levels: ${kitchen.levels().join(', ')})`,
        );
      return level;
    },
  );
  const agentCounts = numbers(
    flags.agents ?? (file && own.agents ? String(own.agents) : '2'),
    '--agents',
    true,
  );
  const tooMany = agentCounts.find((n) => n > 8);
  if (tooMany) throw new UsageError(`--agents: ${tooMany} is too many (at most 8)`);
  const alphas = flags.alphas ? numbers(flags.alphas, '--alphas', false) : [...TAU_ALPHAS];
  const episodes = one(flags.episodes, '--episodes', true);
  const maxSteps = one(flags.steps, '--steps', true);
  const providerOverrides = parseProviders(flags.provider ?? []);
  const concurrency = positiveInt(flags.concurrency, '--concurrency') ?? 4;
  const ablations = ablationsOf(flags);
  if (flags.runner !== undefined && flags.runner !== 'ours' && flags.runner !== 'paper')
    throw new UsageError(`--runner must be ours or paper, got "${flags.runner}"`);
  const runner = (flags.runner ?? own.runner ?? 'ours') as EpisodeSettings['runner'];
  const params = readSets(flags.set);
  const mode: EvalConfig['mode'] = flags.simulate ? 'simulated' : 'live';

  // One document per episode, compiled now so a bad one stops the sweep before it starts.
  const cells: Array<{ level: string; agents: number; alpha: number; episode: number }> = [];
  for (const agents of agentCounts)
    for (const level of levels)
      for (const alpha of alphas)
        for (let episode = 0; episode < episodes; episode++)
          cells.push({ level, agents, alpha, episode });
  const plan: PlannedJob[] = [];
  const hashes: string[] = [];
  const evalKey = {
    documents: hashes,
    grid: cells.length,
    ablations: ablations.settings,
    mode,
  };
  for (const [item, cell] of cells.entries()) {
    const doc = withEpisodeSettings(
      base,
      {
        level: cell.level,
        agents: cell.agents,
        alpha: cell.alpha,
        seed: `${flags.seed}:${cell.episode}`,
        maxSteps,
        ...(flags.runner === undefined ? {} : { runner }),
        ...ablations.settings,
      },
      registry,
      (key) => FLAGS[key],
    );
    applyBudgetFlags(doc as unknown as Record<string, unknown>, flags);
    const compiled = await compileGraph(doc, registry, { params });
    if (!compiled.ok)
      throw new UsageError(
        `${file ?? 'the sweep document'}: ${compiled.problems.map(formatProblem).join('; ')}`,
      );
    // Each episode's document is its own run: one whose budget cannot last is refused now.
    checkBudgets([{ plan: compiled.plan }], DEFAULT_PRICES, flags);
    const text = documentTextOf(compiled);
    const hash = sha256Hex(text);
    hashes.push(hash);
    plan.push({
      job: {
        evalId: '',
        item,
        variant: ablations.name,
        jobKey: jobKeyOf(hash, item, ablations.name),
        documentText: text,
        inputs: {},
        blobs: [],
        mode,
        ...(Object.keys(providerOverrides).length ? { providerOverrides } : {}),
      },
      row: { ...cell },
      label: `${cell.level} · ${cell.agents} agents · α ${cell.alpha} · episode ${cell.episode + 1}`,
      output: 'metrics',
    });
  }
  const evalId = evalIdentity(evalKey);
  for (const planned of plan) planned.job.evalId = evalId;
  const variant: VariantSpec = {
    name: ablations.name,
    model: flags.model,
    set: flags.set,
    provider: flags.provider ?? [],
  };
  const config: EvalConfig = {
    name: `CuisineWorld sweep · ${who}${ablations.name === 'full' ? '' : ` · ${ablations.name}`}`,
    document: file ?? 'a two-node graph built from --controller',
    documentHash: sha256Hex(hashes.join('\n')),
    data: `levels ${levels.join(',')} × agents ${agentCounts.join(',')} × α ${alphas.join(',')} × ${episodes} episode${episodes === 1 ? '' : 's'} of ${maxSteps} steps`,
    dataHash: sha256Hex(canonicalJson(cells)),
    map: [],
    output: 'metrics',
    scorer: { name: 'cos' },
    variants: [variant],
    mode,
  };
  const layout: SweepLayout = {
    cells,
    levels,
    agentCounts,
    alphas,
    title: `${who}${ablations.name === 'full' ? '' : ` · ${ablations.name}`}`,
    episodes,
    maxSteps,
    ablation: ablations.name,
    runner,
  };
  config.table = { kind: 'cuisineworld-sweep', context: layout };
  const tables = (items: readonly EvalItemRecord[]) => {
    const { results, failed } = sweepTables(items, layout);
    return { results, simulated: mode === 'simulated', failed };
  };
  return runPlannedEval({
    config,
    evalId,
    plan,
    prepared: [{ spec: variant }],
    rows: plan.length,
    flags,
    concurrency,
    scorer: textScorer('cos'),
    present: {
      text: (summary, items) => sweepText(summary, items, layout),
      json: (summary, items) => ({
        ...summary,
        levels,
        agents: agentCounts,
        alphas,
        episodes,
        ablations: ablations.settings,
        runner,
        ...tables(items),
        paper: sweepPaperCells(items, layout),
      }),
    },
  });
}
