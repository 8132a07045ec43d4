import { describe, expect, it } from 'vitest';
import { estimateRun } from '../../app/costs/estimate.ts';
import { DEFAULT_PRICES } from '../../app/costs/prices.ts';
import { smallWorld } from '../../app/environments/textworld/world.test-helper.ts';
import { estimateTokens } from '../../app/providers/text.ts';
import {
  agent,
  compile,
  edge,
  graph,
  node,
  output,
  problems,
  run,
} from '../../tests/support/graphs.ts';
import { readActions } from './execute.ts';
import { firstShowing } from './showing.ts';
import { worldData } from './spec.ts';

/** A world inside a loop of `rounds`, fed actions that arrive as the test says. */
function society(world: unknown, rounds: number, actions: unknown) {
  return graph(
    [
      node('loop', 'mindstorm', { maxRounds: rounds }),
      node('world', 'world', { world }, { parentId: 'loop' }),
      node(
        'given',
        'transform',
        { template: JSON.stringify(actions), output: 'json' },
        { parentId: 'loop' },
      ),
      output('facts'),
      output('events'),
      output('heatmap'),
      output('observations'),
    ],
    [
      edge('world.state', 'world.previous', { previousRound: true }),
      edge('given.value', 'world.actions', { previousRound: true }),
      edge('world.facts', 'facts.value'),
      edge('world.events', 'events.value', { collect: 'all' }),
      edge('world.heatmap', 'heatmap.value'),
      edge('world.observations', 'observations.value'),
    ],
  );
}

describe('world node', () => {
  it('refuses a written-out world with an unknown area, an item in two places or a script naming a missing item, by path', async () => {
    const lines = async (edit: (w: Record<string, any>) => void) => {
      const world = smallWorld() as unknown as Record<string, any>;
      edit(world);
      return (await problems(society(world, 1, [])))
        .map((p) => `${p.path}: ${p.message}`)
        .join('\n');
    };
    expect(
      await lines((w) => {
        w.agents[0].at = 'libary';
      }),
    ).toMatch(/nodes\[1\]\.data\.world\.agents\[0\]\.at: there is no area "libary"/);
    expect(
      await lines((w) => {
        w.items.push({ ...w.items[0] });
      }),
    ).toMatch(/nodes\[1\]\.data\.world\.items\[\d+\]\.id: /);
    expect(
      await lines((w) => {
        w.script = [{ step: 1, agent: w.agents[1].id, action: 'take toy 9 from table 1' }];
      }),
    ).toMatch(/nodes\[1\]\.data\.world\.script\[0\]\.action: .*toy 9/);
    const unknown = (await problems(society('atlantis', 1, []))).map(
      (p) => `${p.path}: ${p.message}`,
    );
    expect(unknown.join('\n')).toMatch(/data\.world: no built-in world "atlantis"/);
  });

  it('carries out the actions of the step before, holds back what a gate stopped, and counts chats', async () => {
    const world = smallWorld();
    const [a, b] = world.agents.map((x) => x.id) as [string, string];
    // Both start in the same place in the small world? Put them together to chat.
    world.agents[1]!.at = world.agents[0]!.at;
    const actions = [
      { key: a, value: `Thought: hello.\nAction: chat with ${b}: good morning`, executed: true },
      { key: b, value: 'Action: rest', executed: false, p: 0.6 },
    ];
    const { outputs, status, error } = await run(society(world, 3, actions));
    expect(error).toBeUndefined();
    expect(status).toBe('succeeded');
    const events = outputs.events as string[];
    expect(events[0]).toBe('');
    expect(events[1]).toContain('Step 1:');
    expect(events[1]).toContain(`${b}: rest — held back by the gate (chance 0.60)`);
    const facts = outputs.facts as Record<string, Record<string, number>>;
    expect(facts[a]).toMatchObject({ executed: 1, chatted: 1, held: 0 });
    expect(facts[b]).toMatchObject({ executed: 0, held: 1, spokenTo: 1 });
    const heatmap = outputs.heatmap as { agents: string[]; counts: number[][]; total: number };
    expect(heatmap.total).toBe(2);
    expect(heatmap.counts[heatmap.agents.indexOf(a!)]![heatmap.agents.indexOf(b!)]).toBe(2);
    const seen = outputs.observations as Record<string, string>;
    expect(seen[b!]).toContain('did not come off');
  });

  it('reads gate outcomes, records and "AGENT: action" lines', () => {
    expect(
      readActions(
        [
          [{ key: 'AY', value: 'rest', executed: false, p: 0.5 }],
          'SG: go to canteen',
          { agent: 'MD', action: 'rest' },
          'XX: rest',
          null,
        ],
        ['AY', 'SG', 'MD'],
      ),
    ).toEqual([
      { agent: 'AY', text: 'rest', executed: false, p: 0.5 },
      { agent: 'SG', text: 'go to canteen', executed: true },
      { agent: 'MD', text: 'rest', executed: true },
    ]);
  });
});

describe('world node in an estimate', () => {
  it("sizes an agent's prompt by what the world shows it as it starts", async () => {
    const doc = graph(
      [
        node('loop', 'mindstorm', { maxRounds: 1 }),
        node('world', 'world', { world: 'irollan-valley' }, { parentId: 'loop' }),
        node(
          'people',
          'group',
          { replicate: { items: ['AY', 'SG'], as: 'who' } },
          { parentId: 'loop' },
        ),
        agent(
          'act',
          'You see: {{ seen[who] }}',
          { slots: { seen: 'json' } },
          { parentId: 'people' },
        ),
        output('answer'),
      ],
      [
        edge('world.observations', 'act.seen'),
        edge('act.text', 'answer.value', { collect: 'all' }),
      ],
    );
    const estimate = estimateRun((await compile(doc)).plan, DEFAULT_PRICES);
    const seen = firstShowing(worldData.parse({ world: 'irollan-valley' }))!.observations as Record<
      string,
      string
    >;
    const rendered = estimateTokens(`You see: ${seen.AY}`) + estimateTokens(`You see: ${seen.SG}`);
    expect(estimate.calls).toBe(2);
    expect(estimate.promptTokens).toBeGreaterThanOrEqual(rendered - 2);
    expect(estimate.promptTokens).toBeLessThanOrEqual(rendered + 2);
  });
});
