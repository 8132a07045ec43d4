import { describe, expect, it } from 'vitest';
import { FakeProvider } from '../../tests/support/fake-provider.ts';
import { agent, edge, graph, input, node, problems, run } from '../../tests/support/graphs.ts';

const inStorm = { parentId: 'storm' };

/** An organizer asks, two members answer each round, a leader decides; members hold rights. */
function society(storm: Record<string, unknown> = {}) {
  return graph(
    [
      input('question'),
      node('storm', 'mindstorm', {
        maxRounds: 2,
        members: ['member'],
        leader: 'leader',
        ...storm,
      }),
      agent('organizer', 'ORGANIZER {{ question }}', {}, inStorm),
      agent(
        'member',
        'MEMBER {{ who }}: {{ sub }}',
        { replicate: { items: ['ann', 'bob'], as: 'who' } },
        inStorm,
      ),
      agent('leader', 'LEADER {{ question }}', { stage: 'decide' }, inStorm),
    ],
    [
      edge('question.value', 'organizer.question'),
      edge('question.value', 'leader.question'),
      edge('organizer.text', 'member.sub'),
    ],
  );
}

/** The organizer asks "Q<round>?"; each member answers with its name; ballots say "(a)". */
function scripted() {
  let asked = 0;
  return new FakeProvider((call) => {
    if (call.user.startsWith('ORGANIZER')) return `Q${++asked}?`;
    if (/LEADER|ballot/i.test(call.user)) return '(a)';
    return /MEMBER (\w+)/.exec(call.user)?.[1] ?? 'kept';
  });
}

const go = (doc: object, fake: FakeProvider) =>
  run(doc, { providerFor: fake.providerFor, inputs: { question: 'Red or blue?' } });

describe("the rights' wording", () => {
  it('is by default the wording members have always received', async () => {
    const fake = scripted();
    await go(society({ structure: 'democracy' }), fake);
    const users = fake.calls.map((c) => c.user);
    expect(users).toContain(
      'Context from the previous round. Question: Q1? Answer 1: ann; Answer 2: bob.\n\nMEMBER ann: Q2?',
    );
    expect(users).toContain(
      'Question: Q1?\nThese answers were given by you and your colleagues:\n(a) ann\n(b) bob\n' +
        'You may keep your answer or adopt a better one. Reply with the answer itself, nothing else.',
    );
    // The ballot is the leader's question as it stands.
    expect(users.filter((u) => u === 'LEADER Red or blue?')).toHaveLength(2);
  });

  it('is what the document says when edited', async () => {
    const fake = scripted();
    const prompts = {
      know: 'Round {{ round }}. Last time, on "{{ question }}": {% for a in answers %}[{{ a.from }}] {{ a.text }} {% endfor %}| {{ prompt }}',
      change: 'Revise "{{ question }}": {{ options | join: " / " }}',
      execute: 'VOTE PLEASE. {{ prompt }}',
    };
    await go(society({ structure: 'democracy', prompts }), fake);
    const users = fake.calls.map((c) => c.user);
    expect(users).toContain(
      'Round 2. Last time, on "Q1?": [member#0@r1] ann [member#1@r1] bob | MEMBER ann: Q2?',
    );
    expect(users.filter((u) => u === 'Revise "Q1?": ann / bob')).toHaveLength(2);
    expect(users.filter((u) => u === 'VOTE PLEASE. LEADER Red or blue?')).toHaveLength(2);
    expect(users.some((u) => u.includes('Context from the previous round'))).toBe(false);
  });

  it('is checked like any template', async () => {
    const doc = society({ prompts: { know: '{% include "x" %}' } });
    expect((await problems(doc)).map((p) => p.message)).toContain(
      'templates cannot include other files ({% include %})',
    );
  });
});
