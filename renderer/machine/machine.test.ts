import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileGraph } from '../../app/compiler/index.ts';
import { applyEvents, idleRun, startingRun } from '../model/run.ts';
import { READABLE_ZOOM, readableStart } from './fit.ts';
import { type MachineGraph, machineGraph, ROOT_MACHINE, stateNodeId, taskNodeId } from './graph.ts';
import { machineHighlight } from './highlight.ts';
import { layoutMachineGraph } from './layout.ts';

/** The machines `document.compile` returns for the VQA mindstorm template. */
let machines: unknown;
let graph: MachineGraph;

beforeAll(async () => {
  const text = readFileSync(
    new URL('../../templates/nlsom-vqa.society.json', import.meta.url),
    'utf8',
  );
  const compiled = await compileGraph(text);
  if (!compiled.ok) throw new Error(compiled.problems[0]?.message);
  // What crosses the wire: plain JSON.
  machines = JSON.parse(JSON.stringify(compiled.machines));
  graph = machineGraph(machines);
});

const node = (id: string) => graph.nodes.find((n) => n.id === id);
const edgesFrom = (id: string) => graph.edges.filter((e) => e.source === id);

describe('the machine drawing', () => {
  it('has a box per machine, its states inside, and the scheduled nodes inside `running`', () => {
    expect(graph.machines).toEqual([
      ROOT_MACHINE,
      'scope:storm:init',
      'scope:storm:round',
      'scope:storm:gather',
      'scope:storm:decide',
      'loop:storm',
    ]);
    expect(node(ROOT_MACHINE)).toMatchObject({ kind: 'machine', label: 'society', group: true });
    expect(node(stateNodeId(ROOT_MACHINE, ['running']))).toMatchObject({
      kind: 'state',
      parent: ROOT_MACHINE,
      initial: true,
      group: true,
    });
    expect(node(stateNodeId(ROOT_MACHINE, ['succeeded']))).toMatchObject({ final: true });
    const member = node(taskNodeId('scope:storm:round', ['running'], 'member'));
    expect(member).toMatchObject({
      kind: 'task',
      parent: 'scope:storm:round/running',
      node: 'member',
      replicas: 3,
    });
    // Transitions that stay in the state have no arrow: the state lists them.
    expect(node(stateNodeId(ROOT_MACHINE, ['running']))?.details).toEqual(
      expect.arrayContaining(['entry: schedule', 'task.done / complete, schedule']),
    );
  });

  it('draws transitions as labelled arrows, with guards and actions', () => {
    const running = stateNodeId(ROOT_MACHINE, ['running']);
    expect(edgesFrom(running)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          target: stateNodeId(ROOT_MACHINE, ['succeeded']),
          label: 'always [allDone]',
          kind: 'always',
        }),
        expect.objectContaining({
          target: stateNodeId(ROOT_MACHINE, ['failed']),
          label: 'task.failed / fail',
          kind: 'event',
        }),
      ]),
    );
    const between = stateNodeId('loop:storm', ['between']);
    expect(edgesFrom(between).map((e) => [e.target, e.label])).toEqual([
      [stateNodeId('loop:storm', ['round']), 'always [loopContinues loop=storm maxRounds=3]'],
      [stateNodeId('loop:storm', ['gather']), 'always'],
    ]);
    expect(edgesFrom(stateNodeId('loop:storm', ['round']))).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ target: between, label: 'done / loopEnd', kind: 'done' }),
        expect.objectContaining({ target: 'scope:storm:round', kind: 'invoke' }),
      ]),
    );
  });

  it('joins machines to what starts them, and scheduled nodes to the ones they read', () => {
    const storm = taskNodeId(ROOT_MACHINE, ['running'], 'storm');
    expect(edgesFrom(storm)).toContainEqual(
      expect.objectContaining({ target: 'loop:storm', label: 'storm spawns', kind: 'invoke' }),
    );
    expect(edgesFrom(taskNodeId(ROOT_MACHINE, ['running'], 'question'))).toContainEqual(
      expect.objectContaining({ target: storm, kind: 'needs' }),
    );
    expect(
      edgesFrom(taskNodeId('scope:storm:round', ['running'], 'organizer')).map((e) => e.target),
    ).toEqual([taskNodeId('scope:storm:round', ['running'], 'member')]);
    // Every arrow joins two boxes that exist, and ids are unique.
    const ids = new Set(graph.nodes.map((n) => n.id));
    expect(ids.size).toBe(graph.nodes.length);
    for (const e of graph.edges) {
      expect(ids.has(e.source) && ids.has(e.target), e.id).toBe(true);
    }
    expect(new Set(graph.edges.map((e) => e.id)).size).toBe(graph.edges.length);
  });

  it('resolves nested, child and #id targets the way XState does', () => {
    const g = machineGraph({
      root: {
        id: 'm',
        initial: 'a',
        states: {
          a: {
            initial: 'one',
            states: { one: { on: { NEXT: 'two' } }, two: { on: { UP: '#m.b', IN: '.deep' } } },
            on: { GO: { target: 'b', guard: 'ready' }, ODD: 'nowhere' },
          },
          b: { id: 'bee', after: { 500: '#bee' }, states: { deep: {} } },
        },
      },
      children: {},
    });
    const labels = g.edges.map((e) => `${e.source} ${e.label} ${e.target}`);
    expect(labels).toEqual([
      'root/a GO [ready] root/b',
      'root/a/one NEXT root/a/two',
      'root/a/two UP root/b',
      'root/b after 500ms root/b',
    ]);
    expect(g.nodes.find((n) => n.id === 'root/a')).toMatchObject({ group: true, initial: true });
    expect(g.nodes.find((n) => n.id === 'root/a/one')).toMatchObject({ parent: 'root/a' });
  });

  it('skips what it does not understand instead of failing', () => {
    expect(machineGraph(undefined)).toEqual({ nodes: [], edges: [], machines: [] });
    expect(
      machineGraph({ root: { states: { a: 5, b: { on: { X: [7, null] } } } } }).nodes,
    ).toHaveLength(2);
  });
});

describe('the current state during a run', () => {
  const started = (nodes: string[]) => startingRun(nodes);

  it('lights nothing before a run', () => {
    expect(machineHighlight(graph, idleRun())).toEqual({ boxes: {}, notes: {} });
  });

  it("lights the running member's task, its stage, the loop's round and the root's running state", () => {
    const run = applyEvents(started(['question', 'image', 'storm', 'organizer', 'member']), [
      { type: 'run.started', seq: 0, mode: 'simulated' },
      { type: 'node.started', seq: 1, node: 'question', instance: 'question' },
      { type: 'node.finished', seq: 2, node: 'question', instance: 'question' },
      { type: 'round.started', seq: 3, loop: 'storm', round: 2, maxRounds: 3 },
      { type: 'node.started', seq: 4, node: 'organizer', instance: 'organizer@r2' },
      { type: 'node.finished', seq: 5, node: 'organizer', instance: 'organizer@r2' },
      { type: 'node.started', seq: 6, node: 'member', instance: 'member#1@r2' },
      { type: 'node.started', seq: 7, node: 'member', instance: 'member#2@r2' },
    ]);
    const { boxes, notes } = machineHighlight(graph, run);
    const member = taskNodeId('scope:storm:round', ['running'], 'member');
    expect(boxes[member]).toBe('active');
    expect(notes[member]).toBe('2 of 3 running');
    expect(boxes[taskNodeId('scope:storm:round', ['running'], 'organizer')]).toBe('done');
    expect(boxes['scope:storm:round/running']).toBe('active');
    expect(boxes['scope:storm:round']).toBe('active');
    expect(boxes['loop:storm/round']).toBe('active');
    expect(notes['loop:storm/round']).toBe('round 2 of 3');
    expect(boxes['loop:storm/gather']).toBeUndefined();
    expect(boxes['loop:storm/between']).toBeUndefined();
    expect(boxes[taskNodeId(ROOT_MACHINE, ['running'], 'storm')]).toBe('active');
    expect(boxes['root/running']).toBe('active');
    expect(boxes[taskNodeId(ROOT_MACHINE, ['running'], 'question')]).toBe('done');
    expect(boxes['root/succeeded']).toBeUndefined();
  });

  it('shows where a run is held, and how it ended', () => {
    let run = applyEvents(started(['storm', 'leader']), [
      { type: 'run.started', seq: 0 },
      { type: 'round.started', seq: 1, loop: 'storm', round: 3, maxRounds: 3 },
      { type: 'node.started', seq: 2, node: 'leader', instance: 'leader' },
      {
        type: 'paused',
        seq: 3,
        reason: 'step',
        at: { kind: 'node', node: 'leader', instance: 'leader' },
      },
    ]);
    let { boxes } = machineHighlight(graph, run);
    expect(boxes[taskNodeId('scope:storm:decide', ['running'], 'leader')]).toBe('paused');
    expect(boxes['loop:storm/decide']).toBe('paused');
    expect(boxes.root).toBe('paused');

    run = applyEvents(run, [
      { type: 'resumed', seq: 4 },
      { type: 'node.finished', seq: 5, node: 'leader', instance: 'leader' },
      { type: 'run.finished', seq: 6, status: 'succeeded', outputs: {} },
    ]);
    ({ boxes } = machineHighlight(graph, run));
    expect(boxes['root/succeeded']).toBe('done');
    expect(boxes['root/failed']).toBeUndefined();
    expect(boxes['scope:storm:decide/done']).toBe('done');
    expect(boxes['loop:storm/decide']).toBeUndefined();
  });
});

describe('the layout', () => {
  it('puts every box inside its parent and routes every arrow', async () => {
    const layout = await layoutMachineGraph(graph);
    for (const n of graph.nodes) {
      const box = layout.boxes[n.id];
      expect(box, n.id).toBeDefined();
      if (!box || !n.parent) continue;
      const parent = layout.boxes[n.parent]!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.y).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(parent.width + 0.5);
      expect(box.y + box.height).toBeLessThanOrEqual(parent.height + 0.5);
    }
    for (const e of graph.edges) {
      expect(layout.routes[e.id]?.points.length ?? 0, e.id).toBeGreaterThanOrEqual(2);
    }
    // Each machine sits below the one that starts it.
    const { root, 'loop:storm': loop, 'scope:storm:round': round } = layout.boxes;
    expect(loop!.y).toBeGreaterThan(root!.y + root!.height);
    expect(round!.y).toBeGreaterThan(loop!.y + loop!.height);
    // A scheduler state is wide enough for the transitions it lists, not just for its tasks.
    expect(layout.boxes['scope:storm:gather/running']!.width).toBeGreaterThan(250);
  });
});

describe('the first framing', () => {
  const canvas = { width: 900, height: 500 };

  it('fits a drawing that stays readable, and starts a big one at its top left, readable', () => {
    expect(readableStart({ x: 0, y: 0, width: 1200, height: 600 }, canvas)).toBeNull();
    const start = readableStart({ x: 100, y: 50, width: 6000, height: 3000 }, canvas);
    expect(start?.zoom).toBe(READABLE_ZOOM);
    // The drawing's top-left corner is just inside the view.
    expect(100 * READABLE_ZOOM + (start?.x ?? 0)).toBeGreaterThan(0);
    expect(50 * READABLE_ZOOM + (start?.y ?? 0)).toBeLessThan(50);
    // Its first machine, narrower than the view, is centred across it.
    const first = { x: 2000, y: 50, width: 1000, height: 400 };
    const centred = readableStart({ x: 0, y: 50, width: 6000, height: 3000 }, canvas, first);
    const left = first.x * READABLE_ZOOM + (centred?.x ?? 0);
    expect(left).toBeCloseTo((canvas.width - first.width * READABLE_ZOOM) / 2);
  });
});
