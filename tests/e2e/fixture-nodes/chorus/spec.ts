/**
 * A second loop container that exists only for the tests, beside the mindstorm: everything it
 * is (its rounds as machine states, its stop condition, its graph check, its summary, starting
 * data, a code-editor field and a data migration) lives in this folder, and the engine, compiler
 * and editor learn it from the registry alone. It repeats the nodes inside it `times` rounds,
 * stops early when one of them says the `until` word, and ends with its `closing` line.
 */
import { z } from 'zod';
import {
  baseData,
  slotPorts,
  slotsSchema,
  templateProblems,
} from '../../../../app/node-sdk/common.ts';
import { defineNode } from '../../../../app/node-sdk/define.ts';
import type {
  GraphNodeView,
  GraphProblem,
  GraphView,
} from '../../../../app/node-sdk/graph-view.ts';
import type { LoopStatesBuilder, StateConfig } from '../../../../app/node-sdk/loop.ts';

export const chorusData = z.strictObject({
  ...baseData,
  /** How many rounds the nodes inside run (version 1 called it `repeat`). */
  times: z.number().int().min(1).max(20).default(3),
  /** A word that ends the rounds early when a node inside says it (any case); empty: never. */
  until: z.string().default(''),
  /** The chorus's `text` output when it ends: a Liquid template whose slots are inputs. */
  closing: z.string().default('').meta({ editor: 'code', language: 'liquid', lines: 2 }),
  slots: slotsSchema,
});
export type ChorusData = z.infer<typeof chorusData>;

/** round → between → (round again | close) → done: one stage, then the closing line. */
function chorusStates(data: ChorusData, build: LoopStatesBuilder) {
  const { actions } = build;
  const states: StateConfig = {
    round: {
      entry: actions.begin,
      invoke: { ...build.runStage('round'), onDone: { target: 'between', actions: actions.end } },
    },
    between: {
      always: [{ guard: build.continues(data.times), target: 'round' }, { target: 'close' }],
    },
    close: {
      invoke: { ...build.runStep('close'), onDone: { target: 'done', actions: actions.step } },
    },
    done: { type: 'final', entry: actions.finish },
  };
  return { initial: 'round', states };
}

/**
 * A chorus only has rounds, so whatever is inside runs at stage `round`. An empty chorus is
 * allowed (it runs its rounds with no one in them), which keeps one valid the moment it is
 * dropped: it complains about the nodes it holds, never about the ones it does not hold yet.
 */
function chorusGraphProblems(node: GraphNodeView, graph: GraphView): GraphProblem[] {
  const problems: GraphProblem[] = [];
  if (node.replicated) {
    problems.push({
      path: ['data', 'replicate'],
      message: 'a chorus cannot be replicated itself: put it in a group and replicate the group',
    });
  }
  for (const inside of graph.children(node.id)) {
    if (inside.stage !== 'round') {
      problems.push({
        path: [],
        message: `a chorus only has rounds: "${inside.id}" inside it has stage "${inside.stage}"`,
      });
    }
  }
  return problems;
}

export const spec = defineNode<ChorusData>({
  type: 'chorus',
  title: 'Chorus',
  group: 'Structure',
  description:
    'Test fixture: repeats the nodes inside it for a number of rounds, until one says a word.',
  container: 'loop',
  data: chorusData,
  ports: (data) => ({
    inputs: slotPorts([data.closing], data),
    outputs: [
      { name: 'transcript', modality: 'text' },
      { name: 'rounds', modality: 'number' },
      { name: 'text', modality: 'text' },
    ],
  }),
  check: (data) => templateProblems({ closing: data.closing }),
  loop: { maxRounds: (data) => data.times, states: chorusStates },
  checkGraph: chorusGraphProblems,

  summary: (data) => `×${data.times}${data.until ? ` until "${data.until}"` : ''}`,
  initialData: () => ({ times: 3, until: 'done', closing: 'The chorus rests.' }),
  version: 2,
  migrations: {
    1: ({ repeat, ...rest }) => {
      if (repeat !== undefined && typeof repeat !== 'number')
        throw new Error('"repeat" must be a number');
      return repeat === undefined ? rest : { ...rest, times: repeat };
    },
  },
});
