/**
 * One node type drives any environment: the simulator node plays CuisineWorld, a text world
 * and an outside simulator (tests/support/simulator-server.ts) by its `kind`, through the same
 * rounds of the same loop, each episode ending at its maxSteps; a document that names no kind
 * still drives an outside simulator, as it always did.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CuisineWorld } from '../app/environments/cuisineworld/world.ts';
import { stepsOf } from '../app/environments/step-report.ts';
import { builtinWorld } from '../app/environments/textworld/builtin.ts';
import { TextWorld } from '../app/environments/textworld/world.ts';
import type { GraphDocument } from '../app/schema/document.ts';
import { migrateNodeData } from '../app/schema/node-versions.ts';
import { describeFields, shownFields } from '../renderer/model/schemaForm.ts';
import { edge, graph, node, output, problems, registry, run } from './support/graphs.ts';
import { type SimulatorServer, startSimulatorServer } from './support/simulator-server.ts';

let server: SimulatorServer;
beforeAll(async () => {
  server = await startSimulatorServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

/**
 * A loop of `rounds` rounds around a simulator node with `data`: each round it plays what a
 * transform chose from the actions on offer last round (`choose`, a Liquid template; `opening`
 * is round 1's move), acting as `agent` when one is given.
 */
function episode(
  data: Record<string, unknown>,
  rounds: number,
  choose: string,
  opening: string,
  agent?: string,
): GraphDocument {
  return graph(
    [
      node('loop', 'mindstorm', { maxRounds: rounds }),
      node('sim', 'simulator', data, { parentId: 'loop' }),
      node(
        'choose',
        'transform',
        { template: choose, slots: { actions: 'list<text>' } },
        { parentId: 'loop' },
      ),
      ...(agent ? [node('who', 'transform', { template: agent, slots: {} })] : []),
      output('observation'),
      output('done'),
      output('state'),
    ],
    [
      edge('sim.actions', 'choose.actions'),
      edge('choose.value', 'sim.action', { previousRound: true, initial: opening }),
      edge('sim.episode', 'sim.episode', { previousRound: true }),
      ...(agent ? [edge('who.value', 'sim.agent')] : []),
      edge('sim.observation', 'observation.value'),
      edge('sim.done', 'done.value'),
      edge('sim.state', 'state.value'),
    ],
    { models: {} },
  );
}

describe('the simulator node drives any environment by its kind', () => {
  it('plays CuisineWorld: the kitchen it shows is the kitchen the same commands make', async () => {
    const doc = episode(
      { kind: 'cuisineworld', seed: 5, maxSteps: 3, settings: { level: '3', agents: 1 } },
      5,
      // CuisineWorld lists no actions: each round does nothing, in its own words.
      '{{ actions | first | default: "noop_agent0" }}',
      'noop_agent0',
    );
    const result = await run(doc);
    expect(result.status).toBe('succeeded');
    const direct = new CuisineWorld();
    direct.reset({ level: 'level_3', agents: 1, seed: 5, maxSteps: 3 });
    for (let i = 0; i < 3; i++) direct.step(['noop_agent0']);
    expect(result.outputs.observation).toBe(direct.render());
    expect(result.outputs.done).toBe(true);
    expect(result.outputs.state).toMatchObject({ metrics: { steps: 3 } });
    // Three steps, then the episode is over: rounds 4 and 5 play nothing.
    expect(stepsOf(result.events).map((s) => [s.step, s.done, s.commands[0]?.command])).toEqual([
      [0, false, 'noop_agent0'],
      [1, false, 'noop_agent0'],
      [2, true, 'noop_agent0'],
    ]);
    expect(server.reached).toBe(0);
  });

  it('plays a text world as one of its agents, choosing from the actions it is offered', async () => {
    const doc = episode(
      { kind: 'textworld', seed: 1, maxSteps: 2, settings: { world: 'irollan-valley' } },
      4,
      '{{ actions | first }}',
      'wait',
      'AY',
    );
    const result = await run(doc);
    expect(result.status).toBe('succeeded');
    const steps = stepsOf(result.events);
    expect(steps.map((s) => [s.step, s.done, s.commands[0]?.by])).toEqual([
      [0, false, 'AY'],
      [1, true, 'AY'],
    ]);
    // What AY did, the world said of AY; and what the node shows is AY's view of that world.
    for (const s of steps) expect(s.feedback.some((f) => f.startsWith('AY: '))).toBe(true);
    const world = TextWorld.create(builtinWorld('irollan-valley'), { seed: 1 });
    for (const s of steps) world.step([{ agent: 'AY', action: s.commands[0]!.command }]);
    expect(result.outputs.observation).toBe(world.observe('AY'));
    expect(result.outputs.done).toBe(true);
    expect(server.reached).toBe(0);
  });

  it('plays an outside simulator, reached only because its kind takes a URL', async () => {
    const doc = episode(
      { kind: 'external', url: server.http, seed: 7, maxSteps: 2, options: { length: 5 } },
      4,
      '{% if actions contains "east" %}east{% else %}wait{% endif %}',
      'east',
    );
    const result = await run(doc, { allowedOrigins: [server.http] });
    expect(result.status).toBe('succeeded');
    expect(server.requests.map((r) => r.type)).toEqual(['reset', 'step', 'step']);
    expect(stepsOf(result.events).map((s) => [s.step, s.done])).toEqual([
      [0, false],
      [1, true],
    ]);
    expect(result.outputs.observation).toMatch(/\S/);
    expect(result.outputs.done).toBe(true);
  });
});

describe('a simulator document from before kinds', () => {
  const old = () =>
    graph(
      [node('sim', 'simulator', { url: server.http, seed: 1, timeoutMs: 2000 }), output('done')],
      [edge('sim.done', 'done.value')],
      { models: {} },
    );

  it('reads as it was stored, and drives an outside simulator', async () => {
    const doc = old();
    const read = migrateNodeData(doc, registry);
    expect(read).toMatchObject({ ok: true, migrated: [] });
    expect(read.ok && read.doc).toBe(doc);
    const result = await run(doc, { allowedOrigins: [server.http] });
    expect(result.status).toBe('succeeded');
    expect(server.requests.map((r) => r.type)).toEqual(['reset']);
  });

  it('names its URL as the host it reaches; a local world names none', async () => {
    const spec = registry.get('simulator')!;
    const data = (d: Record<string, unknown>) => spec.data.parse(d);
    expect(spec.origins!(data({ url: server.http }))).toEqual([server.http]);
    expect(
      spec.origins!(data({ kind: 'textworld', url: server.http, settings: { world: 'x' } })),
    ).toEqual([]);
  });
});

describe("a kind's settings", () => {
  it("are the inspector's fields for that kind: a URL only for an outside simulator", () => {
    const spec = registry.get('simulator')!;
    const fields = describeFields(spec.data);
    const shown = (kind: string) =>
      shownFields(fields, spec.data.parse({ kind })).map((f) => `${f.name}:${f.field.kind}`);
    const common = ['kind:enum', 'seed:json', 'maxSteps:number'];
    expect(shown('external')).toEqual(
      expect.arrayContaining([...common, 'url:string', 'timeoutMs:number', 'options:json']),
    );
    expect(shown('external')).not.toContain('settings:json');
    expect(shown('cuisineworld')).toEqual(
      expect.arrayContaining([...common, 'options:json', 'settings:json']),
    );
    expect(shown('textworld')).toEqual(expect.arrayContaining([...common, 'settings:json']));
    for (const kind of ['cuisineworld', 'textworld']) {
      expect(
        shown(kind).filter((f) => /^(url|timeoutMs):/.test(f)),
        kind,
      ).toEqual([]);
    }
  });

  it('are checked by its own schema, each problem one line on the field that holds it', async () => {
    const sim = (data: Record<string, unknown>) =>
      graph([node('sim', 'simulator', data)], [], { models: {} });
    const first = async (data: Record<string, unknown>) => {
      const [problem] = await problems(sim(data));
      return [problem!.path.replace(/^.*\.data\./, ''), problem!.message];
    };
    expect(await first({ kind: 'cuisineworld', settings: { level: '3' } })).toEqual([
      'settings',
      'CuisineWorld: agents: Invalid input: expected number, received undefined',
    ]);
    expect(await first({ kind: 'textworld', settings: { world: 'x', turn: 'fixed' } })).toEqual([
      'settings',
      'Text world: turn: not one of its settings (it takes world, seed, turnOrder, maxSteps)',
    ]);
    expect(await first({ kind: 'textworld', settings: { world: 'x', seed: 2 } })).toEqual([
      'settings',
      'seed is a field of its own here, not a setting',
    ]);
    // A URL is a local world's business no more than its problems are.
    expect(
      (
        await run(
          sim({ kind: 'textworld', url: 'file:///etc', settings: { world: 'irollan-valley' } }),
        )
      ).status,
    ).toBe('succeeded');
  });
});
