/**
 * `society rate RUN --scale ID=SCORE…` (a person's scores of one run on a rubric's scales) and
 * `society ratings RUN|EVAL` (what people gave it). The scales come from the rubric of the eval
 * the run answered (`society eval … --rubric`), or from `--rubric` for any other run.
 */
import { userInfo } from 'node:os';
import { ratedScales } from '../../../eval/ratings.ts';
import { type Rubric, scoreProblem } from '../../../eval/rubrics.ts';
import type { EvalRating, EvalRecord, RatingRecord } from '../../../eval/types.ts';
import {
  AmbiguousEvalIdError,
  AmbiguousRunIdError,
  type RunRecord,
  type RunStore,
} from '../../../store/index.ts';
import { columns } from '../../../terminal/columns.ts';
import { splitAssignment } from '../../assignment.ts';
import { UsageError } from '../../errors.ts';
import { findRun, openStore } from '../../run-store.ts';
import { rubricFlag } from './rubric-flag.ts';

export interface RateFlags {
  scale: string[];
  /** One agent of the run is rated (its trajectory), not the whole run. */
  agent?: string;
  rater?: string;
  note?: string;
  rubric?: string;
  /** Remove this rater's ratings of the run instead. */
  clear?: boolean;
  json?: boolean;
  db?: string;
}

/** Who rates: `--rater`, else SOCIETY_RATER, else the login name. Checked to be one short line. */
export function raterOf(given: string | undefined, env = process.env): string {
  let name = given ?? env.SOCIETY_RATER;
  if (name === undefined) {
    try {
      name = userInfo().username;
    } catch {
      name = 'me';
    }
  }
  const rater = name.trim();
  if (!/^[^\p{Cc}]{1,80}$/u.test(rater))
    throw new UsageError('--rater: a name of 1 to 80 characters on one line');
  return rater;
}

/**
 * `--agent NAME`: one short line that the run's document or its parameters name as a quoted
 * string (so a typo is refused instead of stored as an agent nobody can find again).
 */
export function agentOf(
  store: RunStore,
  run: RunRecord,
  given: string | undefined,
): string | undefined {
  if (given === undefined) return undefined;
  const agent = given.trim();
  if (!/^[^\p{Cc}]{1,80}$/u.test(agent))
    throw new UsageError('--agent: a name of 1 to 80 characters on one line');
  const started = store.events(run.id, { types: ['run.started'] })[0];
  const params = started?.type === 'run.started' ? JSON.stringify(started.params ?? {}) : '';
  const quoted = JSON.stringify(agent);
  if (!run.documentText.includes(quoted) && !params.includes(quoted))
    throw new UsageError(`--agent ${agent}: run ${run.id} has no agent of that name`);
  return agent;
}

/** The eval a run answered an item of, with that item. */
function evalOfRun(store: RunStore, runId: string) {
  const item = store.evalItemOfRun(runId);
  const record = item ? store.getEval(item.evalId) : undefined;
  return item && record ? { item, record } : undefined;
}

/** The rubric a run is rated on: its eval's, or the one `--rubric` names (which must agree). */
function rubricFor(run: RunRecord, owner: EvalRecord | undefined, flag?: string): Rubric {
  const own = owner?.config.rubric;
  const given = flag === undefined ? undefined : rubricFlag(flag);
  if (own && given && own.name !== given.name)
    throw new UsageError(
      `--rubric ${given.name}: run ${run.id} belongs to eval ${owner!.id}, rated on rubric ${own.name}`,
    );
  const rubric = own ?? given;
  if (!rubric)
    throw new UsageError(
      `run ${run.id} is not an item of an eval with a rubric: name one with --rubric (itcma, or a .json file), or give the eval one with society eval … --rubric`,
    );
  return rubric;
}

/** `--scale ID=SCORE`, repeatable: the scores by scale. */
function parseScales(assignments: readonly string[], rubric: Rubric): Record<string, number> {
  const scores: Record<string, number> = {};
  for (const assignment of assignments) {
    const [scale, text] = splitAssignment(assignment, '--scale');
    if (Object.hasOwn(scores, scale)) throw new UsageError(`--scale ${scale} is given twice`);
    // Numbers only ("6"): Number() would also take "", "0x6" or "6e0".
    const score = /^-?\d{1,3}$/.test(text.trim()) ? Number(text) : Number.NaN;
    const problem = Number.isNaN(score)
      ? `${scale}: "${text}" is not a whole number from ${rubric.min} to ${rubric.max}`
      : scoreProblem(rubric, { [scale]: score });
    // An unknown scale is the first thing to say, whatever its score.
    const unknown = scoreProblem(rubric, { [scale]: rubric.min });
    if (unknown || problem) throw new UsageError(`--scale ${unknown ?? problem}`);
    scores[scale] = score;
  }
  return scores;
}

export function rateCommand(id: string, flags: RateFlags): void {
  const store = openStore(flags.db);
  try {
    const run = findRun(store, id);
    const rater = raterOf(flags.rater);
    const agent = agentOf(store, run, flags.agent);
    const owner = evalOfRun(store, run.id);
    const where = owner
      ? ` (eval ${owner.record.id}, item ${owner.item.item + 1}, variant ${owner.item.variant})`
      : '';
    const whose = agent === undefined ? `run ${run.id}` : `agent ${agent} of run ${run.id}`;
    if (flags.clear) {
      if (flags.scale.length) throw new UsageError('use one of --scale and --clear, not both');
      const removed = store.deleteRatings(run.id, {
        rater,
        ...(agent !== undefined ? { agent } : {}),
      });
      process.stdout.write(
        `removed ${removed} rating${removed === 1 ? '' : 's'} of ${whose}${where} by ${rater}\n`,
      );
      return;
    }
    const rubric = rubricFor(run, owner?.record, flags.rubric);
    // An eval without a rubric takes the one its item is rated on, so its table and the Evals
    // view's panel show the scales (as `society eval … --rubric` would, without running it again).
    const attach = owner && !owner.record.config.rubric;
    if (flags.scale.length === 0)
      throw new UsageError(
        `give a score with --scale ID=SCORE (rubric ${rubric.name}: ${rubric.scales.map((s) => s.id).join(', ')}, from ${rubric.min} to ${rubric.max})`,
      );
    const scores = parseScales(flags.scale, rubric);
    if (flags.note !== undefined && flags.note.length > 2000)
      throw new UsageError('--note: at most 2,000 characters');
    const ratings = store.atomically(() => {
      if (attach) store.setEvalRubric(owner.record.id, rubric);
      return store.putRatings({
        runId: run.id,
        ...(agent !== undefined ? { agent } : {}),
        rater,
        scores,
        ...(flags.note !== undefined ? { note: flags.note } : {}),
      });
    });
    if (attach)
      process.stderr.write(
        `society: eval ${owner.record.id} is now rated on rubric ${rubric.name}\n`,
      );
    if (flags.json) {
      process.stdout.write(
        `${JSON.stringify({ runId: run.id, ...(agent !== undefined ? { agent } : {}), ratings })}\n`,
      );
      return;
    }
    const given = Object.entries(scores)
      .map(([scale, score]) => `${scale} ${score}`)
      .join(', ');
    process.stdout.write(`rated ${whose}${where} as ${rater}: ${given}\n`);
  } finally {
    store.close();
  }
}

/** What `society ratings ID` names: an eval or a run (exact ids first, then unique prefixes). */
function findRated(store: RunStore, id: string): { record: EvalRecord } | { run: RunRecord } {
  let record: EvalRecord | undefined;
  let run: RunRecord | undefined;
  try {
    record = store.getEval(id);
  } catch (error) {
    if (!(error instanceof AmbiguousEvalIdError)) throw error;
    throw new UsageError(error.message);
  }
  try {
    run = store.getRun(id);
  } catch (error) {
    if (!(error instanceof AmbiguousRunIdError)) throw error;
    if (!record) findRun(store, id);
  }
  if (record && run && record.id !== id && run.id !== id)
    throw new UsageError(
      `"${id}" names both eval ${record.id} and run ${run.id}; give more of the id`,
    );
  if (record && (run === undefined || record.id === id)) return { record };
  if (run) return { run };
  throw new UsageError(`no run or eval "${id}" in ${store.path} (see \`society evals\`)`);
}

/** One row per run × agent × rater: its scores by scale, and the note. */
function ratingRows(
  ratings: readonly (RatingRecord & { item?: number; variant?: string })[],
  scales: readonly string[],
): string[] {
  const rows = new Map<string, string[]>();
  // The agent column only when some rating is of one agent (older stores rate whole runs).
  const byAgent = ratings.some((r) => r.agent !== undefined);
  const head = [
    'item',
    'variant',
    'run',
    ...(byAgent ? ['agent'] : []),
    'rater',
    ...scales,
    'note',
  ];
  for (const r of ratings) {
    const key = `${r.runId}\n${r.agent ?? ''}\n${r.rater}`;
    let row = rows.get(key);
    if (!row) {
      row = [
        r.item === undefined ? '–' : String(r.item + 1),
        r.variant ?? '–',
        r.runId,
        ...(byAgent ? [r.agent ?? '–'] : []),
        r.rater,
        ...scales.map(() => '–'),
        '',
      ];
      rows.set(key, row);
    }
    const at = scales.indexOf(r.scale);
    if (at >= 0) row[(byAgent ? 5 : 4) + at] = String(r.score);
    if (r.note) row[row.length - 1] = r.note.replace(/\s+/g, ' ').slice(0, 60);
  }
  return columns([head, ...rows.values()]);
}

export function ratingsCommand(id: string, flags: { json?: boolean; db?: string }): void {
  const store = openStore(flags.db);
  try {
    const found = findRated(store, id);
    let ratings: (RatingRecord | EvalRating)[];
    let rubric: Rubric | undefined;
    let title: string;
    if ('record' in found) {
      ratings = store.evalRatings(found.record.id);
      rubric = found.record.config.rubric;
      title = `eval ${found.record.id} · ${found.record.name}`;
    } else {
      const owner = evalOfRun(store, found.run.id);
      ratings = store
        .ratingsOfRun(found.run.id)
        .map((r) => (owner ? { ...r, item: owner.item.item, variant: owner.item.variant } : r));
      rubric = owner?.record.config.rubric;
      title = `run ${found.run.id}${owner ? ` · eval ${owner.record.id}` : ''}`;
    }
    if (flags.json) {
      const target = 'record' in found ? { evalId: found.record.id } : { runId: found.run.id };
      process.stdout.write(
        `${JSON.stringify({ ...target, ...(rubric ? { rubric } : {}), ratings })}\n`,
      );
      return;
    }
    const scales = ratedScales(rubric, ratings);
    const range = rubric ? ` · rubric ${rubric.name} (${rubric.min}–${rubric.max})` : '';
    if (ratings.length === 0) {
      process.stdout.write(
        `${title}${range}: no ratings yet (society rate RUN --scale ID=SCORE, or the Evals view)\n`,
      );
      return;
    }
    process.stdout.write(`${title}${range}\n${ratingRows(ratings, scales).join('\n')}\n`);
  } finally {
    store.close();
  }
}
