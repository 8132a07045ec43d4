/** `society runs`, `society show` and `society diff`: the run store as the terminal shows it. */

import { analyticsReportOf } from '../node-sdk/reported.ts';
import { tallyOf } from '../node-sdk/tally.ts';
import { diffRuns, type MessageDiff } from '../runs/diff.ts';
import type { RunEvent } from '../runtime/events.ts';
import type { RunRecord, RunSummary } from '../store/index.ts';
import { terminalText } from '../terminal/terminal-text.ts';
import type { ReportLines } from './report-lines.ts';

const money = (usd: number | undefined) => (usd === undefined ? 'no price' : `$${usd.toFixed(4)}`);
const when = (ms: number | undefined) =>
  ms === undefined ? '' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
const oneLine = (text: string, max: number) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** One line per run, newest first. */
export function formatRunList(runs: RunSummary[]): string {
  if (runs.length === 0) return 'no runs yet: start one with `society run FILE`\n';
  const rows = runs.map((r) => [
    r.id,
    oneLine(r.graph, 40),
    r.status,
    when(r.startedAt),
    String(r.calls),
    r.tokens.toLocaleString('en-US'),
    money(r.costUsd),
  ]);
  const header = ['run', 'graph', 'status', 'started (UTC)', 'calls', 'tokens', 'cost'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return terminalText(`${[line(header), ...rows.map(line)].join('\n')}\n`);
}

/** One run of `society runs --json`. */
export interface RunListEntry {
  id: string;
  status: string;
  mode: string;
  /** The document's name. */
  document: string;
  /** ISO 8601, UTC. */
  startedAt: string;
  /** ISO 8601, UTC; null while the run has not ended. */
  endedAt: string | null;
  calls: number;
  tokens: number;
  /** US dollars of the calls sent to a model; null when no call had a price. */
  costUsd: number | null;
  /** The run this one forks or continues. */
  parentRunId?: string;
}

/** The runs as `society runs --json` prints them, newest first. */
export function runListJson(runs: RunSummary[]): RunListEntry[] {
  return runs.map((r) => ({
    id: r.id,
    status: r.status,
    mode: r.mode,
    document: r.graph,
    startedAt: new Date(r.startedAt).toISOString(),
    endedAt: r.finishedAt === undefined ? null : new Date(r.finishedAt).toISOString(),
    calls: r.calls,
    tokens: r.tokens,
    costUsd: r.costUsd ?? null,
    ...(r.parentRunId !== undefined ? { parentRunId: r.parentRunId } : {}),
  }));
}

/** The transcript of a run grouped by mindstorm round, with votes and outputs. */
export function formatRun(run: RunRecord, events: RunEvent[], lines?: ReportLines): string {
  const out: string[] = [];
  const calls = events.filter((e) => e.type === 'model.response');
  const tokens = calls.reduce((n, e) => n + e.promptTokens + e.completionTokens, 0);
  const cost = calls.reduce((n, e) => n + (e.costUsd ?? 0), 0);
  const simulated = calls.some((e) => e.simulated);
  out.push(`run ${run.id} · ${run.graphName}`);
  out.push(
    `${run.status} · ${run.mode}${simulated ? ' (simulated answers)' : ''} · started ${when(run.startedAt)} UTC · ${calls.length} call${calls.length === 1 ? '' : 's'} · ${tokens.toLocaleString('en-US')} tokens · ${money(cost)}`,
  );
  if (run.parentRunId) out.push(`forked from ${run.parentRunId} at event ${run.forkSeq}`);
  const inputs = Object.entries(run.inputs).map(([k, v]) => `${k}=${display(v)}`);
  if (inputs.length) out.push(`inputs: ${inputs.join(', ')}`);
  const started = events.find((e) => e.type === 'run.started');
  const params = Object.entries(started?.params ?? {}).map(([k, v]) => `${k}=${display(v)}`);
  if (params.length) out.push(`parameters: ${params.join(', ')}`);

  let heading = '';
  for (const e of events) {
    const own = lines?.(e);
    if (own === null) continue;
    if (own !== undefined) {
      out.push(own);
      continue;
    }
    if (e.type === 'message') {
      const section = e.loop
        ? e.stage === 'round'
          ? `${e.loop}: round ${e.round}`
          : `${e.loop}: ${e.stage}`
        : 'messages';
      if (section !== heading) {
        heading = section;
        out.push('', `— ${section} —`);
      }
      out.push(`${e.from}${e.to.length ? ` → ${e.to.join(', ')}` : ''}: ${e.text}`);
    } else if (e.type === 'report' && tallyOf(e)) {
      // A vote's tally (whichever node held it) reads as the vote it was, ballot by ballot.
      const t = tallyOf(e)!;
      const counts = t.ranking.map((c) => `${c} ${t.counts[c]}`).join(', ');
      const ballots = t.ballots.map(
        (b) => `${b.voter}: ${b.valid ? b.choices.join(' > ') : `invalid (${b.reason ?? '?'})`}`,
      );
      out.push(
        `vote (${t.rule}) at ${e.instance}: winner ${t.winner === null ? 'none' : `"${t.winner}"`} · ${counts}`,
      );
      for (const b of ballots) out.push(`  ${b}`);
    } else if (e.type === 'tool.call') {
      out.push(`${e.instance} calls ${e.source} ${e.tool}(${e.arguments})`);
    } else if (e.type === 'tool.result') {
      out.push(
        `${e.instance} ← ${e.tool}${e.isError ? ' (error)' : ''}${e.simulated ? ' [simulated]' : ''}${e.edited ? ` [edited by ${e.editedBy?.person ?? 'a person'} ${e.editedBy?.via === 'studio' ? 'in the studio' : 'at the terminal'}]` : ''}: ${e.result}`,
      );
      if (e.edited && e.original !== undefined) out.push(`  (the tool gave: ${e.original})`);
    } else if (e.type === 'tool.error') {
      out.push(`${e.instance}: ${e.tool ? `${e.source} ${e.tool} failed: ` : ''}${e.error}`);
    } else if (e.type === 'human.response') {
      out.push(`${e.instance} (a person): ${e.answer}`);
    } else if (e.type === 'node.failed') {
      out.push(`${e.instance} failed: ${e.error}`);
    } else if (e.type === 'node.skipped') {
      out.push(`${e.instance} skipped: ${e.from} not taken (${e.reason})`);
    } else if (e.type === 'report' && !analyticsReportOf(e)) {
      // Series points and interactions are for `society show --series/--heatmap`.
      out.push(`${e.instance} reported ${e.kind}: ${display(e.data)}`);
    }
  }
  out.push('', ...usageBreakdown(events));
  if (run.outputs && Object.keys(run.outputs).length) {
    out.push('outputs:');
    for (const [name, value] of Object.entries(run.outputs))
      out.push(`  ${name}: ${display(value)}`);
  }
  if (run.error) out.push(`error: ${run.error}`);
  // Names, messages, outputs and errors come from documents and models: printed, never obeyed.
  return terminalText(`${out.join('\n')}\n`);
}

/** Calls, tokens and cost per node and per mindstorm round (from each call's instance id). */
function usageBreakdown(events: RunEvent[]): string[] {
  const calls = events.flatMap((e) => (e.type === 'model.response' ? [e] : []));
  if (calls.length === 0) return [];
  const group = (key: (instance: string, node: string) => string) => {
    const rows = new Map<
      string,
      { calls: number; tokens: number; cost: number; priced: boolean }
    >();
    for (const c of calls) {
      const k = key(c.instance, c.node);
      const row = rows.get(k) ?? { calls: 0, tokens: 0, cost: 0, priced: false };
      row.calls++;
      row.tokens += c.promptTokens + c.completionTokens;
      if (c.costUsd !== undefined) {
        row.cost += c.costUsd;
        row.priced = true;
      }
      rows.set(k, row);
    }
    return [...rows].map(
      ([k, r]) =>
        `  ${k.padEnd(22)} ${String(r.calls).padStart(5)} ${r.calls === 1 ? 'call ' : 'calls'} ${r.tokens.toLocaleString('en-US').padStart(9)} tokens  ${r.priced ? `$${r.cost.toFixed(4)}` : 'no price'}`,
    );
  };
  const roundOf = (instance: string) => {
    const at = /@(?:r(\d+)|(\w+))(?::|$)/.exec(instance);
    return at ? (at[1] ? `round ${at[1]}` : at[2]!) : 'outside loops';
  };
  return ['usage by node:', ...group((_, node) => node), 'usage by round:', ...group(roundOf), ''];
}

function display(value: unknown): string {
  if (typeof value === 'string')
    return value.includes('\n') ? `\n    ${value.split('\n').join('\n    ')}` : value;
  if (value && typeof value === 'object' && '$image' in value)
    return `[image ${(value as { mime?: string }).mime}]`;
  return JSON.stringify(value);
}

/** What changed between two runs: outputs, each sender's messages, votes and usage. */
export function formatDiff(
  a: RunRecord,
  aEvents: RunEvent[],
  b: RunRecord,
  bEvents: RunEvent[],
): string {
  const diff = diffRuns(a, aEvents, b, bEvents);
  const out: string[] = [`A ${a.id} (${a.status})`, `B ${b.id} (${b.status})`];
  if (diff.fork?.child === 'b') out.push(`B forks A after event ${diff.fork.afterSeq}`);
  if (diff.fork?.child === 'a') out.push(`A forks B after event ${diff.fork.afterSeq}`);

  out.push('', 'outputs:');
  for (const o of diff.outputs) {
    out.push(
      o.same
        ? `  ${o.name}: same`
        : `  ${o.name}: ${oneLine(JSON.stringify(o.a) ?? 'none', 70)} → ${oneLine(JSON.stringify(o.b) ?? 'none', 70)}`,
    );
  }

  const count = (change: MessageDiff['change']) => diff.messages.filter((m) => m.change === change);
  const changed = count('changed');
  const onlyA = count('onlyA');
  const onlyB = count('onlyB');
  out.push(
    '',
    `messages: ${count('same').length} same, ${changed.length} changed, ${onlyA.length} only in A, ${onlyB.length} only in B`,
  );
  for (const m of changed) {
    out.push(
      `  ${m.from}`,
      `    A: ${oneLine(m.a!.text, 110)}`,
      `    B: ${oneLine(m.b!.text, 110)}`,
    );
  }
  for (const m of onlyA) out.push(`  only in A: ${m.from}: ${oneLine(m.a!.text, 100)}`);
  for (const m of onlyB) out.push(`  only in B: ${m.from}: ${oneLine(m.b!.text, 100)}`);

  if (diff.votes.length) {
    out.push('', 'votes:');
    for (const v of diff.votes) {
      const x = v.a?.winner ?? 'none';
      const y = v.b?.winner ?? 'none';
      out.push(
        x === y ? `  ${v.instance}: same winner "${x}"` : `  ${v.instance}: "${x}" → "${y}"`,
      );
    }
  }

  const { a: ua, b: ub } = diff.usage;
  out.push(
    '',
    `usage: calls ${ua.calls} → ${ub.calls} (live ${ua.live} → ${ub.live}) · tokens ${ua.tokens.toLocaleString('en-US')} → ${ub.tokens.toLocaleString('en-US')} · cost ${money(ua.costUsd)} → ${money(ub.costUsd)}`,
  );
  // Names, messages, outputs and errors come from documents and models: printed, never obeyed.
  return terminalText(`${out.join('\n')}\n`);
}
