/**
 * Blinded rating for ITCMA-S's Table 1. The paper's 48 raters read each agent's 75-step
 * trajectory and rated that agent; they were not told which architecture produced it.
 * `society itcma rating-sheet EVAL --out DIR` writes every agent's trajectory of every run as a
 * file named by a random code, with nothing in it that names the architecture, plus a
 * `ratings.csv` to fill in; the key (code → run, agent, architecture) goes to a separate file
 * the raters do not get. `society itcma rating-import KEY RATINGS.csv` stores the filled-in
 * scores as ratings of those agents (`society rate RUN --agent NAME` would store the same).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { RUBRICS, type Rubric, scoreProblem } from '../../../eval/rubrics.ts';
import type { RunStore } from '../../../store/index.ts';
import { UsageError } from '../../errors.ts';
import { openStore } from '../../run-store.ts';
import { raterOf } from '../eval/rate.ts';
import { findEval } from '../eval/show.ts';

/** What a code stands for: which agent of which run, and (for the key's keeper) its variant. */
const KeyEntry = z.strictObject({
  runId: z.string().min(1),
  agent: z.string().min(1).max(80),
  item: z.number().int().min(0),
  variant: z.string().min(1),
});

/** The key file: the eval and every code of its sheet. */
const KeyFile = z.strictObject({
  format: z.literal('society-rating-key'),
  version: z.literal(1),
  evalId: z.string().min(1),
  codes: z.record(z.string().regex(/^[A-Z0-9]{6}$/), KeyEntry),
});
export type RatingKey = z.infer<typeof KeyFile>;

/** One step of an agent's trajectory, as a rater reads it. */
interface Step {
  sees?: string;
  says?: string;
  happened?: boolean;
}

/** The agents a run acted with: its bound `agents` parameter, else the document's default. */
function agentsOfRun(store: RunStore, runId: string, documentText: string): string[] {
  const started = store.events(runId, { types: ['run.started'] })[0];
  const bound = started?.type === 'run.started' ? started.params?.agents : undefined;
  if (Array.isArray(bound)) return bound.map(String);
  const doc = JSON.parse(documentText) as { params?: { agents?: { default?: unknown } } };
  const fallback = doc.params?.agents?.default;
  return Array.isArray(fallback) ? fallback.map(String) : [];
}

/**
 * Each agent's steps in a run, from the template's per-agent nodes (`people#i/look`, `act` and
 * `gate`, round by round): what it saw, what it thought and did, and whether that happened.
 */
export function trajectories(store: RunStore, runId: string): Map<string, Step[]> {
  const run = store.getRun(runId);
  if (!run) return new Map();
  const agents = agentsOfRun(store, runId, run.documentText);
  const byAgent = new Map<string, Step[]>(agents.map((a) => [a, []]));
  for (const event of store.events(runId, { types: ['node.finished'] })) {
    if (event.type !== 'node.finished') continue;
    const match = /^people#(\d+)\/(look|act|gate)@r(\d+)$/.exec(event.instance);
    const agent = match ? agents[Number(match[1])] : undefined;
    if (!match || agent === undefined) continue;
    const steps = byAgent.get(agent)!;
    const round = Number(match[3]) - 1;
    const step = steps[round] ?? {};
    steps[round] = step;
    const out = event.outputs;
    if (match[2] === 'look' && typeof out.value === 'string') step.sees = out.value;
    if (match[2] === 'act' && typeof out.text === 'string') step.says = out.text;
    if (match[2] === 'gate' && typeof out.executed === 'boolean') step.happened = out.executed;
  }
  return byAgent;
}

/** A trajectory as the rater's file: the steps, with no word about the architecture. */
function sheetText(code: string, agent: string, steps: readonly Step[], rubric: Rubric): string {
  const lines = [
    `# Trajectory ${code}: agent ${agent}`,
    '',
    `Read every step, then rate this agent in ratings.csv, on the row of code ${code}, from ${rubric.min} to ${rubric.max}:`,
    ...rubric.scales.map((s) => `- ${s.id}: ${s.description}`),
    '',
  ];
  for (const [i, step] of steps.entries()) {
    if (!step) continue;
    lines.push(`## Step ${i + 1}`, '');
    if (step.sees) lines.push(`Sees: ${step.sees}`, '');
    if (step.says) lines.push(step.says.trim(), '');
    if (step.happened === false) lines.push('(This action did not happen.)', '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

/** A code no other entry has: six characters, uppercase letters and digits. */
function newCode(taken: ReadonlySet<string>): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  for (;;) {
    const code = [...randomBytes(6)].map((b) => alphabet[b % alphabet.length]).join('');
    if (!taken.has(code)) return code;
  }
}

export interface RatingSheetFlags {
  out: string;
  key?: string;
  db?: string;
}

/** `society itcma rating-sheet EVAL --out DIR [--key FILE]`. */
export function ratingSheetCommand(id: string, flags: RatingSheetFlags): void {
  const out = resolve(flags.out);
  const keyFile = resolve(flags.key ?? `${out}.key.json`);
  const inside = relative(out, keyFile);
  if (!inside.startsWith('..') && !inside.startsWith('/'))
    throw new UsageError(`--key ${keyFile}: keep the key outside the raters' folder ${out}`);
  if (existsSync(out) && readdirSync(out).length > 0)
    throw new UsageError(`--out ${out}: the folder is not empty; give a new one`);
  if (existsSync(keyFile))
    throw new UsageError(`--key ${keyFile}: the file exists; give a new one`);
  const store = openStore(flags.db);
  try {
    const record = findEval(store, id);
    const rubric = record.config.rubric ?? RUBRICS.itcma!;
    const entries: { code: string; entry: z.infer<typeof KeyEntry>; text: string }[] = [];
    const taken = new Set<string>();
    for (const item of store.evalItems(record.id)) {
      if (!item.runId || item.status !== 'scored') continue;
      for (const [agent, steps] of trajectories(store, item.runId)) {
        if (steps.length === 0) continue;
        const code = newCode(taken);
        taken.add(code);
        const entry = { runId: item.runId, agent, item: item.item, variant: item.variant };
        entries.push({ code, entry, text: sheetText(code, agent, steps, rubric) });
      }
    }
    if (entries.length === 0)
      throw new UsageError(`eval ${record.id} has no finished run with agents to rate`);
    // Sorted by code, the files' order says nothing about the runs or the architectures.
    entries.sort((a, b) => a.code.localeCompare(b.code));
    mkdirSync(out, { recursive: true });
    for (const { code, text } of entries) writeFileSync(join(out, `${code}.md`), text);
    const header = ['code', ...rubric.scales.map((s) => s.id), 'note'];
    const csv = [header, ...entries.map(({ code }) => [code, ...rubric.scales.map(() => ''), ''])];
    writeFileSync(join(out, 'ratings.csv'), `${csv.map((row) => row.join(',')).join('\n')}\n`);
    const key: RatingKey = {
      format: 'society-rating-key',
      version: 1,
      evalId: record.id,
      codes: Object.fromEntries(entries.map(({ code, entry }) => [code, entry])),
    };
    mkdirSync(dirname(keyFile), { recursive: true });
    writeFileSync(keyFile, `${JSON.stringify(key, null, 2)}\n`);
    process.stdout.write(
      `wrote ${entries.length} trajectories (agents × runs) of eval ${record.id} to ${out} under random codes, with ratings.csv to fill in\nthe key is ${keyFile}: keep it from the raters; then \`society itcma rating-import ${keyFile} ${join(out, 'ratings.csv')} --rater NAME\`\n`,
    );
  } finally {
    store.close();
  }
}

/** A line of a CSV file split into fields (quoted fields may hold commas and doubled quotes). */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else field += c;
  }
  fields.push(field);
  return fields.map((f) => f.trim());
}

/** Reads the key file, refusing one that is not a rating key with the field that is wrong. */
export function readKey(file: string): RatingKey {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`${file}: not a readable JSON file (${(error as Error).message})`);
  }
  const parsed = KeyFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError(`${file}: ${issue.path.join('.') || 'key'}: ${issue.message}`);
  }
  return parsed.data;
}

export interface RatingImportFlags {
  rater?: string;
  db?: string;
}

/** `society itcma rating-import KEY RATINGS.csv --rater NAME`: the sheet's scores, stored per agent. */
export function ratingImportCommand(
  keyPath: string,
  csvPath: string,
  flags: RatingImportFlags,
): void {
  const key = readKey(keyPath);
  const rater = raterOf(flags.rater);
  let text: string;
  try {
    text = readFileSync(csvPath, 'utf8');
  } catch (error) {
    throw new UsageError(`${csvPath}: cannot read it (${(error as Error).message})`);
  }
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const header = csvFields(lines[0] ?? '');
  if (header[0] !== 'code')
    throw new UsageError(`${csvPath}: line 1: the first column must be "code"`);
  const store = openStore(flags.db);
  try {
    const record = findEval(store, key.evalId);
    const rubric = record.config.rubric ?? RUBRICS.itcma!;
    const noteAt = header.indexOf('note');
    const rows: {
      entry: z.infer<typeof KeyEntry>;
      scores: Record<string, number>;
      note?: string;
    }[] = [];
    for (const [index, line] of lines.slice(1).entries()) {
      const at = `${csvPath}: line ${index + 2}`;
      const fields = csvFields(line);
      const entry = key.codes[fields[0] ?? ''];
      if (!entry) throw new UsageError(`${at}: code "${fields[0]}" is not in the key ${keyPath}`);
      if (!store.getRun(entry.runId))
        throw new UsageError(
          `${at}: code ${fields[0]} names run ${entry.runId}, not in ${store.path}`,
        );
      const scores: Record<string, number> = {};
      for (const [column, name] of header.entries()) {
        if (column === 0 || column === noteAt || (fields[column] ?? '') === '') continue;
        const value = fields[column]!;
        const score = /^-?\d{1,3}$/.test(value) ? Number(value) : Number.NaN;
        const problem = Number.isNaN(score)
          ? `${name}: "${value}" is not a whole number from ${rubric.min} to ${rubric.max}`
          : scoreProblem(rubric, { [name]: score });
        if (problem) throw new UsageError(`${at}: ${problem}`);
        scores[name] = score;
      }
      const note = noteAt >= 0 ? fields[noteAt] : undefined;
      if (Object.keys(scores).length > 0)
        rows.push({ entry, scores, ...(note ? { note: note.slice(0, 2000) } : {}) });
    }
    // All rows or none: a bad line above refused the whole file before anything was stored.
    store.atomically(() => {
      for (const { entry, scores, note } of rows)
        store.putRatings({
          runId: entry.runId,
          agent: entry.agent,
          rater,
          scores,
          ...(note ? { note } : {}),
        });
    });
    const given = rows.reduce((n, r) => n + Object.keys(r.scores).length, 0);
    process.stdout.write(
      `stored ${given} scores of ${rows.length} agent trajectories of eval ${record.id} as ${rater}; the same \`society itcma eval\` command again prints Table 1 with them (nothing is run twice)\n`,
    );
  } finally {
    store.close();
  }
}
