import { describe, expect, it } from 'vitest';
import { deferred, FakeProvider, fatal } from '../../tests/support/fake-provider.ts';
import { fan } from '../../tests/support/fan.ts';
import {
  agent,
  edge,
  eventsOf,
  graph,
  input,
  node,
  output,
  run,
  start,
  talliesOf,
  until,
} from '../../tests/support/graphs.ts';

describe('dataflow', () => {
  it('runs independent branches concurrently, within the concurrency limit', async () => {
    const fake = new FakeProvider(() => ({ text: 'ok', delayMs: 20 }));
    const result = await run(fan(6, { concurrency: { default: 3 } }), {
      providerFor: fake.providerFor,
      inputs: { q: 'why?' },
    });
    expect(result.status).toBe('succeeded');
    expect(fake.calls).toHaveLength(6);
    expect(fake.peakConcurrency).toBeGreaterThan(1);
    expect(fake.peakConcurrency).toBeLessThanOrEqual(3);
  });

  it('keeps to a concurrency of 1 when told to', async () => {
    const fake = new FakeProvider(() => ({ text: 'ok', delayMs: 5 }));
    await run(fan(3, { concurrency: { default: 1 } }), {
      providerFor: fake.providerFor,
      inputs: { q: 'why?' },
    });
    expect(fake.peakConcurrency).toBe(1);
  });

  it('applies a per-provider limit by the provider name the document uses', async () => {
    const fake = new FakeProvider(() => ({ text: 'ok', delayMs: 5 }));
    const settings = { concurrency: { default: 4, providers: { test: 1 } } };
    await run(fan(3, settings), { providerFor: fake.providerFor, inputs: { q: 'why?' } });
    expect(fake.peakConcurrency).toBe(1);
  });

  it('starts a node only after all its inputs are ready', async () => {
    const doc = graph(
      [
        input('q'),
        agent('slow', 'slow {{ q }}'),
        agent('fast', 'fast {{ q }}'),
        agent('join', 'join {{ x }} and {{ y }}'),
        output('answer'),
      ],
      [
        edge('q.value', 'slow.q'),
        edge('q.value', 'fast.q'),
        edge('slow.text', 'join.x'),
        edge('fast.text', 'join.y'),
        edge('join.text', 'answer.value'),
      ],
    );
    const fake = new FakeProvider((call) =>
      call.user.startsWith('slow')
        ? { text: 'S', delayMs: 30 }
        : call.user.startsWith('fast')
          ? 'F'
          : 'J',
    );
    const { events, outputs } = await run(doc, {
      providerFor: fake.providerFor,
      inputs: { q: 'go' },
    });
    const order = events
      .filter((e) => e.type === 'node.started' || e.type === 'node.finished')
      .map((e) => `${e.type === 'node.started' ? '+' : '-'}${'node' in e ? e.node : ''}`);
    expect(order.indexOf('+join')).toBeGreaterThan(order.indexOf('-slow'));
    expect(order.indexOf('+join')).toBeGreaterThan(order.indexOf('-fast'));
    expect(fake.callsMentioning('join')[0]?.user).toBe('join S and F');
    expect(outputs).toEqual({ answer: 'J' });
  });

  it('gives a fan-in port its inputs in edge order, whatever order they finish in', async () => {
    const doc = graph(
      [
        input('q'),
        agent('first', '1 {{ q }}'),
        agent('second', '2 {{ q }}'),
        agent('third', '3 {{ q }}'),
        node('gather', 'summarize', { mode: 'concatenate', separator: ' | ' }),
        output('all'),
      ],
      [
        edge('q.value', 'first.q'),
        edge('q.value', 'second.q'),
        edge('q.value', 'third.q'),
        edge('third.text', 'gather.text'),
        edge('first.text', 'gather.text'),
        edge('second.text', 'gather.text'),
        edge('gather.summary', 'all.value'),
      ],
    );
    // The first agent answers last, the third first.
    const delay = { '1': 30, '2': 15, '3': 0 } as Record<string, number>;
    const fake = new FakeProvider((call) => ({
      text: `answer ${call.user[0]}`,
      delayMs: delay[call.user[0]!]!,
    }));
    const { outputs, events } = await run(doc, {
      providerFor: fake.providerFor,
      inputs: { q: '?' },
    });
    expect(outputs.all).toBe('answer 3 | answer 1 | answer 2');
    const started = eventsOf(events, 'node.started').find((e) => e.node === 'gather');
    expect(started?.inputs.text).toEqual(['answer 3', 'answer 1', 'answer 2']);
  });

  it('passes values of other modalities through unchanged', async () => {
    const doc = graph(
      [input('n', { modality: 'number', default: 4 }), output('same')],
      [edge('n.value', 'same.value')],
    );
    const { outputs, usage } = await run(doc, { simulate: true });
    expect(outputs).toEqual({ same: 4 });
    expect(usage.calls).toBe(0);
  });
});

describe('replication', () => {
  it('runs a node once per item with the item bound, and gathers a list in item order', async () => {
    const doc = graph(
      [
        input('q'),
        agent('critic', 'As a {{ job }}: {{ q }}', {
          replicate: { items: ['poet', 'chef', 'pilot'], as: 'job' },
        }),
        node('vote', 'vote'),
        output('ballots'),
      ],
      [
        edge('q.value', 'critic.q'),
        edge('critic.text', 'vote.ballots'),
        edge('critic.text', 'ballots.value'),
      ],
    );
    // The pilot answers first and the poet last; the list must still be in item order.
    const fake = new FakeProvider((call) => {
      const job = /As a (\w+)/.exec(call.user)![1]!;
      return { text: `${job} says yes`, delayMs: { poet: 30, chef: 15, pilot: 0 }[job]! };
    });
    const { outputs, events } = await run(doc, {
      providerFor: fake.providerFor,
      inputs: { q: 'Paint?' },
    });
    expect(fake.calls.map((c) => c.user).sort()).toEqual([
      'As a chef: Paint?',
      'As a pilot: Paint?',
      'As a poet: Paint?',
    ]);
    expect(outputs.ballots).toEqual(['poet says yes', 'chef says yes', 'pilot says yes']);
    const [vote] = talliesOf(events);
    expect(vote?.tally.ballots.map((b) => b.voter)).toEqual(['critic#0', 'critic#1', 'critic#2']);
    expect(
      eventsOf(events, 'node.started')
        .filter((e) => e.node === 'critic')
        .map((e) => e.instance)
        .sort(),
    ).toEqual(['critic#0', 'critic#1', 'critic#2']);
  });

  it('sends every copy its own prompt when the copies are shown the same list', async () => {
    const doc = graph(
      [
        input('q'),
        node('idea', 'transform', {
          template: '{{ style }} {{ q }}',
          replicate: { items: ['cubist', 'baroque'], as: 'style' },
        }),
        agent('critic', '{% for p in ideas %}{{ p }}; {% endfor %}{{ q }}?', {
          role: 'You are a {{ job }}.',
          slots: { ideas: 'list<text>' },
          replicate: { items: ['poet', 'chef', 'pilot'], as: 'job' },
        }),
        agent('judge', '{% for b in ballots %}{{ b }}; {% endfor %}{{ job }}', {
          slots: { ballots: 'list<text>' },
          replicate: { items: ['left', 'right'], as: 'job' },
        }),
        output('o'),
      ],
      [
        edge('q.value', 'idea.q'),
        edge('q.value', 'critic.q'),
        edge('idea.value', 'critic.ideas'),
        edge('critic.text', 'judge.ballots'),
        edge('judge.text', 'o.value'),
      ],
    );
    const fake = new FakeProvider((call) => ({ text: call.system || call.user }));
    const { outputs } = await run(doc, { providerFor: fake.providerFor, inputs: { q: 'Paint' } });
    const asked = fake.calls.map((c) => `${c.system} | ${c.user}`).sort();
    expect(asked).toEqual(
      [
        'You are a chef. | cubist Paint; baroque Paint; Paint?',
        'You are a pilot. | cubist Paint; baroque Paint; Paint?',
        'You are a poet. | cubist Paint; baroque Paint; Paint?',
        ' | You are a poet.; You are a chef.; You are a pilot.; left',
        ' | You are a poet.; You are a chef.; You are a pilot.; right',
      ].sort(),
    );
    expect(outputs.o).toEqual([
      'You are a poet.; You are a chef.; You are a pilot.; left',
      'You are a poet.; You are a chef.; You are a pilot.; right',
    ]);
  });

  it('binds `item` and `replica` when no name is given', async () => {
    const doc = graph(
      [
        node('t', 'transform', {
          template: '{{ replica.index }}/{{ replica.count }}={{ item }}',
          replicate: { items: ['a', 'b'] },
        }),
        output('o'),
      ],
      [edge('t.value', 'o.value')],
    );
    const { outputs } = await run(doc, { simulate: true });
    expect(outputs.o).toEqual(['0/2=a', '1/2=b']);
  });

  it('runs each copy of a replicated group with its item and gathers lists', async () => {
    const doc = graph(
      [
        input('topic'),
        node('pair', 'group', {
          replicate: { items: ['cubism', 'baroque', 'pop art'], as: 'style' },
        }),
        agent('questioner', 'Ask a {{ style }} artist about {{ topic }}', {}, { parentId: 'pair' }),
        agent('answerer', 'In {{ style }}, answer: {{ question }}', {}, { parentId: 'pair' }),
        output('questions'),
        output('answers'),
      ],
      [
        edge('topic.value', 'questioner.topic'),
        edge('questioner.text', 'answerer.question'),
        edge('questioner.text', 'questions.value'),
        edge('answerer.text', 'answers.value'),
      ],
    );
    const fake = new FakeProvider((call) => {
      const style = /(cubism|baroque|pop art)/.exec(call.user)![1]!;
      return call.user.startsWith('Ask')
        ? `Q(${style})`
        : `A(${style}) to ${call.user.split(': ')[1]}`;
    });
    const { outputs, events, status } = await run(doc, {
      providerFor: fake.providerFor,
      inputs: { topic: 'light' },
    });
    expect(status).toBe('succeeded');
    expect(fake.calls).toHaveLength(6);
    expect(outputs.questions).toEqual(['Q(cubism)', 'Q(baroque)', 'Q(pop art)']);
    expect(outputs.answers).toEqual([
      'A(cubism) to Q(cubism)',
      'A(baroque) to Q(baroque)',
      'A(pop art) to Q(pop art)',
    ]);
    const answerers = eventsOf(events, 'node.started').filter((e) => e.node === 'answerer');
    expect(answerers.map((e) => e.instance).sort()).toEqual([
      'pair#0/answerer',
      'pair#1/answerer',
      'pair#2/answerer',
    ]);
  });
});

describe('failures', () => {
  it('fails the run naming the node, and aborts its siblings', async () => {
    const hold = deferred();
    const fake = new FakeProvider((call) =>
      call.user.startsWith('a1')
        ? fatal('the model refused')
        : { text: 'fine', after: hold.promise },
    );
    const r = await start(fan(3), { providerFor: fake.providerFor, inputs: { q: '?' } });
    const result = await r.result;
    expect(result.status).toBe('failed');
    expect(result.error).toBe('node "a1": the model refused');
    expect(fake.calls).toHaveLength(3);
    expect(fake.aborted).toBe(2);
    expect(eventsOf(r.events, 'node.failed')).toEqual([
      expect.objectContaining({ node: 'a1', error: 'the model refused' }),
    ]);
    expect(eventsOf(r.events, 'run.finished')[0]).toMatchObject({
      status: 'failed',
      error: 'node "a1": the model refused',
    });
  });

  it('does not start nodes downstream of a failure', async () => {
    const fake = new FakeProvider(() => fatal('nope'));
    const doc = graph(
      [input('q'), agent('a', '{{ q }}'), agent('b', '{{ x }}')],
      [edge('q.value', 'a.q'), edge('a.text', 'b.x')],
    );
    const { events, status } = await run(doc, {
      providerFor: fake.providerFor,
      inputs: { q: '?' },
    });
    expect(status).toBe('failed');
    expect(eventsOf(events, 'node.started').map((e) => e.node)).toEqual(['q', 'a']);
  });

  it('names a missing run input before making any call', async () => {
    const fake = new FakeProvider();
    const doc = graph(
      [
        input('question'),
        input('style', { default: 'plain' }),
        agent('a', '{{ question }} {{ style }}'),
      ],
      [edge('question.value', 'a.question'), edge('style.value', 'a.style')],
    );
    const result = await run(doc, { providerFor: fake.providerFor });
    expect(result.status).toBe('failed');
    expect(result.error).toBe('missing input: question (pass --input question=...)');
    expect(fake.calls).toHaveLength(0);
  });

  it('uses an input default when no value is given', async () => {
    const fake = new FakeProvider((call) => call.user);
    const doc = graph(
      [input('style', { default: 'plain' }), agent('a', 'in {{ style }}'), output('o')],
      [edge('style.value', 'a.style'), edge('a.text', 'o.value')],
    );
    expect((await run(doc, { providerFor: fake.providerFor })).outputs).toEqual({ o: 'in plain' });
  });

  it('refuses text given for an image input', async () => {
    const doc = graph(
      [input('photo', { modality: 'image' }), output('o')],
      [edge('photo.value', 'o.value')],
    );
    const result = await run(doc, { simulate: true, inputs: { photo: 'cat.png' } });
    expect(result.error).toMatch(/input "photo" is an image/);
  });

  it("fails the run from inside a mindstorm, naming the node and the round's copy", async () => {
    const doc = graph([
      node('storm', 'mindstorm', { maxRounds: 3 }),
      agent('a', 'Round {{ loop.round }}', {}, { parentId: 'storm' }),
      agent('b', 'Round {{ loop.round }}', {}, { parentId: 'storm' }),
    ]);
    const fake = new FakeProvider((call) => (call.index === 2 ? fatal('bad gateway') : 'ok'));
    const { status, error, events } = await run(doc, { providerFor: fake.providerFor });
    expect(status).toBe('failed');
    expect(error).toMatch(/^node "([ab])" \(\1@r2\): bad gateway$/);
    expect(eventsOf(events, 'round.started').map((e) => e.round)).toEqual([1, 2]);
  });

  it('fails the run from inside a replicated group, naming the node', async () => {
    const doc = graph([
      node('team', 'group', { replicate: { items: [1, 2, 3] } }),
      agent('worker', 'Job {{ item }}', {}, { parentId: 'team' }),
    ]);
    // Copy 2 fails once the other two are waiting on their answers, which never come.
    let waiting = 0;
    let othersWaiting!: () => void;
    const othersStarted = new Promise<void>((resolve) => {
      othersWaiting = resolve;
    });
    const fake = new FakeProvider(async (call) => {
      if (call.user === 'Job 2') {
        await othersStarted;
        return fatal('no');
      }
      if (++waiting === 2) othersWaiting();
      return { text: 'ok', after: new Promise(() => {}) };
    });
    const { error } = await run(doc, { providerFor: fake.providerFor });
    expect(error).toBe('node "worker" (team#1/worker): no');
    expect(fake.aborted).toBe(2);
  });
});

describe('cancellation', () => {
  it('aborts the calls in flight and ends as cancelled', async () => {
    const hold = deferred();
    const fake = new FakeProvider(() => ({ text: 'late', after: hold.promise }));
    const r = await start(fan(3), { providerFor: fake.providerFor, inputs: { q: '?' } });
    await until(() => fake.inFlight === 3, 'three calls in flight');
    r.cancel();
    const result = await r.result;
    expect(result).toMatchObject({ status: 'cancelled', error: 'cancelled', outputs: {} });
    expect(fake.aborted).toBe(3);
    expect(eventsOf(r.events, 'node.failed')).toEqual([]);
  });

  it('stops the rounds of a mindstorm in every copy of a group when cancelled', async () => {
    const doc = graph([
      node('team', 'group', { replicate: { items: [1, 2] } }),
      node('storm', 'mindstorm', { maxRounds: 3 }, { parentId: 'team' }),
      agent('a', 'Job {{ item }} round {{ loop.round }}', {}, { parentId: 'storm' }),
    ]);
    const hold = deferred();
    const fake = new FakeProvider((call) =>
      call.user.endsWith('round 2') ? { text: 'late', after: hold.promise } : 'ok',
    );
    const r = await start(doc, { providerFor: fake.providerFor });
    await until(() => fake.inFlight === 2, 'both copies in round 2');
    const started = eventsOf(r.events, 'node.started').length;
    r.cancel();
    expect(await r.result).toMatchObject({ status: 'cancelled', outputs: {} });
    expect(fake.aborted).toBe(2);
    expect(eventsOf(r.events, 'node.started')).toHaveLength(started);
    expect(eventsOf(r.events, 'round.started').map((e) => e.round)).toEqual([1, 1, 2, 2]);
  });

  it('cancels before starting when the signal is already aborted', async () => {
    const fake = new FakeProvider();
    const result = await run(fan(2), {
      providerFor: fake.providerFor,
      inputs: { q: '?' },
      signal: AbortSignal.abort(),
    });
    expect(result).toMatchObject({ status: 'cancelled', error: 'cancelled' });
    expect(fake.calls).toHaveLength(0);
    expect(eventsOf(result.events, 'node.started')).toEqual([]);
  });
});

describe('events and results', () => {
  it('numbers events in order and reports usage and simulated answers', async () => {
    const { events, usage, simulated, outputs } = await run(fan(2), {
      simulate: true,
      inputs: { q: 'hi' },
    });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events[0]?.type).toBe('run.started');
    expect(events.at(-1)?.type).toBe('run.finished');
    expect(usage.calls).toBe(2);
    expect(simulated).toBe(true);
    expect(String(outputs.out_a0)).toMatch(/^\[simulated\] /);
    for (const e of eventsOf(events, 'message')) expect(e.simulated).toBe(true);
  });

  it('records each model request and response, with what the agent saw', async () => {
    const fake = new FakeProvider(() => 'Paris');
    const doc = graph(
      [
        input('q'),
        agent('a', 'Answer briefly: {{ q }}', { role: 'You are a geographer.' }),
        output('o'),
      ],
      [edge('q.value', 'a.q'), edge('a.text', 'o.value')],
    );
    const { events } = await run(doc, {
      providerFor: fake.providerFor,
      inputs: { q: 'Capital of France?' },
    });
    const [request] = eventsOf(events, 'model.request');
    expect(request).toMatchObject({
      node: 'a',
      profile: 'm',
      model: 'test-model',
      messages: [
        { role: 'system', content: 'You are a geographer.' },
        { role: 'user', content: 'Answer briefly: Capital of France?' },
      ],
    });
    expect(eventsOf(events, 'model.response')[0]).toMatchObject({
      node: 'a',
      text: 'Paris',
      attempts: 1,
    });
    expect(eventsOf(events, 'message')[0]).toMatchObject({ from: 'a', to: ['o'], text: 'Paris' });
  });

  it('runs an empty graph', async () => {
    const result = await run(graph([]), { simulate: true });
    expect(result).toMatchObject({ status: 'succeeded', outputs: {} });
  });
});
