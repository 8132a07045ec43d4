import { describe, expect, it } from 'vitest';
import { compileGraph } from '../../../../app/compiler/index.ts';
import { estimateRun } from '../../../../app/costs/estimate.ts';
import { expertProviders } from '../../../../app/experts/providers.ts';
import { startRun } from '../../../../app/runtime/engine.ts';
import { formatProblem } from '../../../../app/schema/problems.ts';
import { agent, edge, eventsOf, graph, input, node, output } from '../../../support/graphs.ts';
import { registryWithFixtures } from '../../fixture-nodes.ts';

const registry = await registryWithFixtures();

/** A member who says the stop word in round 2 only: the chorus ends there, not at round 4. */
const SINGER = '{% if loop.round == 2 %}we are done{% else %}sing again{% endif %}';

function chorus(data: Record<string, unknown>, version?: number) {
  return graph(
    [
      input('topic'),
      node('choir', 'chorus', data, version ? { version } : {}),
      agent('singer', SINGER, {}, { parentId: 'choir' }),
      output('answer'),
      output('rounds'),
      output('closing'),
    ],
    [
      edge('topic.value', 'choir.topic'),
      edge('singer.text', 'answer.value'),
      edge('choir.rounds', 'rounds.value'),
      edge('choir.text', 'closing.value'),
    ],
  );
}

async function runChorus(doc: unknown) {
  const compiled = await compileGraph(doc, registry);
  if (!compiled.ok) expect.fail(compiled.problems.map(formatProblem).join('\n'));
  const run = startRun(compiled, {
    experts: expertProviders,
    registry,
    simulate: true,
    inputs: { topic: 'rain' },
  });
  const result = await run.result;
  return { ...result, events: run.events };
}

const CLOSING = 'Sung of {{ topic }}.';

describe('the chorus fixture loop type', () => {
  it('repeats the node inside it until it says the stop word, with the simulated provider', async () => {
    const { status, outputs, events } = await runChorus(
      chorus({ times: 4, until: 'Done', closing: CLOSING }),
    );
    expect(status).toBe('succeeded');
    // Round 2's answer quotes "we are done": two rounds of four, one call each.
    expect(eventsOf(events, 'model.request')).toHaveLength(2);
    expect(eventsOf(events, 'round.started').map((e) => e.round)).toEqual([1, 2]);
    expect(eventsOf(events, 'round.finished').at(-1)).toMatchObject({
      round: 2,
      stop: '"singer" said "Done"',
    });
    expect(outputs.rounds).toBe(2);
    expect(String(outputs.answer)).toContain('we are done');
    // The closing line reads the chorus's own input.
    expect(outputs.closing).toBe('Sung of rain.');
  });

  it('runs every round when no one says the word, and its estimate counts them', async () => {
    const doc = chorus({ times: 3, until: 'finished', closing: CLOSING });
    const { status, outputs, events } = await runChorus(doc);
    expect(status).toBe('succeeded');
    expect(eventsOf(events, 'model.request')).toHaveLength(3);
    expect(eventsOf(events, 'message').map((m) => m.round)).toEqual([1, 2, 3]);
    expect(outputs.rounds).toBe(3);
    const compiled = await compileGraph(doc, registry);
    if (!compiled.ok) expect.fail('the chorus must compile');
    expect(estimateRun(compiled.plan, {}).calls).toBe(3);
  });

  it('runs an empty chorus, which is valid as dropped', async () => {
    const doc = graph(
      [node('choir', 'chorus', { times: 2 }), output('rounds')],
      [edge('choir.rounds', 'rounds.value')],
    );
    const { status, outputs } = await runChorus(doc);
    expect(status).toBe('succeeded');
    expect(outputs.rounds).toBe(2);
  });

  it('checks what it holds: its members run every round', async () => {
    const doc = chorus({ closing: CLOSING });
    doc.nodes.find((n) => n.id === 'singer')!.data.stage = 'gather';
    const compiled = await compileGraph(doc, registry);
    expect(compiled.ok ? [] : compiled.problems.map(formatProblem)).toEqual([
      'node "choir" (nodes[1]): a chorus only has rounds: "singer" inside it has stage "gather"',
    ]);
  });

  it('reads version 1 data (`repeat`) as `times`', async () => {
    const compiled = await compileGraph(
      chorus({ repeat: 5, until: 'done', closing: CLOSING }, 1),
      registry,
    );
    if (!compiled.ok) expect.fail(compiled.problems.map(formatProblem).join('\n'));
    const choir = compiled.doc.nodes.find((n) => n.id === 'choir');
    expect(choir).toMatchObject({ version: 2, data: { times: 5, until: 'done' } });
    expect(choir?.data).not.toHaveProperty('repeat');
    expect(compiled.plan.nodes.get('choir')?.spec.loop?.maxRounds(choir?.data)).toBe(5);
  });

  it('refuses version 1 data its migration cannot read, naming the node', async () => {
    const compiled = await compileGraph(chorus({ repeat: 'often' }, 1), registry);
    expect(compiled.ok ? [] : compiled.problems.map(formatProblem)).toEqual([
      'node "choir" (nodes[1].version): migrating its data from version 1 to 2 failed: "repeat" must be a number',
    ]);
  });
});
