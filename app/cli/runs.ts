/** `society runs` and `society show`: views of the run store. */
import type { RunEvent } from '../runtime/events.ts';
import type { RunRecord, RunSummary } from '../store/index.ts';

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
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

/** The transcript of a run grouped by mindstorm round, with votes and outputs. */
export function formatRun(run: RunRecord, events: RunEvent[]): string {
  const out: string[] = [];
  const calls = events.filter((e) => e.type === 'model.response');
  const tokens = calls.reduce((n, e) => n + e.promptTokens + e.completionTokens, 0);
  const cost = calls.reduce((n, e) => n + (e.costUsd ?? 0), 0);
  const simulated = calls.some((e) => e.simulated);
  out.push(`run ${run.id} · ${run.graphName}`);
  out.push(
    `${run.status} · ${run.mode}${simulated ? ' (simulated answers)' : ''} · started ${when(run.startedAt)} UTC · ${calls.length} calls · ${tokens.toLocaleString('en-US')} tokens · ${money(cost)}`,
  );
  if (run.parentRunId) out.push(`forked from ${run.parentRunId} at event ${run.forkSeq}`);
  const inputs = Object.entries(run.inputs).map(([k, v]) => `${k}=${display(v)}`);
  if (inputs.length) out.push(`inputs: ${inputs.join(', ')}`);

  let heading = '';
  for (const e of events) {
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
    } else if (e.type === 'vote') {
      const t = e.tally;
      const counts = t.ranking.map((c) => `${c} ${t.counts[c]}`).join(', ');
      const ballots = t.ballots.map(
        (b) => `${b.voter}: ${b.valid ? b.choices.join(' > ') : `invalid (${b.reason ?? '?'})`}`,
      );
      out.push(
        `vote (${t.rule}) at ${e.instance}: winner ${t.winner === null ? 'none' : `"${t.winner}"`} · ${counts}`,
      );
      for (const b of ballots) out.push(`  ${b}`);
    } else if (e.type === 'human.response') {
      out.push(`${e.instance} (a person): ${e.answer}`);
    } else if (e.type === 'node.failed') {
      out.push(`${e.instance} failed: ${e.error}`);
    }
  }
  out.push('');
  if (run.outputs && Object.keys(run.outputs).length) {
    out.push('outputs:');
    for (const [name, value] of Object.entries(run.outputs))
      out.push(`  ${name}: ${display(value)}`);
  }
  if (run.error) out.push(`error: ${run.error}`);
  return `${out.join('\n')}\n`;
}

function display(value: unknown): string {
  if (typeof value === 'string')
    return value.includes('\n') ? `\n    ${value.split('\n').join('\n    ')}` : value;
  if (value && typeof value === 'object' && '$image' in value)
    return `[image ${(value as { mime?: string }).mime}]`;
  return JSON.stringify(value);
}
