import { describe, expect, it } from 'vitest';
import { FakeProvider, type FakeScript } from '../../tests/support/fake-provider.ts';
import {
  agent,
  edge,
  eventsOf,
  graph,
  input,
  node,
  output,
  problems,
  run,
  talliesOf,
} from '../../tests/support/graphs.ts';

const inStorm = { parentId: 'storm' };

/**
 * The NLSOM shape in miniature: an organizer asks, three replicated members answer each
 * round, a concatenating summary gathers the transcript, a leader decides.
 */
function society(storm: Record<string, unknown> = {}) {
  return graph(
    [
      input('question'),
      node('storm', 'mindstorm', { maxRounds: 3, members: ['member'], leader: 'leader', ...storm }),
      agent('organizer', 'ORGANIZER round {{ loop.round }}: {{ question }}', {}, inStorm),
      agent(
        'member',
        'MEMBER {{ who }}: {{ subquestion }}',
        { replicate: { items: ['ann', 'bob', 'cy'], as: 'who' } },
        inStorm,
      ),
      node('summary', 'summarize', { mode: 'concatenate', stage: 'gather' }, inStorm),
      agent('leader', 'LEADER: {{ question }} Notes: {{ notes }}', { stage: 'decide' }, inStorm),
      output('answer'),
      output('verdict'),
      output('rounds'),
      output('transcript'),
    ],
    [
      edge('question.value', 'organizer.question'),
      edge('question.value', 'leader.question'),
      edge('organizer.text', 'member.subquestion'),
      edge('summary.summary', 'leader.notes'),
      edge('leader.text', 'answer.value'),
      edge('storm.verdict', 'verdict.value'),
      edge('storm.rounds', 'rounds.value'),
      edge('storm.transcript', 'transcript.value'),
    ],
  );
}

/** Answers by role; `member` answers are `<who> r<round>` unless the script says otherwise. */
function roles(script: Partial<Record<'organizer' | 'member' | 'leader', FakeScript>> = {}) {
  let organizerRound = 0;
  return new FakeProvider((call) => {
    const role = /^(ORGANIZER|MEMBER|LEADER)/.exec(call.user)?.[1]?.toLowerCase();
    if (role === 'organizer') {
      organizerRound++;
      return script.organizer?.(call) ?? `Question ${organizerRound}?`;
    }
    if (role === 'member') {
      return (
        script.member?.(call) ??
        `${/MEMBER (\w+)/.exec(call.user)![1]} on ${call.user.split(': ')[1]}`
      );
    }
    if (role === 'leader') return script.leader?.(call) ?? '(b)';
    return script.member?.(call) ?? `other: ${call.user.slice(0, 40)}`;
  });
}

const go = (doc: object, fake: FakeProvider) =>
  run(doc, {
    providerFor: fake.providerFor,
    inputs: { question: 'Which colour? (a) red (b) blue' },
  });

describe('mindstorm transcript order', () => {
  // Members answer in reverse order (cy first, ann last). The transcript, and so every prompt
  // built from it, must not depend on that timing, or a replay from a cassette would ask other
  // questions than the live run did.
  const slowFirst: FakeScript = (call) => {
    const who = /MEMBER (\w+)/.exec(call.user)![1]!;
    const delayMs = { ann: 30, bob: 15, cy: 1 }[who] ?? 0;
    return { text: `${who} answers`, delayMs };
  };
  const withTranscriptInPrompt = () => {
    const doc = society({ maxRounds: 2 });
    const organizer = doc.nodes.find((n) => n.id === 'organizer')!;
    organizer.data.prompt =
      'ORGANIZER round {{ loop.round }}: {{ question }} so far: {% for m in loop.transcript %}[{{ m.from }}] {% endfor %}';
    return doc;
  };

  it('keeps messages in graph order, not arrival order', async () => {
    const fake = roles({ member: slowFirst });
    const result = await go(withTranscriptInPrompt(), fake);
    expect(result.status).toBe('succeeded');
    const arrival = eventsOf(result.events, 'message')
      .filter((m) => m.node === 'member' && m.round === 1)
      .map((m) => m.from);
    expect(arrival).toEqual(['member#2@r1', 'member#1@r1', 'member#0@r1']);
    const secondOrganizerPrompt = fake.calls.filter((c) => c.user.startsWith('ORGANIZER'))[1]!.user;
    expect(secondOrganizerPrompt).toContain(
      '[organizer@r1] [member#0@r1] [member#1@r1] [member#2@r1]',
    );
  });
});

describe('mindstorm rounds', () => {
  it('runs exactly maxRounds rounds', async () => {
    const fake = roles();
    const { outputs, events, status } = await go(society({ maxRounds: 3 }), fake);
    expect(status).toBe('succeeded');
    expect(eventsOf(events, 'round.started').map((e) => e.round)).toEqual([1, 2, 3]);
    expect(eventsOf(events, 'round.finished').map((e) => e.stop)).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(outputs.rounds).toBe(3);
    expect(fake.callsMentioning('ORGANIZER')).toHaveLength(3);
    expect(fake.callsMentioning('MEMBER')).toHaveLength(9);
    expect(fake.callsMentioning('LEADER')).toHaveLength(1);
    expect(outputs.answer).toBe('(b)');
    expect(outputs.verdict).toBe('(b)');
  });

  it('binds loop.round for each round', async () => {
    const fake = roles();
    await go(society({ maxRounds: 2 }), fake);
    expect(fake.callsMentioning('ORGANIZER').map((c) => c.user)).toEqual([
      'ORGANIZER round 1: Which colour? (a) red (b) blue',
      'ORGANIZER round 2: Which colour? (a) red (b) blue',
    ]);
  });

  it('stops early when a node says the keyword', async () => {
    const fake = roles({
      organizer: (c) => (c.user.includes('round 2') ? 'We are DONE?' : 'More?'),
    });
    const { outputs, events } = await go(
      society({ maxRounds: 5, until: [{ kind: 'keyword', node: 'organizer', keyword: 'done' }] }),
      fake,
    );
    expect(outputs.rounds).toBe(2);
    expect(eventsOf(events, 'round.finished').map((e) => e.stop)).toEqual([
      undefined,
      '"organizer" said "done"',
    ]);
    expect(fake.callsMentioning('LEADER')).toHaveLength(1);
  });

  it('stops early on consensus among the replicas of a node', async () => {
    const fake = roles({
      member: (c) =>
        c.user.includes('Question 2?') ? 'Blue.' : `${c.user.slice(7, 10)} is unsure`,
    });
    const { outputs, events } = await go(
      society({ maxRounds: 4, until: [{ kind: 'consensus', nodes: ['member'] }] }),
      fake,
    );
    expect(outputs.rounds).toBe(2);
    expect(eventsOf(events, 'round.finished').at(-1)?.stop).toBe('consensus among member');
  });

  it('stops early when a node repeats itself', async () => {
    const fake = roles({ organizer: (c) => (c.user.includes('round 1') ? 'First?' : 'Again?') });
    const { outputs, events } = await go(
      society({ maxRounds: 6, until: [{ kind: 'unchanged', node: 'organizer' }] }),
      fake,
    );
    expect(outputs.rounds).toBe(3);
    expect(eventsOf(events, 'round.finished').at(-1)).toMatchObject({
      round: 3,
      stop: '"organizer" did not change',
    });
  });

  it('runs the stages in order: init, rounds, gather, decide', async () => {
    const doc = society({ maxRounds: 2 });
    doc.nodes.push(agent('warmup', 'WARMUP {{ question }}', { stage: 'init' }, inStorm));
    doc.edges.push(edge('question.value', 'warmup.question'));
    const { events } = await go(doc, roles());
    const stages = eventsOf(events, 'node.started')
      .filter((e) => e.stage)
      .map((e) => (e.round ? `${e.stage}${e.round}` : e.stage));
    const first = (s: string) => stages.indexOf(s);
    const last = (s: string) => stages.lastIndexOf(s);
    expect(first('init')).toBe(0);
    expect(last('init')).toBeLessThan(first('round1'));
    expect(last('round1')).toBeLessThan(first('round2'));
    expect(last('round2')).toBeLessThan(first('gather'));
    expect(first('gather')).toBeLessThan(first('decide'));
    expect(stages.at(-1)).toBe('decide');
  });

  it('lists every message in the transcript output', async () => {
    const { outputs, events } = await go(society({ maxRounds: 2 }), roles());
    const transcript = String(outputs.transcript);
    expect(transcript.split('\n').slice(0, 4)).toEqual([
      'Round 1, organizer@r1: Question 1?',
      'Round 1, member#0@r1: ann on Question 1?',
      'Round 1, member#1@r1: bob on Question 1?',
      'Round 1, member#2@r1: cy on Question 1?',
    ]);
    const roundMessages = eventsOf(events, 'message').filter((m) => m.stage === 'round');
    expect(roundMessages).toHaveLength(8);
    for (const m of roundMessages) expect(transcript).toContain(`${m.from}: ${m.text}`);
  });

  it('gives the gather stage the whole discussion', async () => {
    const fake = roles();
    await go(society({ maxRounds: 2 }), fake);
    const leader = fake.callsMentioning('LEADER')[0]!.user;
    expect(leader).toContain('Round 2, member#2@r2: cy on Question 2?');
  });
});

describe('mindstorm edges', () => {
  /** A questioner reads what the answerer said in the previous round. */
  function dialogue(edgeData: Record<string, unknown>, collect?: 'last' | 'all') {
    return graph(
      [
        node('storm', 'mindstorm', { maxRounds: 3 }),
        agent('asker', 'ASK after {{ last }}', {}, inStorm),
        agent('teller', 'TELL {{ question }}', {}, inStorm),
        output('told'),
      ],
      [
        edge('asker.text', 'teller.question'),
        edge('teller.text', 'asker.last', { previousRound: true, ...edgeData }),
        edge('teller.text', 'told.value', collect ? { collect } : undefined),
      ],
    );
  }

  const counting = () => {
    let n = 0;
    return new FakeProvider((call) =>
      call.user.startsWith('TELL') ? `told ${++n}` : `asked (${call.user})`,
    );
  };

  it('delivers the previous round value, and `initial` in round 1', async () => {
    const fake = counting();
    await run(dialogue({ initial: 'nothing yet' }), { providerFor: fake.providerFor });
    expect(fake.calls.filter((c) => c.user.startsWith('ASK')).map((c) => c.user)).toEqual([
      'ASK after nothing yet',
      'ASK after told 1',
      'ASK after told 2',
    ]);
  });

  it('leaves the input empty in round 1 without `initial`', async () => {
    const fake = counting();
    await run(dialogue({}), { providerFor: fake.providerFor });
    expect(fake.calls[0]?.user).toBe('ASK after ');
  });

  it('gives the last round value when leaving the loop', async () => {
    const { outputs } = await run(dialogue({}), { providerFor: counting().providerFor });
    expect(outputs.told).toBe('told 3');
  });

  it("gives the list of every round's value with collect: all", async () => {
    const { outputs } = await run(dialogue({}, 'all'), { providerFor: counting().providerFor });
    expect(outputs.told).toEqual(['told 1', 'told 2', 'told 3']);
  });

  it('collects every round from a mindstorm in each copy of a replicated group', async () => {
    const doc = graph(
      [
        node('team', 'group', { replicate: { items: ['x', 'y'], as: 'who' } }),
        node('storm', 'mindstorm', { maxRounds: 2 }, { parentId: 'team' }),
        agent('a', '{{ who }} in round {{ loop.round }}', {}, { parentId: 'storm' }),
        output('all'),
        output('last'),
      ],
      [edge('a.text', 'all.value', { collect: 'all' }), edge('a.text', 'last.value')],
    );
    const fake = new FakeProvider((call) => call.user);
    const { outputs } = await run(doc, { providerFor: fake.providerFor });
    expect(outputs.all).toEqual([
      ['x in round 1', 'x in round 2'],
      ['y in round 1', 'y in round 2'],
    ]);
    expect(outputs.last).toEqual(['x in round 2', 'y in round 2']);
  });

  it('rejects a mindstorm without a round-stage node', async () => {
    const doc = graph([
      node('storm', 'mindstorm', {}),
      agent('a', 'x', { stage: 'gather' }, inStorm),
    ]);
    expect((await problems(doc))[0]?.message).toMatch(
      /at least one node inside it with stage "round"/,
    );
  });

  it('rejects a node that reads from a later stage', async () => {
    const doc = society();
    doc.edges.push(edge('summary.summary', 'organizer.later'));
    doc.nodes[2]!.data.prompt = 'ORGANIZER {{ question }} {{ later }}';
    expect((await problems(doc)).map((p) => p.message)).toContain(
      '"organizer" (stage round) cannot read "summary" (stage gather), which runs later',
    );
  });
});

describe('mindstorm rights', () => {
  it('monarchy: no peer context, no revisions, the leader decides', async () => {
    const fake = roles();
    const { events, outputs } = await go(society({ maxRounds: 2 }), fake);
    expect(fake.calls).toHaveLength(2 + 6 + 1);
    for (const c of fake.callsMentioning('MEMBER')) expect(c.user).not.toContain('previous round');
    expect(talliesOf(events)).toEqual([]);
    expect(outputs.verdict).toBe('(b)');
  });

  it('RTK: from round 2, members see the previous round answers', async () => {
    const fake = roles();
    await go(society({ maxRounds: 2, rights: { rtk: true } }), fake);
    const members = fake.calls.filter((c) => c.user.includes('MEMBER'));
    expect(members).toHaveLength(6);
    const round1 = members.filter((c) => c.user.endsWith('Question 1?'));
    const round2 = members.filter((c) => c.user.endsWith('Question 2?'));
    for (const c of round1) expect(c.user).not.toContain('previous round');
    for (const c of round2) {
      expect(c.user).toContain('Context from the previous round.');
      expect(c.user).toContain('Question 1?');
      for (const who of ['ann', 'bob', 'cy']) expect(c.user).toContain(`${who} on Question 1?`);
    }
  });

  it('RTK works with members of which only some are replicated', async () => {
    const doc = society({ maxRounds: 2, rights: { rtk: true }, members: ['member', 'skeptic'] });
    doc.nodes.push(agent('skeptic', 'SKEPTIC: {{ subquestion }}', {}, inStorm));
    doc.edges.push(edge('organizer.text', 'skeptic.subquestion'));
    const fake = roles({ member: (c) => (c.user.startsWith('SKEPTIC') ? 'I doubt it' : 'sure') });
    const { status, error } = await go(doc, fake);
    expect(error).toBeUndefined();
    expect(status).toBe('succeeded');
    const round2 = fake.calls.filter(
      (c) => /MEMBER|SKEPTIC/.test(c.user) && c.user.endsWith('Question 2?'),
    );
    expect(round2).toHaveLength(4);
    for (const c of round2) expect(c.user).toMatch(/Answer 4: I doubt it/);
  });

  it('RTC: each member revises each round answer, and gather sees the revisions', async () => {
    const fake = roles({
      member: (c) => {
        if (c.user.includes('You may keep your answer')) return 'revised';
        return `${/MEMBER (\w+)/.exec(c.user)![1]} original`;
      },
    });
    const { events } = await go(society({ maxRounds: 2, rights: { rtc: true } }), fake);
    const revisions = fake.calls.filter((c) => c.user.includes('You may keep your answer'));
    expect(revisions).toHaveLength(2 * 3);
    // Each revision offers every answer of its round as an option.
    expect(revisions[0]?.user).toContain('(a) ann original');
    expect(revisions[0]?.user).toContain('(c) cy original');
    const leader = fake.callsMentioning('LEADER')[0]!.user;
    expect(leader).toContain('member#0@r1: revised');
    expect(leader).not.toContain('original');
    expect(eventsOf(events, 'node.started').filter((e) => e.stage === 'revise')).toHaveLength(6);
  });

  it('RTC: a revision answered with an option letter takes that option', async () => {
    const fake = roles({
      member: (c) =>
        c.user.includes('You may keep your answer')
          ? '(b)'
          : `${/MEMBER (\w+)/.exec(c.user)![1]} says so`,
    });
    await go(society({ maxRounds: 1, rights: { rtc: true } }), fake);
    const leader = fake.callsMentioning('LEADER')[0]!.user;
    expect(leader).toContain('member#0@r1: bob says so');
    expect(leader).toContain('member#2@r1: bob says so');
  });

  it('RTE: the members vote instead of the leader deciding', async () => {
    const ballots: Record<string, string> = { ann: '(a)', bob: '(b)', cy: '(a)' };
    // Ballots are asked with the leader's prompt, so they reach the `leader` script.
    const fake = roles({ member: () => 'looks red', leader: (c) => ballots[c.system]! });
    const doc = society({ maxRounds: 1, rights: { rte: true } });
    doc.nodes[3]!.data.role = '{{ who }}';
    const { events, outputs, status } = await go(doc, fake);
    expect(status).toBe('succeeded');
    // The ballot prompt is the leader's question, asked of each member.
    const ballotCalls = fake.calls.filter((c) => c.user.startsWith('LEADER'));
    expect(ballotCalls.map((c) => c.system).sort()).toEqual(['ann', 'bob', 'cy']);
    expect(fake.calls).toHaveLength(1 + 3 + 3);
    const [vote] = talliesOf(events);
    expect(vote?.node).toBe('storm');
    expect(vote?.tally.ballots.map((b) => [b.voter, b.value])).toEqual([
      ['member#0@decide:ballot', '(a)'],
      ['member#1@decide:ballot', '(b)'],
      ['member#2@decide:ballot', '(a)'],
    ]);
    expect(outputs.verdict).toBe('(a)');
    expect(outputs.answer).toBe('(a)');
  });

  it('labels a verdict voted by simulated members as simulated', async () => {
    const { outputs, simulated } = await run(society({ maxRounds: 1, structure: 'democracy' }), {
      simulate: true,
      inputs: { question: 'Which colour? (a) red (b) blue' },
    });
    expect(simulated).toBe(true);
    expect(String(outputs.verdict)).toMatch(/^\[simulated\] /);
  });

  it('democracy grants every right: peer context, revisions and a vote', async () => {
    const fake = roles({ member: () => 'blue' });
    const { events, outputs } = await go(society({ maxRounds: 2, structure: 'democracy' }), fake);
    const users = fake.calls.map((c) => c.user);
    expect(users.filter((u) => u.includes('Context from the previous round'))).toHaveLength(3);
    expect(users.filter((u) => u.includes('You may keep your answer'))).toHaveLength(6);
    expect(talliesOf(events)).toHaveLength(1);
    expect(outputs.verdict).toBe('(b)');
    // organizer ×2, members ×6, revisions ×6, ballots ×3; the leader is never called.
    expect(fake.calls).toHaveLength(17);
  });
});
