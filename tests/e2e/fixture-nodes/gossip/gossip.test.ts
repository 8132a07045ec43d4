import { describe, expect, it } from 'vitest';
import { runAnalytics } from '../../../../app/analytics/reduce.ts';
import { compileGraph } from '../../../../app/compiler/index.ts';
import { expertProviders } from '../../../../app/experts/providers.ts';
import { analyticsReportOf } from '../../../../app/node-sdk/reported.ts';
import { eventIdentity, startRun } from '../../../../app/runtime/engine.ts';
import type { RunEvent } from '../../../../app/runtime/events.ts';
import { formatProblem } from '../../../../app/schema/problems.ts';
import { edge, graph, node, output, reportsOf } from '../../../support/graphs.ts';
import { registryWithFixtures } from '../../fixture-nodes.ts';

const registry = await registryWithFixtures();

/** Three rounds of a chorus, each playing two steps of the village: x runs 1 to 6. */
const village = graph(
  [
    node('days', 'chorus', { times: 3 }),
    node('village', 'gossip', { steps: 2 }, { parentId: 'days' }),
    output('summary'),
  ],
  [edge('village.text', 'summary.value')],
  { settings: { seed: 'village' } },
);

async function play(continueFrom?: RunEvent[]) {
  const compiled = await compileGraph(village, registry);
  if (!compiled.ok) expect.fail(compiled.problems.map(formatProblem).join('\n'));
  const run = startRun(compiled, {
    experts: expertProviders,
    registry,
    simulate: true,
    ...(continueFrom ? { continueFrom } : {}),
  });
  const result = await run.result;
  return { ...result, events: run.events };
}

/** The analytics reports, each as its identity and data, sorted, repeats kept. */
const identities = (events: RunEvent[]) =>
  events
    .filter((e) => analyticsReportOf(e))
    .map((e) => `${eventIdentity(e)} ${JSON.stringify(e.type === 'report' ? e.data : null)}`)
    .sort();

describe('analytics a node reports through its context', () => {
  it('become series and interaction reports the analytics reduce', async () => {
    const { status, events } = await play();
    expect(status).toBe('succeeded');
    // 3 rounds × 2 steps × 4 agents.
    const interactions = reportsOf(events, 'interaction');
    expect(interactions).toHaveLength(24);
    expect(interactions[0]).toMatchObject({ node: 'village', data: { kind: 'chat', x: 1 } });
    expect(interactions[0]!.instance).toMatch(/^village@/);

    const { heatmap, kinds, series } = runAnalytics(events);
    expect(kinds).toEqual(['chat', 'wave']);
    expect(heatmap.kind).toBe('chat');
    expect(heatmap.agents).toEqual(['ann', 'bob', 'cy', 'dee']);
    expect(heatmap.total).toBe(18);
    expect(heatmap.counts[3]!.every((n) => n === 0)).toBe(true);
    expect(heatmap.counts.map((row, i) => row[i])).toEqual([0, 0, 0, 0]);

    expect(series.map((s) => s.name)).toEqual(['mood', 'resources', 'topic']);
    const [mood, resources, topic] = series;
    expect(resources!.points.map((p) => p.x)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(resources).toMatchObject({ label: 'Resources', unit: 'coins', kind: 'number' });
    // Mood came one agent at a time; each step is still one point with every agent.
    expect(mood!.points).toHaveLength(6);
    expect(Object.keys(mood!.points[0]!.values).sort()).toEqual(['ann', 'bob', 'cy', 'dee']);
    expect(topic).toMatchObject({ kind: 'category', keys: ['canteen', 'library'] });
  });

  it('are the same on every replay of the same seed', async () => {
    const a = runAnalytics((await play()).events);
    const b = runAnalytics((await play()).events);
    expect(b).toEqual(a);
  });

  it('are neither lost nor doubled when a run is continued from any cut of its log', async () => {
    const reference = await play();
    const expected = runAnalytics(reference.events);
    const analyticsAt = reference.events.flatMap((e, i) => (analyticsReportOf(e) ? [i] : []));
    // Cuts before the first point, in the middle of a round's points, and after the last one.
    const cuts = [analyticsAt[0]!, analyticsAt[5]!, analyticsAt[40]!, analyticsAt.at(-1)! + 1];
    for (const cut of cuts) {
      const resumed = await play(reference.events.slice(0, cut));
      expect(resumed.status, `cut ${cut}`).toBe('succeeded');
      // A node may report the same identity twice (mood, one agent at a time): as often as before.
      expect(identities(resumed.events), `cut ${cut}`).toEqual(identities(reference.events));
      expect(reportsOf(resumed.events, 'interaction'), `cut ${cut}`).toHaveLength(24);
      expect(runAnalytics(resumed.events), `cut ${cut}`).toEqual(expected);
    }
  });
});
