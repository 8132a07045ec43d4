/**
 * Graphs of the document's library offered to an agent as tools: the schema their input nodes
 * make, a call running the graph as a child of the agent's instance, a replay serving the child
 * graph's model calls from the record, and what validation refuses.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Cassette } from '../../app/providers/cassette.ts';
import { OpenAICompatibleProvider } from '../../app/providers/openai.ts';
import type { RunOptions } from '../../app/runtime/engine.ts';
import type { GraphDocument, LibraryGraph } from '../../app/schema/document.ts';
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
} from '../../tests/support/graphs.ts';
import {
  type StubOpenAI,
  type StubReply,
  type StubRequestBody,
  startStubOpenAI,
} from '../../tests/support/stub-openai.ts';
import { lastToolResult } from '../../tests/support/tool-source.ts';

let stub: StubOpenAI | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

async function stubAnswering(
  respond: (body: StubRequestBody, index: number) => StubReply,
): Promise<StubOpenAI> {
  stub = await startStubOpenAI({ respond: (body, { index }) => respond(body, index) });
  return stub;
}

function providerFor(s: StubOpenAI): RunOptions['providerFor'] {
  return () => new OpenAICompatibleProvider({ id: 'test', baseUrl: s.url });
}

/** Arithmetic without a model: a template adds, subtracts, multiplies and divides a by b. */
const CALCULATOR: LibraryGraph = {
  description: 'Computes the sum, difference, product and quotient of two numbers.',
  nodes: [
    input('a', { modality: 'number', description: 'the first number' }),
    input('b', { modality: 'number', description: 'the second number' }),
    node('calc', 'transform', {
      template:
        '{"sum": {{ a | plus: b }}, "difference": {{ a | minus: b }}, "product": {{ a | times: b }}, "quotient": {% if b == 0 %}null{% else %}{{ a | divided_by: b }}{% endif %}}',
      slots: { a: 'number', b: 'number' },
      output: 'json',
    }),
    output('result'),
  ],
  edges: [edge('a.value', 'calc.a'), edge('b.value', 'calc.b'), edge('calc.value', 'result.value')],
};

/** An agent of its own, asked a question: an agent offered as a tool. */
const ADVISOR: LibraryGraph = {
  description: 'Asks an advisor.',
  nodes: [input('question'), agent('advisor', 'Advise: {{ question }}'), output('advice')],
  edges: [edge('question.value', 'advisor.question'), edge('advisor.text', 'advice.value')],
};

/** q → a (offered the library graph `tool` as a tool) → answer */
function offered(tool: string, graphs: Record<string, LibraryGraph>, entry = {}): GraphDocument {
  return {
    ...graph(
      [input('q'), agent('a', '{{ q }}', { tools: [{ graph: tool, ...entry }] }), output('answer')],
      [edge('q.value', 'a.q'), edge('a.text', 'answer.value')],
    ),
    graphs,
  };
}

const call = (name: string, args: unknown): StubReply => ({
  text: '',
  toolCalls: [{ name, arguments: args as Record<string, unknown> }],
});

describe('a library graph offered as a tool', () => {
  it('is offered with its inputs as the schema, runs under the agent, and its result is read back', async () => {
    const s = await stubAnswering((body, i) =>
      i === 0 ? call('calculator', { a: 6, b: 7 }) : { text: `It is ${lastToolResult(body)}` },
    );
    const { outputs, events, status } = await run(
      offered('calculator', { calculator: CALCULATOR }),
      {
        providerFor: providerFor(s),
        inputs: { q: 'what is 6 times 7?' },
      },
    );
    expect(status).toBe('succeeded');
    expect(s.count()).toBe(2);
    expect(s.requests[0].tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'calculator',
          description: 'Computes the sum, difference, product and quotient of two numbers.',
          parameters: {
            type: 'object',
            properties: {
              a: { type: 'number', description: 'the first number' },
              b: { type: 'number', description: 'the second number' },
            },
            required: ['a', 'b'],
            additionalProperties: false,
          },
        },
      },
    ]);
    const result = JSON.parse(lastToolResult(s.requests[1]));
    expect(result.product).toBe(42);
    expect(result.sum).toBe(13);
    expect(outputs.answer).toBe(`It is ${lastToolResult(s.requests[1])}`);
    expect(eventsOf(events, 'tool.call')).toMatchObject([
      { instance: 'a', source: 'graph:calculator', tool: 'calculator' },
    ]);
    // The graph ran as a child of the agent's instance: its nodes' events are under it.
    expect(eventsOf(events, 'subgraph.started')).toMatchObject([
      { node: 'a', instance: 'a/tool1', prefix: 'a/tool1/' },
    ]);
    const calc = eventsOf(events, 'node.finished').filter((e) => e.instance.startsWith('a/tool1/'));
    expect(calc.map((e) => e.instance).sort()).toEqual([
      'a/tool1/a',
      'a/tool1/b',
      'a/tool1/calc',
      'a/tool1/result',
    ]);
  });

  it('takes its name and description from the entry when it gives them, and refuses bad arguments', async () => {
    const s = await stubAnswering((body, i) =>
      i === 0 ? call('calc', { a: 'six', b: 7 }) : { text: lastToolResult(body) },
    );
    const doc = offered(
      'calculator',
      { calculator: CALCULATOR },
      { name: 'calc', description: 'Math.' },
    );
    const { outputs, events } = await run(doc, { providerFor: providerFor(s), inputs: { q: '?' } });
    expect(s.requests[0].tools[0].function).toMatchObject({ name: 'calc', description: 'Math.' });
    // Checked against the schema before the graph runs: the model reads why, nothing ran.
    expect(outputs.answer).toMatch(
      /^the arguments of "calc" do not match its schema: \/a must be number/,
    );
    expect(eventsOf(events, 'subgraph.started')).toEqual([]);
  });

  it('records the child graph’s model calls, and a replay serves them: 0 model requests', async () => {
    const answer = (body: StubRequestBody, i: number): StubReply => {
      const user = body.messages.at(-1)?.content ?? '';
      if (String(user).startsWith('Advise:')) return { text: 'Take the train.' };
      return i === 0
        ? call('advisor', { question: 'car or train?' })
        : { text: `Advice: ${lastToolResult(body)}` };
    };
    const s = await stubAnswering(answer);
    const recording = new Cassette();
    const doc = offered('advisor', { advisor: ADVISOR });
    const first = await run(doc, {
      providerFor: providerFor(s),
      cassette: { cassette: recording, mode: 'record' },
      inputs: { q: 'how should I travel?' },
    });
    expect(first.status).toBe('succeeded');
    expect(first.outputs.answer).toBe('Advice: Take the train.');
    expect(s.count()).toBe(3);
    const cassette = Cassette.fromJSON(JSON.parse(JSON.stringify(recording.toJSON())));
    const replay = await run(doc, {
      providerFor: providerFor(s),
      cassette: { cassette, mode: 'replay' },
      inputs: { q: 'how should I travel?' },
    });
    expect(replay.status).toBe('succeeded');
    expect(replay.outputs.answer).toBe('Advice: Take the train.');
    expect(s.count()).toBe(3);
    const inner = eventsOf(replay.events, 'model.response').filter((e) =>
      e.instance.startsWith('a/tool1/'),
    );
    expect(inner).toMatchObject([
      { instance: 'a/tool1/advisor', source: 'cassette', text: 'Take the train.' },
    ]);
    expect(eventsOf(replay.events, 'tool.result')).toMatchObject([
      { source: 'graph:advisor', result: 'Take the train.', from: 'cassette' },
    ]);
  });

  it('is refused when the library lacks it, or when it is offered inside itself', async () => {
    const missing = await problems(offered('nowhere', { calculator: CALCULATOR }));
    expect(missing).toEqual([
      {
        path: 'nodes[1].data.tools',
        node: 'a',
        message: `offers graph "nowhere" as a tool, which the document's library does not hold (graphs: calculator)`,
      },
    ]);
    const selfish: LibraryGraph = {
      nodes: [
        input('question'),
        agent('inner', '{{ question }}', { tools: [{ graph: 'loop' }] }),
        output('answer'),
      ],
      edges: [edge('question.value', 'inner.question'), edge('inner.text', 'answer.value')],
    };
    const cycle = await problems(offered('loop', { loop: selfish }));
    expect(cycle).toEqual([
      {
        path: 'graphs.loop.nodes[1].data.tools',
        message:
          'a graph is offered as a tool inside itself: graphs.loop → graphs.loop (a call would run the graph within its own call)',
      },
    ]);
  });
});
