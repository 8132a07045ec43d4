import { describe, expect, it } from 'vitest';
import type { ApiRunDiff } from '../../app/api/contract.ts';
import { ballotLines, tallyBars, tallyOutcome } from '../../nodes/vote/chart-model.ts';
import { contextOptions, preferredInstance } from './context.ts';
import { diffCounts, diffSections, showValue } from './diff.ts';
import { applyEvents, idleRun, type RunView, startingRun } from './run.ts';
import { compressedScale, formatDuration, MIN_BAR, timelineLayout } from './timeline.ts';
import { roundOf, usageByNode, usageByRound } from './usage.ts';

const T0 = 1_700_000_000_000;
let seq = 0;
const ev = (type: string, at: number, body: Record<string, unknown> = {}) => ({
  type,
  seq: ++seq,
  time: T0 + at,
  ...body,
});

/** A small mindstorm: a member answers in round 1 (streamed), a summary after the rounds. */
function stormRun(): RunView {
  seq = 0;
  return applyEvents(startingRun(['storm', 'member', 'summary']), [
    ev('run.started', 0, { mode: 'simulated' }),
    ev('round.started', 10, { loop: 'storm', round: 1, maxRounds: 2 }),
    ev('node.started', 10, {
      node: 'member',
      instance: 'member#0@r1',
      nodeType: 'agent',
      round: 1,
      stage: 'round',
    }),
    ev('model.request', 20, {
      callId: 'member#0@r1:1',
      node: 'member',
      instance: 'member#0@r1',
      messages: [],
    }),
    ev('model.delta', 30, { callId: 'member#0@r1:1', text: '[simulated] It is ' }),
    ev('model.delta', 40, { callId: 'member#0@r1:1', text: 'a square' }),
  ]);
}

describe('folding a run for the debugger', () => {
  it('streams a call’s text while it is under way, and drops it once answered', () => {
    let run = stormRun();
    expect(Object.values(run.live)).toEqual([
      { node: 'member', instance: 'member#0@r1', text: '[simulated] It is a square' },
    ]);
    run = applyEvents(run, [
      ev('model.response', 50, {
        callId: 'member#0@r1:1',
        node: 'member',
        instance: 'member#0@r1',
        promptTokens: 30,
        completionTokens: 5,
        costUsd: 0.001,
        simulated: true,
      }),
    ]);
    expect(run.live).toEqual({});
    expect(run.usage).toEqual({ calls: 1, tokens: 35, costUsd: 0.001 });
    expect(run.instances['member#0@r1']).toMatchObject({ calls: 1, tokens: 35, costUsd: 0.001 });
  });

  it('records each instance’s start and end, rounds, and closes what a run’s end cuts off', () => {
    let run = stormRun();
    run = applyEvents(run, [
      ev('node.finished', 60, { node: 'member', instance: 'member#0@r1' }),
      ev('round.finished', 60, { loop: 'storm', round: 1 }),
      ev('node.started', 70, { node: 'summary', instance: 'summary@gather', stage: 'gather' }),
      ev('run.finished', 90, { status: 'cancelled', outputs: {} }),
    ]);
    expect(run.startedAt).toBe(T0);
    expect(run.endedAt).toBe(T0 + 90);
    expect(run.instances['member#0@r1']).toMatchObject({
      start: T0 + 10,
      end: T0 + 60,
      state: 'done',
      round: 1,
    });
    expect(run.instances['summary@gather']).toMatchObject({ state: 'failed', end: T0 + 90 });
    expect(run.rounds).toEqual([
      { loop: 'storm', round: 1, maxRounds: 2, start: T0 + 10, end: T0 + 60 },
    ]);
    expect(run.live).toEqual({});
  });

  it('does not change the view it folds into', () => {
    const before = stormRun();
    const snapshot = JSON.stringify(before);
    applyEvents(before, [ev('node.finished', 60, { node: 'member', instance: 'member#0@r1' })]);
    expect(JSON.stringify(before)).toBe(snapshot);
  });
});

describe('the timeline', () => {
  it('places each instance’s bar by its start and end, rounds on top', () => {
    seq = 0;
    const run = applyEvents(idleRun(), [
      ev('run.started', 0),
      ev('round.started', 0, { loop: 'storm', round: 1, maxRounds: 2 }),
      ev('node.started', 0, { node: 'a', instance: 'a@r1' }),
      ev('node.finished', 500, { node: 'a', instance: 'a@r1' }),
      ev('round.finished', 500, { loop: 'storm', round: 1 }),
      ev('node.started', 500, { node: 'b', instance: 'b' }),
      ev('node.failed', 1000, { node: 'b', instance: 'b', error: 'boom' }),
    ]);
    const layout = timelineLayout(run, T0 + 1000);
    expect(layout.spanMs).toBe(1000);
    expect(layout.breaks).toEqual([]);
    expect(layout.bars.map((b) => [b.instance, b.left, b.width, b.state])).toEqual([
      ['a@r1', 0, 0.5, 'done'],
      ['b', 0.5, 0.5, 'failed'],
    ]);
    expect(layout.bars[1]?.error).toBe('boom');
    expect(layout.rounds).toEqual([
      { loop: 'storm', round: 1, left: 0, width: 0.5, label: 'round 1/2' },
    ]);
  });

  it('runs what is still going up to now, and marks the instance held at a message', () => {
    seq = 0;
    let run = applyEvents(idleRun(), [
      ev('run.started', 0),
      ev('node.started', 0, { node: 'a', instance: 'a' }),
      ev('node.finished', 100, { node: 'a', instance: 'a' }),
      ev('node.started', 100, { node: 'b', instance: 'b' }),
      ev('paused', 150, { reason: 'step', at: { kind: 'message', node: 'b', instance: 'b' } }),
    ]);
    const layout = timelineLayout(run, T0 + 200);
    // The 50 ms held so far are not drawn: b runs from 100 ms of 150 busy ones to the end.
    expect(layout.bars[1]?.state).toBe('paused');
    expect(layout.bars[1]?.left).toBeCloseTo(2 / 3, 5);
    expect(layout.bars[1]!.left + layout.bars[1]!.width).toBeCloseTo(1, 5);
    run = applyEvents(run, [ev('resumed', 300)]);
    expect(timelineLayout(run, T0 + 400).bars[1]?.state).toBe('running');
  });

  it('gives instant calls a visible bar', () => {
    seq = 0;
    const run = applyEvents(idleRun(), [
      ev('node.started', 0, { node: 'a', instance: 'a' }),
      ev('node.finished', 0, { node: 'a', instance: 'a' }),
    ]);
    expect(timelineLayout(run, T0).bars[0]?.width).toBe(MIN_BAR);
  });

  it('cuts a long idle stretch down to a short break', () => {
    const hour = 3_600_000;
    const scale = compressedScale([
      [0, 1000],
      [hour, hour + 1000],
    ]);
    expect(scale.busyMs).toBe(2000);
    expect(scale.breaks).toHaveLength(1);
    expect(scale.breaks[0]?.ms).toBe(hour - 1000);
    // Both busy stretches keep (nearly) half the width each.
    expect(scale.at(1000)).toBeCloseTo(0.49, 2);
    expect(scale.at(hour)).toBeCloseTo(0.51, 2);
    expect(scale.at(hour + 1000)).toBe(1);
    expect(scale.at(hour / 2)).toBeGreaterThan(scale.at(1000));
    expect(scale.at(hour / 2)).toBeLessThan(scale.at(hour));
  });

  it('leaves out the time the run was held, so a long pause is a short break', () => {
    seq = 0;
    const minute = 60_000;
    const run = applyEvents(idleRun(), [
      ev('run.started', 0),
      ev('node.started', 0, { node: 'a', instance: 'a' }),
      ev('node.finished', 1000, { node: 'a', instance: 'a' }),
      ev('node.started', 1000, { node: 'b', instance: 'b' }),
      ev('paused', 1500, {
        reason: 'breakpoint',
        at: { kind: 'message', node: 'b', instance: 'b' },
      }),
      ev('resumed', 1500 + 10 * minute),
      ev('node.finished', 2000 + 10 * minute, { node: 'b', instance: 'b' }),
      ev('run.finished', 2000 + 10 * minute, { status: 'succeeded', outputs: {} }),
    ]);
    expect(run.pauses).toEqual([{ start: T0 + 1500, end: T0 + 1500 + 10 * minute }]);
    const layout = timelineLayout(run, T0 + 3 * minute);
    expect(layout.spanMs).toBe(2000);
    expect(layout.breaks).toEqual([{ left: expect.any(Number), ms: 10 * minute }]);
    // a keeps about half the width; b spans the break to the end.
    expect(layout.bars[0]?.width).toBeCloseTo(0.49, 2);
    expect(layout.bars[1]?.left).toBeCloseTo(0.49, 2);
    expect(layout.bars[1]!.left + layout.bars[1]!.width).toBeCloseTo(1, 5);
  });

  it('formats durations', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(12_340)).toBe('12.3 s');
    expect(formatDuration(245_000)).toBe('4 min 05 s');
    expect(formatDuration(7_380_000)).toBe('2 h 03 min');
  });
});

describe('usage by node and round', () => {
  it('sums the calls of every instance of a node, and of a round', () => {
    seq = 0;
    const answer = (instance: string, node: string, tokens: number, costUsd?: number) =>
      ev('model.response', 1, {
        callId: `${instance}:1`,
        node,
        instance,
        promptTokens: tokens,
        completionTokens: 0,
        ...(costUsd !== undefined ? { costUsd } : {}),
      });
    const run = applyEvents(idleRun(), [
      ev('node.started', 0, { node: 'member', instance: 'member#0@r1' }),
      ev('node.started', 0, { node: 'member', instance: 'member#1@r1' }),
      ev('node.started', 0, { node: 'member', instance: 'member#0@r2' }),
      ev('node.started', 0, { node: 'summary', instance: 'summary@gather' }),
      ev('node.started', 0, { node: 'question', instance: 'question' }),
      answer('member#0@r1', 'member', 10, 0.01),
      answer('member#1@r1', 'member', 20, 0.02),
      answer('member#0@r2', 'member', 30),
      answer('summary@gather', 'summary', 5),
    ]);
    expect(usageByNode(run.instances)).toEqual([
      { key: 'member', calls: 3, tokens: 60, costUsd: 0.03, instances: 3 },
      { key: 'summary', calls: 1, tokens: 5, costUsd: 0, instances: 1 },
    ]);
    expect(usageByRound(run.instances).map((r) => [r.key, r.tokens])).toEqual([
      ['round 1', 30],
      ['round 2', 30],
      ['gather', 5],
    ]);
    expect(roundOf('leader')).toBe('outside loops');
    expect(roundOf('critic#3@r12')).toBe('round 12');
  });
});

describe('vote tallies', () => {
  const tally = {
    rule: 'plurality',
    candidates: ['red', 'blue', 'green'],
    counts: { red: 2, blue: 2, green: 0 },
    ranking: ['red', 'blue', 'green'],
    winner: 'blue',
    reason: '2 candidates tied at 2 votes; chair "c1" voted "blue"',
    tied: ['red', 'blue'],
    tieBreak: { rule: 'chair', chosen: 'blue', reason: 'chair "c1" voted "blue"' },
    totals: { ballots: 5, valid: 4 },
    ballots: [
      { voter: 'c1', value: 'Blue!', choices: ['blue'], valid: true },
      { voter: 'c2', value: { pick: 'red' }, choices: ['red'], valid: true },
      { voter: 'c3', value: 'purple', choices: [], valid: false, reason: 'names no candidate' },
    ],
  };

  it('charts every candidate in ranking order, marking the winner and the tie', () => {
    expect(tallyBars(tally)).toEqual([
      { candidate: 'red', count: 2, winner: false, tied: true },
      { candidate: 'blue', count: 2, winner: true, tied: true },
      { candidate: 'green', count: 0, winner: false, tied: false },
    ]);
    expect(tallyBars({ counts: { x: 1 } })).toEqual([
      { candidate: 'x', count: 1, winner: false, tied: false },
    ]);
  });

  it('says who won, why, and how the tie was broken', () => {
    expect(tallyOutcome(tally)).toEqual({
      winner: 'blue',
      reason: tally.reason,
      tieBreak: 'chair: chair "c1" voted "blue"',
      tied: ['red', 'blue'],
    });
    expect(tallyOutcome({ winner: null })).toEqual({ winner: null, reason: '', tied: [] });
  });

  it('lists each ballot as cast and as read', () => {
    expect(ballotLines(tally)).toEqual([
      { voter: 'c1', cast: 'Blue!', readAs: 'blue', valid: true },
      { voter: 'c2', cast: '{"pick":"red"}', readAs: 'red', valid: true },
      { voter: 'c3', cast: 'purple', readAs: '', valid: false, reason: 'names no candidate' },
    ]);
    expect(
      ballotLines({
        rule: 'borda',
        ballots: [{ voter: 'v', value: 'a>b', choices: ['a', 'b'] }],
      })[0]?.readAs,
    ).toBe('a > b');
  });
});

describe('the context viewer’s choices', () => {
  it('offers instances that called a model, preferring the held one, then the selected node', () => {
    let run = stormRun();
    expect(contextOptions(run)).toEqual([
      { instance: 'member#0@r1', node: 'member', calls: 0, calling: true },
    ]);
    run = applyEvents(run, [
      ev('model.response', 50, {
        callId: 'member#0@r1:1',
        node: 'member',
        instance: 'member#0@r1',
        promptTokens: 1,
        completionTokens: 1,
      }),
      ev('node.started', 60, { node: 'summary', instance: 'summary@gather' }),
      ev('model.request', 61, {
        callId: 'summary@gather:1',
        node: 'summary',
        instance: 'summary@gather',
      }),
    ]);
    const options = contextOptions(run);
    expect(options.map((o) => o.instance)).toEqual(['member#0@r1', 'summary@gather']);
    expect(preferredInstance(options, {})).toBe('summary@gather');
    expect(preferredInstance(options, { selectedNode: 'member' })).toBe('member#0@r1');
    expect(preferredInstance(options, { held: 'summary@gather', selectedNode: 'member' })).toBe(
      'summary@gather',
    );
    expect(preferredInstance([], { selectedNode: 'member' })).toBeUndefined();
    // A node selected on the canvas after the run was held is shown instead of the held one.
    expect(
      preferredInstance(options, {
        held: 'summary@gather',
        selectedNode: 'member',
        selectionFirst: true,
      }),
    ).toBe('member#0@r1');
    // A selected node that called no model leaves the held instance shown.
    expect(
      preferredInstance(options, {
        held: 'summary@gather',
        selectedNode: 'storm',
        selectionFirst: true,
      }),
    ).toBe('summary@gather');
  });
});

describe('two runs side by side', () => {
  const messages: ApiRunDiff['messages'] = [
    {
      from: 'describe#0@init',
      node: 'describe',
      loop: 'storm',
      stage: 'init',
      change: 'same',
      a: { text: 'x', simulated: true },
      b: { text: 'x', simulated: true },
    },
    {
      from: 'member#1@r2',
      node: 'member',
      loop: 'storm',
      round: 2,
      stage: 'round',
      change: 'changed',
      a: { text: 'circle', simulated: true },
      b: { text: 'square', simulated: false },
    },
    {
      from: 'leader@decide',
      node: 'leader',
      loop: 'storm',
      stage: 'decide',
      change: 'same',
      a: { text: '(c)', simulated: true },
      b: { text: '(c)', simulated: true },
    },
    {
      from: 'member#1@r3',
      node: 'member',
      loop: 'storm',
      round: 3,
      stage: 'round',
      change: 'onlyB',
      b: { text: 'late', simulated: true },
    },
  ];

  it('groups each sender’s messages by round, in the order the rounds were heard', () => {
    const sections = diffSections(messages);
    expect(sections.map((s) => [s.title, s.rows.length, s.differing])).toEqual([
      ['Before the rounds (init) · storm', 1, 0],
      ['Round 2 · storm', 1, 1],
      ['After the rounds (decide) · storm', 1, 0],
      ['Round 3 · storm', 1, 1],
    ]);
    expect(diffCounts(messages)).toEqual({ same: 2, changed: 1, onlyA: 0, onlyB: 1 });
  });

  it('shows output values as text, images by reference', () => {
    expect(showValue('(c)')).toBe('(c)');
    expect(showValue(undefined)).toBe('—');
    expect(showValue({ $image: 'abc', mime: 'image/png' })).toBe('[image image/png]');
    expect(showValue([1, 2])).toBe('[\n  1,\n  2\n]');
  });
});

describe('plans a planner runs', () => {
  it("keeps the plan's nodes apart from the document's, even when their ids are the same", () => {
    seq = 0;
    const document = {
      name: 'plan of planner',
      description: 'Planned by rules',
      nodes: [
        { id: 'in_text', type: 'input', data: { name: 'text' } },
        { id: 'fill_mask', type: 'expert', data: { module: 'fill-mask' } },
        { id: 'answer', type: 'output', data: { name: 'answer' } },
      ],
    };
    const view = applyEvents(startingRun(['text', 'planner', 'answer']), [
      ev('run.started', 0),
      ev('node.started', 1, { node: 'planner', instance: 'planner', nodeType: 'planner' }),
      ev('subgraph.started', 2, {
        node: 'planner',
        instance: 'planner',
        prefix: 'planner/',
        document,
      }),
      ev('node.started', 3, {
        node: 'fill_mask',
        instance: 'planner/fill_mask',
        nodeType: 'expert',
      }),
      ev('node.finished', 4, { node: 'fill_mask', instance: 'planner/fill_mask', outputs: {} }),
      ev('node.started', 5, { node: 'answer', instance: 'planner/answer', nodeType: 'output' }),
      ev('node.failed', 6, { node: 'answer', instance: 'planner/answer', error: 'x' }),
      ev('subgraph.finished', 7, {
        node: 'planner',
        instance: 'planner',
        outputs: { answer: 'a' },
      }),
    ]);
    expect(view.plans).toHaveLength(1);
    expect(view.plans[0]!.steps).toEqual({ fill_mask: 'done', answer: 'failed' });
    expect(view.plans[0]!.outputs).toEqual({ answer: 'a' });
    // The document's own `answer` has not started; the planner is still running.
    expect(view.nodes.answer?.state).toBe('waiting');
    expect(view.nodes.planner?.state).toBe('running');
    expect(view.nodes.fill_mask).toBeUndefined();
  });

  it('shows a step on a branch the plan did not take as skipped on the plan, not the canvas', () => {
    seq = 0;
    const document = {
      name: 'plan of planner',
      nodes: [
        { id: 'in_text', type: 'input', data: { name: 'text' } },
        { id: 'route', type: 'router', data: { outputs: ['urgent'] } },
        { id: 'answer', type: 'agent', data: {} },
      ],
    };
    const view = applyEvents(startingRun(['text', 'planner', 'answer']), [
      ev('run.started', 0),
      ev('node.started', 1, { node: 'planner', instance: 'planner', nodeType: 'planner' }),
      ev('subgraph.started', 2, {
        node: 'planner',
        instance: 'planner',
        prefix: 'planner/',
        document,
      }),
      ev('node.started', 3, { node: 'route', instance: 'planner/route', nodeType: 'router' }),
      ev('node.finished', 4, { node: 'route', instance: 'planner/route', outputs: {} }),
      ev('node.skipped', 5, {
        node: 'answer',
        instance: 'planner/answer',
        from: 'route.urgent',
        reason: 'no rule matched',
      }),
    ]);
    expect(view.plans[0]!.steps).toEqual({ route: 'done', answer: 'skipped' });
    expect(view.plans[0]!.skipped).toEqual({ answer: 'route.urgent: no rule matched' });
    // The document's own `answer` is still to run: the plan's skip is not its skip.
    expect(view.nodes.answer).toMatchObject({ state: 'waiting' });
    expect(view.nodes.answer?.skipped).toBeUndefined();
  });
});

describe("nodes' reports", () => {
  it('are kept in order with the type of the node that reported, for that type’s own tab', () => {
    const view = applyEvents(startingRun(['coin', 'answer']), [
      ev('run.started', 0, { graph: 'g', inputs: {}, mode: 'simulated' }),
      ev('node.started', 1, { node: 'coin', instance: 'coin', nodeType: 'coin', inputs: {} }),
      ev('report', 2, { node: 'coin', instance: 'coin', kind: 'flip', data: { side: 'tails' } }),
      ev('node.finished', 3, { node: 'coin', instance: 'coin', outputs: {}, durationMs: 1 }),
    ]);
    expect(view.reports).toEqual([
      {
        seq: expect.any(Number),
        node: 'coin',
        instance: 'coin',
        nodeType: 'coin',
        kind: 'flip',
        data: { side: 'tails' },
      },
    ]);
    // A run without reports has none, so no node type's tab shows.
    expect(applyEvents(idleRun(), [ev('run.started', 0, { mode: 'live' })]).reports).toEqual([]);
  });
});

describe("a run's mode", () => {
  it('is the one its end says when the run changed how it answers (a replay gone beyond its cassette)', () => {
    const view = applyEvents(startingRun(['a']), [
      ev('run.started', 0, { graph: 'g', inputs: {}, mode: 'replay' }),
      ev('run.finished', 5, {
        status: 'succeeded',
        outputs: {},
        usage: { calls: 1, totalTokens: 3 },
        mode: 'replay-then-simulated',
      }),
    ]);
    // The Runs list says replay-then-simulated: the run bar says the same.
    expect(view.mode).toBe('replay-then-simulated');
  });
});
