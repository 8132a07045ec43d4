import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type SimulatorServer,
  startSimulatorServer,
} from '../../tests/support/simulator-server.ts';
import { CuisineWorld } from './cuisineworld/world.ts';
import { ENVIRONMENTS, environmentOf, openEnvironment, resumeEnvironment } from './episodes.ts';
import { environmentSettings } from './registry.ts';
import { TextWorld } from './textworld/world.ts';
import type { EnvironmentContext, EnvironmentEpisode, EnvironmentView } from './types.ts';

/**
 * A driver that knows only the contract: every step, each agent acts on what it sees, until
 * the episode is over or `steps` were played. It never asks which environment it drives.
 */
async function drive(
  episode: EnvironmentEpisode,
  agents: string[],
  choose: (agent: string, view: EnvironmentView) => string,
  steps: number,
): Promise<string[]> {
  const feedback: string[] = [];
  for (let i = 0; i < steps && !episode.done(); i++) {
    for (const agent of agents) episode.act(agent, choose(agent, episode.observe(agent)));
    feedback.push(...(await episode.step()).feedback);
  }
  return feedback;
}

/** The first action on offer, or doing nothing in the environment's words. */
const first = (agent: string, view: EnvironmentView) => view.actions?.[0] ?? `noop_${agent}`;

let server: SimulatorServer;
beforeAll(async () => {
  server = await startSimulatorServer();
});
afterAll(() => server.close());

describe('one environment contract', () => {
  it('lists every environment folder by kind', () => {
    expect(ENVIRONMENTS).toEqual(['cuisineworld', 'textworld', 'external']);
    // The editor's list (./registry.ts) and the episodes are the same kinds, settings and all.
    for (const kind of ENVIRONMENTS) {
      expect(environmentOf(kind).settings, kind).toBe(environmentSettings(kind).settings);
    }
  });

  it('plays CuisineWorld as the world itself plays the same commands, and ends at maxSteps', async () => {
    const settings = { level: '3', agents: 2, seed: 5, maxSteps: 3 };
    const episode = openEnvironment('cuisineworld', settings);
    await episode.start();
    await drive(episode, ['agent0', 'agent1'], first, 10);
    const direct = new CuisineWorld();
    direct.reset({ level: 'level_3', agents: 2, seed: 5, maxSteps: 3 });
    for (let i = 0; i < 3; i++) direct.step(['noop_agent0', 'noop_agent1']);
    expect(episode.done()).toBe(true);
    expect(episode.report()).toMatchObject({ kind: 'cuisineworld', step: 3, done: true });
    expect(episode.observe().text).toBe(direct.render());
  });

  it('plays a text world turn by turn, each agent from the actions it is offered', async () => {
    const settings = { world: 'irollan-valley', seed: 1, maxSteps: 2 };
    const episode = openEnvironment('textworld', settings);
    const start = await episode.start();
    const world = TextWorld.create(
      (await import('./textworld/builtin.ts')).builtinWorld('irollan-valley'),
      { seed: 1 },
    );
    const agents = world.agents().slice(0, 2);
    expect(start.text).toContain(world.observe(agents[0]!));
    const feedback = await drive(episode, agents, first, 5);
    expect(episode.report()).toMatchObject({ kind: 'textworld', step: 2, done: true });
    expect(feedback.filter((f) => f.startsWith(`${agents[0]}:`))).toHaveLength(2);
  });

  it('plays an outside simulator over its protocol, one action a step', async () => {
    server.reset();
    const context: EnvironmentContext = { allowedOrigins: new Set([server.http]) };
    const episode = openEnvironment('external', { url: server.http, seed: 3 }, context);
    try {
      const start = await episode.start();
      expect(start.actions).toContain('east');
      await drive(episode, ['runner'], first, 50);
      expect(episode.done()).toBe(true);
      expect(episode.observe().text).toMatch(/You reach the exit/);
      expect(server.requests.map((r) => r.type)).toEqual([
        'reset',
        ...server.steps().map(() => 'step'),
      ]);
      expect(server.steps()[0]!.body).toMatchObject({ action: 'east', agent: 'runner', step: 1 });
    } finally {
      episode.close();
    }
  });

  it('refuses an outside simulator whose origin was not allowed, before contacting it', () => {
    server.reset();
    expect(() => openEnvironment('external', { url: server.http })).toThrow(
      /not an origin you allowed/,
    );
    expect(server.reached).toBe(0);
  });

  it('goes on from a saved episode exactly as the episode it was saved from', async () => {
    for (const [kind, settings, agents] of [
      ['cuisineworld', { level: '1', agents: 1, seed: 2, maxSteps: 6 }, ['agent0']],
      ['textworld', { world: 'irollan-valley', seed: 4, turnOrder: 'shuffled' }, ['AY', 'SG']],
    ] as const) {
      const whole = openEnvironment(kind, settings);
      await whole.start();
      await drive(whole, [...agents], first, 2);
      const saved = JSON.parse(JSON.stringify(whole.save()));
      const resumed = resumeEnvironment(kind, settings, saved);
      expect(resumed.observe().text, kind).toBe(whole.observe().text);
      const onward = await drive(whole, [...agents], first, 2);
      expect(await drive(resumed, [...agents], first, 2), kind).toEqual(onward);
      expect(resumed.report(), kind).toEqual(whole.report());
    }
  });

  it('says in one line which setting is wrong, and which kinds there are', () => {
    expect(() => openEnvironment('cuisineworld', { level: '3' })).toThrow(
      'CuisineWorld settings: agents:',
    );
    expect(() => openEnvironment('cuisineworld', { level: 'nowhere', agents: 1 })).toThrow(
      /CuisineWorld has no level "nowhere"/,
    );
    expect(() => openEnvironment('atlantis', {})).toThrow(
      'unknown environment "atlantis" (known: cuisineworld, textworld, external)',
    );
    expect(() => resumeEnvironment('textworld', { world: 'irollan-valley' }, 42)).toThrow(
      'not a text-world episode this environment saved',
    );
  });
});
