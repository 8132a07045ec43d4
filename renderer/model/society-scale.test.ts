/**
 * The editor at the Artist–Critic's scale: a group replicated 26 times drawn as one card, the
 * transcript of a run narrowed to one artist and one round, a 50-ballot vote charted legibly,
 * and the replicate lists edited as lines.
 */
import { describe, expect, it } from 'vitest';
import { ART_STYLES, artistCriticDocument, PROFESSIONS } from '../../bench/editor-artist-critic.ts';
import { chartedBars, tallyBars } from '../../nodes/vote/chart-model.ts';
import { run } from '../../tests/support/graphs.ts';
import { collapsedView, drawnEdges, drawnNodes, membersOf } from './collapse.ts';
import { COLLAPSE_FROM } from './collapse-rule.ts';
import { type FlowNode, fromDocument, toDocument } from './document.ts';
import { registryTypes } from './registry.test-helper.ts';
import { specOf } from './registry.ts';
import { applyEvents, startingRun } from './run.ts';
import { describeFields } from './schemaForm.ts';
import {
  copiesOf,
  copyLabel,
  filterMessages,
  filterOptions,
  NO_FILTER,
  type NodeNames,
  senderItem,
} from './transcript-filter.ts';

const withUi = (nodes: FlowNode[], id: string, collapsed: boolean) =>
  nodes.map((n) => (n.id === id ? { ...n, data: { ...n.data, ui: { collapsed } } } : n));

describe('a replicated group on the canvas', () => {
  const canvas = fromDocument(artistCriticDocument());

  it('opens as one card standing for its members, edges to them ending on it', () => {
    expect(ART_STYLES.length).toBeGreaterThanOrEqual(COLLAPSE_FROM);
    const view = collapsedView(canvas.nodes, canvas.edges);
    expect([...view.cards]).toEqual(['artists']);
    // The mindstorm, its four agents and the proposal's heading are hidden inside the card.
    expect([...view.owners.keys()].sort()).toEqual([
      'answerer',
      'entry',
      'first',
      'leader',
      'questioner',
      'storm',
    ]);
    expect(new Set(view.owners.values())).toEqual(new Set(['artists']));
    const drawn = drawnNodes(canvas.nodes, view);
    expect(drawn.filter((n) => !n.hidden).map((n) => n.id)).toEqual([
      'object',
      'artists',
      'critic',
      'vote',
      'collector',
      'painter',
      'prompt',
      'image',
    ]);
    // The card sizes itself; the document keeps the size it opens to.
    expect(drawn.find((n) => n.id === 'artists')?.width).toBeUndefined();
    expect(canvas.nodes.find((n) => n.id === 'artists')?.width).toBe(940);

    // A handle on the card for each member port reached from outside.
    expect(view.boundary.get('artists')).toEqual({
      inputs: [
        { name: 'first.object', modality: 'text' },
        { name: 'questioner.object', modality: 'text' },
        { name: 'leader.object', modality: 'text' },
      ],
      outputs: [{ name: 'entry.value', modality: 'list<text>' }],
    });
    const edges = drawnEdges(canvas.edges, view);
    const ends = edges.map((e) => `${e.source}.${e.sourceHandle} → ${e.target}.${e.targetHandle}`);
    expect(ends).toContain('object.value → artists.first.object');
    expect(ends).toContain('artists.entry.value → critic.proposals');
    expect(ends).toContain('artists.entry.value → collector.proposals');
    // Edges among the hidden members are not drawn; the rest are drawn as they are.
    expect(ends.some((e) => e.includes('questioner.text'))).toBe(false);
    expect(ends).toContain('critic.text → vote.ballots');
    // A drawn edge is still the document's edge: selecting or deleting it acts on that one.
    expect(new Set(edges.map((e) => e.id)).size).toBe(edges.length);
    expect(edges.every((e) => canvas.edges.some((d) => d.id === e.id))).toBe(true);
  });

  it('opens to its members when the user says so, and the choice is saved with the document', () => {
    const opened = withUi(canvas.nodes, 'artists', false);
    const view = collapsedView(opened, canvas.edges);
    expect(view.cards.size).toBe(0);
    expect(drawnNodes(opened, view)).toBe(opened);
    const saved = toDocument({ ...canvas, nodes: opened });
    expect(saved.nodes.find((n) => n.id === 'artists')?.data.ui).toEqual({ collapsed: false });
    // Nothing view-only reaches the file: hidden members are not written as hidden.
    const collapsed = toDocument({
      ...canvas,
      nodes: drawnNodes(canvas.nodes, collapsedView(canvas.nodes, canvas.edges)),
    });
    expect(collapsed.nodes.some((n) => 'hidden' in n)).toBe(false);
  });

  it('leaves a small replicated group open, and collapses any container on request', () => {
    const small = fromDocument(artistCriticDocument(ART_STYLES.slice(0, 3), PROFESSIONS));
    expect(collapsedView(small.nodes, small.edges).cards.size).toBe(0);
    const stormShut = withUi(small.nodes, 'storm', true);
    const view = collapsedView(stormShut, small.edges);
    expect([...view.cards]).toEqual(['storm']);
    expect(view.owners.get('questioner')).toBe('storm');
    expect(membersOf(small.nodes, 'artists').map((n) => n.id)).toEqual([
      'storm',
      'first',
      'questioner',
      'answerer',
      'leader',
      'entry',
    ]);
  });
});

describe('the transcript of a run, narrowed down', async () => {
  // Three artists and five critics: the same instance names as the full society, fewer calls.
  const doc = artistCriticDocument(ART_STYLES.slice(0, 3), PROFESSIONS.slice(0, 5));
  const { events, status } = await run(doc, {
    simulate: true,
    inputs: { object: 'a lighthouse at dusk' },
  });
  const view = applyEvents(
    startingRun(doc.nodes.map((n) => n.id)),
    events as unknown as Array<Record<string, unknown>>,
  );
  const names = new Map<string, NodeNames>(
    doc.nodes.map((n) => [
      n.id,
      {
        ...(typeof n.data.label === 'string' ? { label: n.data.label } : {}),
        ...((n.data.replicate as { items?: unknown[] } | undefined)?.items
          ? { items: (n.data.replicate as { items: unknown[] }).items }
          : {}),
      },
    ]),
  );

  it('names each copy by its item', () => {
    expect(status).toBe('succeeded');
    // 3 × (first + 3 rounds × 2 + leader) + 5 critics + collector
    expect(view.messages).toHaveLength(3 * 8 + 5 + 1);
    expect(copiesOf('artists#2/questioner@r3')).toEqual(['artists#2']);
    expect(copiesOf('teams#1/speaker#2@r1')).toEqual(['teams#1', 'teams#1/speaker#2']);
    expect(copyLabel('artists#2', names)).toBe(`artists#2 (${ART_STYLES[2]})`);
    expect(copyLabel('critic#4', names)).toBe(`critic#4 (${PROFESSIONS[4]})`);
    expect(senderItem('artists#1/answerer@r2', names)).toBe(ART_STYLES[1]);
  });

  it('offers the members who spoke, their copies and the rounds, in run order', () => {
    const options = filterOptions(view.messages, names);
    expect(options.members.map((o) => o.value)).toEqual([
      'first',
      'questioner',
      'answerer',
      'leader',
      'critic',
      'collector',
    ]);
    expect(options.members[1]).toEqual({ value: 'questioner', label: 'Questioner (questioner)' });
    expect(options.copies.map((o) => o.label)).toEqual([
      ...ART_STYLES.slice(0, 3).map((s, i) => `artists#${i} (${s})`),
      ...PROFESSIONS.slice(0, 5).map((p, i) => `critic#${i} (${p})`),
    ]);
    expect(options.rounds.map((o) => o.label)).toEqual([
      'Before the rounds',
      'Round 1',
      'Round 2',
      'Round 3',
      'After the rounds',
      'Outside any loop',
    ]);
    // With a member chosen, only its copies are offered.
    const critics = filterOptions(view.messages, names, { ...NO_FILTER, node: 'critic' });
    expect(critics.copies).toHaveLength(5);
  });

  it('keeps one artist’s round, or one member across every copy', () => {
    const one = filterMessages(view.messages, { node: null, copy: 'artists#1', round: 'r2' });
    expect(one.map((m) => m.from)).toEqual(['artists#1/questioner@r2', 'artists#1/answerer@r2']);
    const answers = filterMessages(view.messages, { node: 'answerer', copy: null, round: null });
    expect(answers).toHaveLength(9);
    expect(new Set(answers.map((m) => m.node))).toEqual(new Set(['answerer']));
    const before = filterMessages(view.messages, { node: null, copy: null, round: 'before' });
    expect(before.map((m) => m.node)).toEqual(['first', 'first', 'first']);
    // `critic#1` does not take in `critic#10` and beyond.
    expect(
      filterMessages(
        [
          { ...view.messages[0]!, from: 'critic#1', node: 'critic' },
          { ...view.messages[0]!, from: 'critic#10', node: 'critic' },
        ],
        { node: null, copy: 'critic#1', round: null },
      ).map((m) => m.from),
    ).toEqual(['critic#1']);
  });
});

describe('a vote of 50 critics over 26 styles', () => {
  const counts: Record<string, number> = { Cubism: 21, Fauvism: 17, Surrealism: 9, 'Op Art': 3 };
  const tally = {
    rule: 'plurality',
    candidates: ART_STYLES,
    counts: Object.fromEntries(ART_STYLES.map((s) => [s, counts[s] ?? 0])),
    ranking: ART_STYLES,
    winner: 'Cubism',
  };

  it('draws the candidates with votes, most first, and names the others in one line', () => {
    const { drawn, unvoted } = chartedBars(tallyBars(tally));
    expect(drawn.map((b) => [b.candidate, b.count])).toEqual([
      ['Cubism', 21],
      ['Fauvism', 17],
      ['Surrealism', 9],
      ['Op Art', 3],
    ]);
    expect(drawn[0]?.winner).toBe(true);
    expect(unvoted).toHaveLength(22);
    expect(unvoted[0]).toBe('Abstract Expressionism');
  });

  it('still draws a winner with no votes (a tie-break among nobody), and every bar of an empty vote', () => {
    const none = { candidates: ['a', 'b'], counts: { a: 0, b: 0 } };
    expect(chartedBars(tallyBars(none)).drawn).toHaveLength(2);
    const chosen = chartedBars(tallyBars({ ...none, winner: 'b' }));
    expect(chosen.drawn.map((b) => b.candidate)).toEqual(['b']);
    expect(chosen.unvoted).toEqual(['a']);
  });
});

describe('replicate lists in the inspector', () => {
  it('edits replication, and lists of texts, one item per line', () => {
    expect(registryTypes()).toContain('vote');
    const agentFields = describeFields(specOf('agent')!.data);
    expect(agentFields.find((f) => f.name === 'replicate')?.field).toEqual({ kind: 'replicate' });
    const voteFields = describeFields(specOf('vote')!.data);
    expect(voteFields.find((f) => f.name === 'candidates')?.field).toEqual({ kind: 'lines' });
  });
});

describe('a group replicated over a template parameter', () => {
  it('opens collapsed, whatever length the parameter gives it', () => {
    const canvas = fromDocument(artistCriticDocument(ART_STYLES.slice(0, 2), PROFESSIONS));
    const bound = canvas.nodes.map((n) =>
      n.id === 'artists'
        ? { ...n, data: { ...n.data, replicate: { items: { $param: 'styles' }, as: 'style' } } }
        : n,
    );
    expect([...collapsedView(bound, canvas.edges).cards]).toEqual(['artists']);
  });
});
