/**
 * The simulator node playing episodes against a local simulator (tests/support/simulator-server.ts)
 * through real document runs: the `society` command for what a user sees (outputs, exit codes,
 * the one line of a failure), the engine in this process for what the events say.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stepsOf } from '../app/environments/step-report.ts';
import type { GraphDocument } from '../app/schema/document.ts';
import { society } from './support/cli.ts';
import { agent, edge, eventsOf, graph, node, output, problems, run } from './support/graphs.ts';
import { type SimulatorServer, startSimulatorServer } from './support/simulator-server.ts';

let server: SimulatorServer;
let dir: string;
beforeAll(async () => {
  server = await startSimulatorServer();
  dir = mkdtempSync(join(tmpdir(), 'society-simulator-'));
});
afterAll(() => server.close());
beforeEach(() => server.reset());

/** The test simulator's origins, allowed as a user allows them: nothing is reached otherwise. */
const allowed = () => ({ allowedOrigins: [server.http, server.ws] });

/**
 * A walk down the corridor: each round the simulator plays the action chosen last round (the
 * edge's `initial` is the opening move, so round 1 resets and steps), and a transform chooses
 * the next one from the actions on offer: east while east is offered.
 */
function walk(
  url: string,
  rounds: number,
  extra: { sim?: Record<string, unknown>; storm?: Record<string, unknown> } = {},
): GraphDocument {
  return graph(
    [
      node('walk', 'mindstorm', { maxRounds: rounds, ...extra.storm }),
      node(
        'sim',
        'simulator',
        { url, seed: 7, options: { length: 5 }, timeoutMs: 2000, ...extra.sim },
        { parentId: 'walk' },
      ),
      node(
        'choose',
        'transform',
        {
          template: '{% if actions contains "east" %}east{% else %}wait{% endif %}',
          slots: { actions: 'list<text>' },
        },
        { parentId: 'walk' },
      ),
      output('observation'),
      output('reward'),
      output('done'),
      output('episode'),
    ],
    [
      edge('sim.actions', 'choose.actions'),
      edge('choose.value', 'sim.action', { previousRound: true, initial: 'east' }),
      edge('sim.episode', 'sim.episode', { previousRound: true }),
      edge('sim.observation', 'observation.value'),
      edge('sim.reward', 'reward.value'),
      edge('sim.done', 'done.value'),
      edge('sim.episode', 'episode.value'),
    ],
    { models: {} },
  );
}

function write(name: string, doc: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(doc));
  return path;
}

describe('society run with a simulator node', () => {
  it.each(['http', 'ws'] as const)('plays a 5-step episode over %s', async (transport) => {
    const url = transport === 'http' ? server.http : server.ws;
    const result = await society([
      'run',
      write(`walk-${transport}.json`, walk(url, 5)),
      '--json',
      '--allow-host',
      url,
    ]);
    expect(result.stderr).not.toMatch(/error|failed/i);
    expect(result.code).toBe(0);
    expect(server.requests.map((r) => [r.transport, r.type])).toEqual([
      [transport, 'reset'],
      ...Array.from({ length: 5 }, () => [transport, 'step']),
    ]);
    expect(server.steps().map((s) => s.body.action)).toEqual([
      'east',
      'east',
      'east',
      'east',
      'east',
    ]);
    expect(server.steps().map((s) => [s.body.session, s.body.step])).toEqual([
      ['s1', 1],
      ['s1', 2],
      ['s1', 3],
      ['s1', 4],
      ['s1', 5],
    ]);
    const { outputs } = JSON.parse(result.stdout);
    expect(outputs.observation).toBe('You reach the exit after 5 steps.');
    expect(outputs.reward).toBe(1);
    expect(outputs.done).toBe(true);
    expect(outputs.episode).toMatchObject({ session: 's1', step: 5, totalReward: 1 });
  });

  it('fails the run in one line when the simulator answers out of protocol', async () => {
    server.fault('step', 'bad-observation', 2);
    const result = await society([
      'run',
      write('walk-bad.json', walk(server.http, 5)),
      '--allow-host',
      server.http,
    ]);
    expect(result.code).toBe(1);
    expect(
      result.stderr
        .trim()
        .split('\n')
        .at(-1)
        ?.startsWith(
          `society: node "sim" (sim@r3): simulator ${server.http} answered out of protocol to step: observation: expected text — fix the cause, then: society resume `,
        ),
    ).toBe(true);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(server.steps()).toHaveLength(3);
  });
});

describe('a simulator whose origin the user has not allowed', () => {
  it('is refused before anything is sent, this machine included, saying how to allow it', async () => {
    const result = await run(walk(server.ws, 3), { allowedOrigins: [server.http] });
    expect(result.status).toBe('failed');
    expect(result.error).toBe(
      `nothing was sent: this document contacts a host you have not allowed: ${server.ws} (node sim); a document cannot choose the hosts it reaches: society hosts --allow ${server.ws}`,
    );
    expect(server.reached).toBe(0);
  });

  it('is reached once allowed, even a host elsewhere', async () => {
    const far = 'http://sim.example.invalid:5123';
    const result = await run(walk(far, 3), { allowedOrigins: [far] });
    // The run goes out to it, and finds no such host: .invalid names never resolve.
    expect(result.error).toMatch(
      /^node "sim" \(sim@r1\): simulator http:\/\/sim\.example\.invalid:5123 could not be reached for reset: /,
    );
  });
});

describe('the embodied NLSOM example', () => {
  it('explores the simulator the URL parameter names, the captain choosing by letter', async () => {
    const result = await society([
      'run',
      'docs/examples/embodied-simulator.society.json',
      '--simulate',
      '--set',
      `simulator=${server.ws}`,
      '--allow-host',
      server.ws,
      '--json',
    ]);
    expect(result.code).toBe(0);
    // 4 steps: the first resets, the next three play the captain's last three choices.
    expect(server.requests.map((r) => r.type)).toEqual(['reset', 'step', 'step', 'step']);
    for (const s of server.steps()) expect(['east', 'west', 'wait']).toContain(s.body.action);
    const { outputs } = JSON.parse(result.stdout);
    expect(outputs.actions).toHaveLength(4);
    expect(outputs.steps).toMatch(/^Round 1, world@r1: reset \(seed 1\): You stand in cell 0/);
    expect(outputs.steps).toMatch(/Round 2, world@r2: \[simulated\] t=0: (east|west|wait) → /);
  });
});

describe('the simulator node in a loop', () => {
  it('calls the simulator no more once the episode is over, and a loop can stop on it', async () => {
    const long = await run(walk(server.http, 8), allowed());
    expect(long.status).toBe('succeeded');
    expect(server.steps()).toHaveLength(5);
    expect(stepsOf(long.events).map((e) => [e.step, e.done])).toEqual([
      [0, false],
      [1, false],
      [2, false],
      [3, false],
      [4, true],
    ]);
    expect(long.outputs.done).toBe(true);

    server.reset();
    const stopped = await run(
      walk(server.http, 8, { storm: { until: [{ kind: 'unchanged', node: 'sim' }] } }),
      allowed(),
    );
    expect(stopped.status).toBe('succeeded');
    expect(server.steps()).toHaveLength(5);
    expect(eventsOf(stopped.events, 'round.finished').at(-1)).toMatchObject({ round: 6 });
  });

  it('ends the episode at maxSteps', async () => {
    const result = await run(walk(server.http, 5, { sim: { maxSteps: 2 } }), allowed());
    expect(server.steps()).toHaveLength(2);
    expect(result.outputs.episode).toMatchObject({ step: 2, done: true, truncated: true });
  });

  it('plays the option letter an agent answers, from a simulated model', async () => {
    const doc = graph(
      [
        node('walk', 'mindstorm', { maxRounds: 3 }),
        node('sim', 'simulator', { url: server.ws, options: { length: 5 } }, { parentId: 'walk' }),
        agent(
          'pilot',
          '{{ observation }}\nWhat do you do? {{ actions | lettered }}',
          { parse: 'choice', slots: { actions: 'list<text>' } },
          { parentId: 'walk' },
        ),
      ],
      [
        edge('sim.observation', 'pilot.observation'),
        edge('sim.actions', 'pilot.actions'),
        edge('pilot.text', 'sim.action', { previousRound: true, initial: '' }),
        edge('sim.episode', 'sim.episode', { previousRound: true }),
      ],
    );
    const result = await run(doc, { simulate: true, ...allowed() });
    expect(result.status).toBe('succeeded');
    // Round 1 only resets (no opening move); rounds 2 and 3 play the letters chosen.
    expect(server.requests.map((r) => r.type)).toEqual(['reset', 'step', 'step']);
    for (const s of server.steps()) expect(['east', 'west', 'wait']).toContain(s.body.action);
    const steps = stepsOf(result.events);
    expect(steps.every((s) => s.simulated)).toBe(true);
  });

  it('says what to wire when the episode does not come back round to round', async () => {
    const doc = walk(server.http, 3);
    doc.edges = doc.edges.filter((e) => e.target !== 'sim' || e.targetHandle !== 'episode');
    const result = await run(doc, allowed());
    expect(result.status).toBe('failed');
    expect(result.error).toBe(
      'node "sim" (sim@r2): round 2 has no episode to continue: wire this node\'s episode output back to its episode input with an edge marked previousRound',
    );
  });

  it('refuses a URL it cannot use, naming the field', async () => {
    const found = await problems(walk('file:///etc/passwd', 2));
    expect(found).toContainEqual(
      expect.objectContaining({
        node: 'sim',
        message: 'a simulator is reached over http, https, ws or wss, not file',
      }),
    );
    expect(found[0]!.path).toMatch(/\.data\.url$/);
  });
});
