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
  out.push('', ...usageBreakdown(events));
  if (run.outputs && Object.keys(run.outputs).length) {
    out.push('outputs:');
    for (const [name, value] of Object.entries(run.outputs))
      out.push(`  ${name}: ${display(value)}`);
  }
  if (run.error) out.push(`error: ${run.error}`);
  return `${out.join('\n')}\n`;
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
        `  ${k.padEnd(22)} ${String(r.calls).padStart(5)} calls ${r.tokens.toLocaleString('en-US').padStart(9)} tokens  ${r.priced ? `$${r.cost.toFixed(4)}` : 'no price'}`,
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
  const out: string[] = [`A ${a.id} (${a.status})`, `B ${b.id} (${b.status})`];
  if (b.parentRunId === a.id) out.push(`B forks A after event ${b.forkSeq}`);
  if (a.parentRunId === b.id) out.push(`A forks B after event ${a.forkSeq}`);

  out.push('', 'outputs:');
  const names = [...new Set([...Object.keys(a.outputs ?? {}), ...Object.keys(b.outputs ?? {})])];
  for (const name of names) {
    const left = JSON.stringify(a.outputs?.[name]);
    const right = JSON.stringify(b.outputs?.[name]);
    out.push(
      left === right
        ? `  ${name}: same`
        : `  ${name}: ${oneLine(left ?? 'none', 70)} → ${oneLine(right ?? 'none', 70)}`,
    );
  }

  const messages = (events: RunEvent[]) =>
    new Map(events.flatMap((e) => (e.type === 'message' ? [[e.from, e.text] as const] : [])));
  const left = messages(aEvents);
  const right = messages(bEvents);
  const senders = [...new Set([...left.keys(), ...right.keys()])];
  const changed = senders.filter(
    (s) => left.has(s) && right.has(s) && left.get(s) !== right.get(s),
  );
  const onlyA = senders.filter((s) => !right.has(s));
  const onlyB = senders.filter((s) => !left.has(s));
  out.push(
    '',
    `messages: ${senders.length - changed.length - onlyA.length - onlyB.length} same, ${changed.length} changed, ${onlyA.length} only in A, ${onlyB.length} only in B`,
  );
  for (const s of changed) {
    out.push(
      `  ${s}`,
      `    A: ${oneLine(left.get(s)!, 110)}`,
      `    B: ${oneLine(right.get(s)!, 110)}`,
    );
  }
  for (const s of onlyA) out.push(`  only in A: ${s}: ${oneLine(left.get(s)!, 100)}`);
  for (const s of onlyB) out.push(`  only in B: ${s}: ${oneLine(right.get(s)!, 100)}`);

  const votes = (events: RunEvent[]) =>
    new Map(
      events.flatMap((e) => (e.type === 'vote' ? [[e.instance, e.tally.winner] as const] : [])),
    );
  const va = votes(aEvents);
  const vb = votes(bEvents);
  const polls = [...new Set([...va.keys(), ...vb.keys()])];
  if (polls.length) {
    out.push('', 'votes:');
    for (const p of polls) {
      const x = va.get(p) ?? 'none';
      const y = vb.get(p) ?? 'none';
      out.push(x === y ? `  ${p}: same winner "${x}"` : `  ${p}: "${x}" → "${y}"`);
    }
  }

  const usage = (events: RunEvent[]) => {
    const calls = events.filter((e) => e.type === 'model.response');
    return {
      calls: calls.length,
      live: calls.filter((e) => e.source === 'live').length,
      tokens: calls.reduce((n, e) => n + e.promptTokens + e.completionTokens, 0),
      cost: calls.reduce((n, e) => n + (e.costUsd ?? 0), 0),
    };
  };
  const ua = usage(aEvents);
  const ub = usage(bEvents);
  out.push(
    '',
    `usage: calls ${ua.calls} → ${ub.calls} (live ${ua.live} → ${ub.live}) · tokens ${ua.tokens.toLocaleString('en-US')} → ${ub.tokens.toLocaleString('en-US')} · cost ${money(ua.cost)} → ${money(ub.cost)}`,
  );
  return `${out.join('\n')}\n`;
}
