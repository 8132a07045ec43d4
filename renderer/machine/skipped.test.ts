import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileGraph } from '../../app/compiler/index.ts';
import { applyEvents, startingRun } from '../model/run.ts';
import { machineGraph, ROOT_MACHINE, taskNodeId } from './graph.ts';
import { machineHighlight } from './highlight.ts';

describe('a node on a branch not taken', () => {
  it('shows as skipped, with its reason, in the run view and the machine view', async () => {
    const text = readFileSync(
      new URL('../../templates/tie-judge.society.json', import.meta.url),
      'utf8',
    );
    const compiled = await compileGraph(text);
    if (!compiled.ok) throw new Error(compiled.problems[0]?.message);
    const graph = machineGraph(JSON.parse(JSON.stringify(compiled.machines)));
    const run = applyEvents(startingRun(['count', 'route', 'judge', 'decision']), [
      { type: 'run.started', seq: 0, mode: 'simulated' },
      { type: 'node.started', seq: 1, node: 'route', instance: 'route' },
      { type: 'node.finished', seq: 2, node: 'route', instance: 'route', outputs: {} },
      {
        type: 'node.skipped',
        seq: 3,
        node: 'judge',
        instance: 'judge',
        from: 'route.tie',
        reason: 'no rule matched',
      },
    ]);
    expect(run.nodes.judge).toMatchObject({
      state: 'skipped',
      skipped: 'route.tie: no rule matched',
    });
    const { boxes } = machineHighlight(graph, run);
    expect(boxes[taskNodeId(ROOT_MACHINE, ['running'], 'judge')]).toBe('skipped');
    expect(boxes[taskNodeId(ROOT_MACHINE, ['running'], 'route')]).toBe('done');
  });
});
