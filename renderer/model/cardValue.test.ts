import { describe, expect, it } from 'vitest';
import type { RouterData } from '../../nodes/router/spec.ts';
import { routerValue } from '../../nodes/router/view.tsx';
import type { VoteData } from '../../nodes/vote/spec.ts';
import { voteValue } from '../../nodes/vote/view.tsx';
import { copyOf, defaultSummary, fewWords, isLong, summarizeValue } from './cardValue.ts';
import { applyEvents, type NodeValue, startingRun } from './run.ts';

const value = (outputs: Record<string, unknown>, extra: Partial<NodeValue> = {}): NodeValue => ({
  instance: 'n',
  outputs,
  ...extra,
});

describe('the generic summary of a node value', () => {
  it('shows text as text, the `text` port first when there are several', () => {
    expect(defaultSummary(value({ text: 'hello' }))).toEqual({ kind: 'text', text: 'hello' });
    expect(defaultSummary(value({ score: 3, text: 'why' }))).toEqual({
      kind: 'text',
      text: 'why',
      label: 'text',
    });
  });

  it('shows an image reference as an image, a list as its count and first item, JSON compact', () => {
    expect(defaultSummary(value({ image: { $image: 'abc', mime: 'image/png' } }))).toEqual({
      kind: 'image',
      hash: 'abc',
      mime: 'image/png',
    });
    expect(defaultSummary(value({ items: ['a', 'b', 'c'] }))).toEqual({
      kind: 'list',
      count: 3,
      first: 'a',
    });
    expect(defaultSummary(value({ items: [{ x: 1 }] }))).toMatchObject({ first: '{"x":1}' });
    expect(defaultSummary(value({ out: { a: [1, 2], b: null } }))).toEqual({
      kind: 'json',
      text: '{"a":[1,2],"b":null}',
    });
    expect(defaultSummary(value({}))).toBeUndefined();
  });

  it('calls text long past about three lines, or one', () => {
    expect(isLong('short answer')).toBe(false);
    expect(isLong('x'.repeat(121))).toBe(true);
    expect(isLong('a\nb\nc\nd')).toBe(true);
    // A card inside a container shows one line.
    expect(isLong('x'.repeat(41), 1)).toBe(true);
    expect(isLong('yes', 1)).toBe(false);
    expect(isLong('yes\nno', 1)).toBe(true);
  });

  it('falls back to the generic summary when a node type’s hook gives none or throws', () => {
    const throws = () => {
      throw new Error('unexpected shape');
    };
    expect(summarizeValue(value({ text: 'hi' }), {}, throws)).toEqual({ kind: 'text', text: 'hi' });
    expect(summarizeValue(value({ text: 'hi' }), {}, () => undefined)).toEqual({
      kind: 'text',
      text: 'hi',
    });
  });

  it('names the copy of a replicated node that gave the value', () => {
    expect(copyOf('critic#3', 'critic', 5)).toEqual({ index: 3, of: 5 });
    expect(copyOf('artists#2/critic#0@r2', 'critic', 4)).toEqual({ index: 0, of: 4 });
    expect(copyOf('supercritic#3', 'critic', 5)).toBeUndefined();
    expect(copyOf('critic', 'critic', 5)).toBeUndefined();
    expect(copyOf('critic#3', 'critic', undefined)).toBeUndefined();
  });
});

const vote = { rule: 'plurality' } as VoteData;

describe("the vote's and the router's card values", () => {
  it('gives the winner with its share of the votes, and says when there is none', () => {
    const tally = {
      rule: 'plurality',
      counts: { paris: 3, rome: 2 },
      totals: { ballots: 5, valid: 5 },
      reason: 'paris has the most votes',
    };
    expect(voteValue(value({ winner: 'paris', tally }), vote)).toEqual({
      kind: 'choice',
      label: 'winner',
      value: 'paris',
      detail: '3 of 5 votes',
    });
    expect(
      voteValue(value({ winner: 'a', tally: { ...tally, rule: 'borda', counts: { a: 7 } } }), vote),
    ).toMatchObject({ value: 'a', detail: '7 points' });
    expect(
      voteValue(value({ winner: null, tally: { ...tally, reason: 'no majority' } }), vote),
    ).toEqual({ kind: 'choice', label: 'winner', value: 'none', detail: 'no majority' });
  });

  it('gives the branch taken and the ones not taken', () => {
    expect(
      routerValue(
        value({ urgent: 'the server is down' }, { notTaken: { normal: 'rule 1', else: 'rule 1' } }),
        {} as RouterData,
      ),
    ).toEqual({
      kind: 'choice',
      label: 'branch',
      value: 'urgent',
      detail: 'not taken: normal, else',
    });
  });
});

describe('node values folded from a run', () => {
  const base = { runId: 'r', time: 1 };
  it('keeps each node’s latest outputs, a held message until it is delivered, and starts empty', () => {
    let view = startingRun(['a']);
    view = applyEvents(view, [
      {
        ...base,
        seq: 1,
        type: 'node.started',
        node: 'a',
        instance: 'a#0',
        nodeType: 'agent',
        inputs: {},
      },
      {
        ...base,
        seq: 2,
        type: 'node.finished',
        node: 'a',
        instance: 'a#0',
        outputs: { text: 'one' },
        durationMs: 1,
      },
      {
        ...base,
        seq: 3,
        type: 'node.finished',
        node: 'a',
        instance: 'a#1',
        outputs: { text: 'two' },
        durationMs: 1,
      },
    ]);
    expect(view.values.a).toEqual({ instance: 'a#1', outputs: { text: 'two' } });
    const before = view.values.a;
    view = applyEvents(view, [
      {
        ...base,
        seq: 4,
        type: 'paused',
        reason: 'step',
        at: { kind: 'message', node: 'b', instance: 'b', text: 'draft' },
      },
    ]);
    expect(view.values.a).toBe(before);
    expect(view.values.b).toMatchObject({ outputs: { text: 'draft' }, held: true });
    view = applyEvents(view, [{ ...base, seq: 5, type: 'resumed' }]);
    expect(view.values.b?.held).toBe(false);
    expect(startingRun(['a']).values).toEqual({});
  });
});

describe('a value in a few words, for a card zoomed out', () => {
  it('keeps a choice, counts a list, cuts a text on a word budget, names an image', () => {
    expect(fewWords({ kind: 'choice', label: 'winner', value: 'yes', detail: '2 of 2' })).toBe(
      'winner yes',
    );
    expect(fewWords({ kind: 'list', count: 1, first: 'a' })).toBe('1 item');
    expect(fewWords({ kind: 'list', count: 3, first: 'a' })).toBe('3 items');
    expect(fewWords({ kind: 'image', hash: 'h', mime: 'image/png' })).toBe('image');
    const said = fewWords({ kind: 'text', text: 'The  painting\nshows a fox under a crimson sky' });
    expect(said).toBe('The painting shows a fox un…');
    expect(said).toHaveLength(28);
  });
});
