/**
 * Agents that call tools, end to end in-process: a local OpenAI-compatible stub that answers
 * with tool calls, an in-process tool source in place of an MCP server, the engine's tool
 * gateway between them (events, budgets, records, cassettes, simulated tools).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { estimateRun } from '../../app/costs/estimate.ts';
import { DEFAULT_PRICES } from '../../app/costs/prices.ts';
import { Cassette } from '../../app/providers/cassette.ts';
import { OpenAICompatibleProvider } from '../../app/providers/openai.ts';
import { callRecorder, toolRecorder } from '../../app/runs/record.ts';
import { agentContext } from '../../app/runtime/agent-context.ts';
import type { RunOptions } from '../../app/runtime/engine.ts';
import { continuedLog } from '../../app/runtime/failure-trail.ts';
import { newRun, store, withTempStores } from '../../app/store/store.test-helper.ts';
import {
  agent,
  compile,
  edge,
  eventsOf,
  graph,
  input,
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
import { ADD, fakeToolSources, lastToolResult } from '../../tests/support/tool-source.ts';

withTempStores();

let stub: StubOpenAI | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

/** A stub answering request i with replies[i] (the last one again after that). */
async function stubAnswering(
  ...replies: Array<StubReply | ((body: StubRequestBody) => StubReply)>
): Promise<StubOpenAI> {
  stub = await startStubOpenAI({
    respond: (body, { index }) => {
      const reply = replies[Math.min(index, replies.length - 1)]!;
      return typeof reply === 'function' ? reply(body) : reply;
    },
  });
  return stub;
}

function providerFor(s: StubOpenAI): RunOptions['providerFor'] {
  return () => new OpenAICompatibleProvider({ id: 'test', baseUrl: s.url });
}

/** The text of the last tool message of a request body: what the model read back. */

/** q → a (offered the `calc` profile's tools) → answer */
const calculator = (data: Record<string, unknown> = {}, settings = {}) =>
  graph(
    [
      input('q'),
      agent('a', 'Use add to answer: {{ q }}', { tools: [{ mcp: 'calc' }], ...data }),
      output('answer'),
    ],
    [edge('q.value', 'a.q'), edge('a.text', 'answer.value')],
    { settings },
  );

const add = (a: unknown, b: unknown, id?: string) => ({
  ...(id ? { id } : {}),
  name: 'add',
  arguments: { a, b },
});
/** The model's final answer: it says what the tool gave back. */
const answerWithResult = (body: StubRequestBody): StubReply => ({
  text: `The sum is ${lastToolResult(body)}`,
});

describe('an agent offered tools', () => {
  it('calls add(2, 3), reads 5 back and answers with it: two model requests, the call in events', async () => {
    const s = await stubAnswering({ text: '', toolCalls: [add(2, 3)] }, answerWithResult);
    const tools = fakeToolSources();
    const { outputs, events, status } = await run(calculator(), {
      providerFor: providerFor(s),
      tools,
      inputs: { q: 'what is 2 + 3?' },
    });
    expect(status).toBe('succeeded');
    expect(outputs.answer).toBe('The sum is 5');
    expect(s.count()).toBe(2);
    expect(tools.calls).toEqual([{ tool: 'add', args: { a: 2, b: 3 } }]);
    // The model was offered the tool, and its second request carries the call and the result.
    expect(s.requests[0].tools).toEqual([
      {
        type: 'function',
        function: { name: 'add', description: 'Adds two numbers.', parameters: expect.any(Object) },
      },
    ]);
    expect(s.requests[1].messages.slice(-2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_0_0',
            type: 'function',
            function: { name: 'add', arguments: '{"a":2,"b":3}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_0_0', content: '5' },
    ]);
    expect(eventsOf(events, 'tool.call')).toMatchObject([
      { node: 'a', instance: 'a', source: 'mcp:calc', tool: 'add', arguments: '{"a":2,"b":3}' },
    ]);
    expect(eventsOf(events, 'tool.result')).toMatchObject([
      { tool: 'add', result: '5', isError: false, from: 'live', simulated: false },
    ]);
    expect(tools.opened).toEqual(['calc']);
    expect(tools.closed).toBe(1);
    // The context view: the first answer asked for the tool; the second call was sent its result.
    const firstCall = agentContext(events, 'a', 'a:1').call;
    expect(firstCall?.response?.toolCalls).toEqual([
      { id: 'call_0_0', name: 'add', arguments: '{"a":2,"b":3}' },
    ]);
    expect(agentContext(events, 'a').call?.messages.slice(-2)).toMatchObject([
      { role: 'assistant', toolCalls: [{ name: 'add' }] },
      { role: 'tool', toolCallId: 'call_0_0', text: '5' },
    ]);
  });

  it('reads streamed tool calls too', async () => {
    const s = await stubAnswering({ text: '', toolCalls: [add(20, 22)] }, answerWithResult);
    const { outputs } = await run(calculator({ stream: true }), {
      providerFor: providerFor(s),
      tools: fakeToolSources(),
      inputs: { q: '20 + 22' },
    });
    expect(outputs.answer).toBe('The sum is 42');
  });

  it('gets a bad call back as an error result, and the model corrects itself', async () => {
    const s = await stubAnswering(
      { text: '', toolCalls: [{ name: 'add', arguments: '{"a": "two", "b": 3}' }] },
      { text: '', toolCalls: [add(2, 3)] },
      answerWithResult,
    );
    const tools = fakeToolSources();
    const { outputs, events } = await run(calculator(), {
      providerFor: providerFor(s),
      tools,
      inputs: { q: '2 + 3' },
    });
    expect(lastToolResult(s.requests[1])).toBe(
      'the arguments of "add" do not match its schema: /a must be number',
    );
    expect(tools.calls).toHaveLength(1);
    expect(outputs.answer).toBe('The sum is 5');
    expect(eventsOf(events, 'tool.result').map((e) => e.isError)).toEqual([true, false]);
  });

  it('answers unparsable arguments and unknown tools with what is wrong', async () => {
    const s = await stubAnswering(
      {
        text: '',
        toolCalls: [
          { name: 'add', arguments: '{"a": 2,' },
          { name: 'multiply', arguments: {} },
        ],
      },
      (body) => ({
        text: body.messages
          .filter((m: { role: string }) => m.role === 'tool')
          .map((m: { content: string }) => m.content)
          .join(' | '),
      }),
    );
    const { outputs, status } = await run(calculator(), {
      providerFor: providerFor(s),
      tools: fakeToolSources(),
      inputs: { q: '?' },
    });
    expect(status).toBe('succeeded');
    expect(outputs.answer).toMatch(
      /^the arguments of "add" are not JSON: .+ \| unknown tool "multiply"; the tools offered are: add$/,
    );
  });

  it('runs the calls of one turn concurrently', async () => {
    const s = await stubAnswering(
      { text: '', toolCalls: [add(1, 1), add(2, 2), add(3, 3)] },
      (body) => ({
        text: body.messages
          .filter((m: { role: string }) => m.role === 'tool')
          .map((m: { content: string }) => m.content)
          .join(','),
      }),
    );
    const tools = fakeToolSources({ delayMs: 60 });
    const { outputs } = await run(calculator(), {
      providerFor: providerFor(s),
      tools,
      inputs: { q: '?' },
    });
    // Results come back in the order of the calls, whichever finished first.
    expect(outputs.answer).toBe('2,4,6');
    expect(tools.peak()).toBe(3);
  });

  it('fails the node when the model still asks for tools after maxToolRounds', async () => {
    const s = await stubAnswering({ text: '', toolCalls: [add(1, 2)] });
    const { status, error } = await run(calculator({ maxToolRounds: 2 }), {
      providerFor: providerFor(s),
      tools: fakeToolSources(),
      inputs: { q: '?' },
    });
    expect(status).toBe('failed');
    expect(error).toBe(
      'node "a": the model still asked for tools after 2 tool rounds (maxToolRounds)',
    );
    expect(s.count()).toBe(3);
  });

  it.each([
    [{}, { budget: { maxToolCalls: 2 } }, 'the run may make at most 2 tool calls'],
    [{ maxToolCalls: 1 }, {}, 'the node may make at most 1 tool calls (its maxToolCalls)'],
  ])('counts tool calls against maxToolCalls (%o, %o)', async (data, settings, message) => {
    const s = await stubAnswering({ text: '', toolCalls: [add(1, 2), add(3, 4), add(5, 6)] });
    const tools = fakeToolSources();
    const { status, error } = await run(calculator(data, settings), {
      providerFor: providerFor(s),
      tools,
      inputs: { q: '?' },
    });
    expect(status).toBe('failed');
    expect(error).toContain(`budget exceeded: ${message}`);
    expect(tools.calls.length).toBeLessThan(3);
  });

  it('times a hung tool out per the document, failing the node', async () => {
    const s = await stubAnswering({ text: '', toolCalls: [add(1, 2)] }, answerWithResult);
    const { status, error, events } = await run(calculator({}, { limits: { toolMs: 50 } }), {
      providerFor: providerFor(s),
      tools: fakeToolSources({ delayMs: 5_000 }),
      inputs: { q: '?' },
    });
    expect(status).toBe('failed');
    expect(error).toBe('node "a": mcp:calc did not answer the call to "add" within 50 ms');
    expect(eventsOf(events, 'tool.error')).toMatchObject([{ tool: 'add', source: 'mcp:calc' }]);
  });

  it("refuses a result larger than the run's answer limit", async () => {
    const s = await stubAnswering({ text: '', toolCalls: [add(1, 2)] }, answerWithResult);
    const big = { ...ADD, run: () => 'x'.repeat(5_000) };
    const { status, error } = await run(calculator({}, { limits: { answerBytes: 4_096 } }), {
      providerFor: providerFor(s),
      tools: fakeToolSources({ tools: [big] }),
      inputs: { q: '?' },
    });
    expect(status).toBe('failed');
    expect(error).toBe(
      'node "a": the result of "add" is 5,000 bytes, more than the run\'s answer limit of 4,096 (settings.limits.answerBytes)',
    );
  });

  it('refuses in one line, naming the profile, when the run has no tool sources', async () => {
    const s = await stubAnswering({ text: 'never asked' });
    const { status, error } = await run(calculator(), {
      providerFor: providerFor(s),
      inputs: { q: '?' },
    });
    expect(status).toBe('failed');
    expect(error).toBe(
      'node "a": MCP profile "calc" cannot be opened: this run was given no tool sources',
    );
    expect(s.count()).toBe(0);
  });

  it('replays a recorded run from its cassette: no source opened, no model request', async () => {
    const s = await stubAnswering({ text: '', toolCalls: [add(2, 3)] }, answerWithResult);
    const recording = new Cassette();
    const first = await run(calculator(), {
      providerFor: providerFor(s),
      tools: fakeToolSources(),
      cassette: { cassette: recording, mode: 'record' },
      inputs: { q: '2 + 3' },
    });
    expect(first.outputs.answer).toBe('The sum is 5');
    // Through the file format, as a cassette on disk would be read.
    const cassette = Cassette.fromJSON(JSON.parse(JSON.stringify(recording.toJSON())));
    const tools = fakeToolSources();
    const replay = await run(calculator(), {
      providerFor: providerFor(s),
      tools,
      cassette: { cassette, mode: 'replay' },
      inputs: { q: '2 + 3' },
    });
    expect(replay.status).toBe('succeeded');
    expect(replay.outputs.answer).toBe('The sum is 5');
    expect(s.count()).toBe(2);
    expect(tools.opened).toEqual([]);
    expect(eventsOf(replay.events, 'tool.result')).toMatchObject([
      { result: '5', from: 'cassette' },
    ]);
  });

  it('resumes after a failure from the record, repeating no tool call that had returned', async () => {
    const s = await stubAnswering(
      { text: '', toolCalls: [add(2, 3)] },
      { status: 400, body: { error: { message: 'the model fell over', type: 'x' } } },
      answerWithResult,
    );
    const db = store();
    const { id } = newRun(db);
    const tools = fakeToolSources();
    const failed = await run(calculator(), {
      providerFor: providerFor(s),
      tools,
      inputs: { q: '2 + 3' },
      onModelCall: callRecorder(db, id),
      ...toolRecorder(db, id),
    });
    expect(failed.status).toBe('failed');
    expect(tools.calls).toHaveLength(1);
    const resumed = await run(calculator(), {
      providerFor: providerFor(s),
      tools,
      inputs: { q: '2 + 3' },
      cassette: { cassette: Cassette.fromJSON(db.callRecord(id)), mode: 'replay-then-live' },
      continueFrom: continuedLog(failed.events).kept,
    });
    expect(resumed.status).toBe('succeeded');
    expect(resumed.outputs.answer).toBe('The sum is 5');
    // The tool ran once in all; the model was asked again only for what had failed.
    expect(tools.calls).toHaveLength(1);
    expect(s.count()).toBe(3);
  });
});

describe('simulated tools', () => {
  it('runs with no source reachable: the agent is offered none and the run says so', async () => {
    const { status, outputs, events, simulated } = await run(calculator(), {
      simulate: true,
      tools: fakeToolSources({ unreachable: true }),
      inputs: { q: '2 + 3' },
    });
    expect(status).toBe('succeeded');
    expect(simulated).toBe(true);
    expect(outputs.answer).toMatch(/^\[simulated\] /);
    expect(eventsOf(events, 'tool.error')).toMatchObject([
      {
        source: 'mcp:calc',
        error: expect.stringMatching(
          /^the simulated agent is offered no tools of mcp:calc: cannot open MCP profile "calc": connection refused/,
        ),
      },
    ]);
    expect(eventsOf(events, 'tool.call')).toEqual([]);
  });

  it('makes a schema-valid call the source never sees, and answers with the labelled result', async () => {
    const tools = fakeToolSources();
    const { status, outputs, events } = await run(calculator(), {
      simulate: true,
      tools,
      inputs: { q: '2 + 3' },
    });
    expect(status).toBe('succeeded');
    const [call] = eventsOf(events, 'tool.call');
    const args = JSON.parse(call!.arguments);
    expect(typeof args.a).toBe('number');
    expect(typeof args.b).toBe('number');
    expect(eventsOf(events, 'tool.result')).toMatchObject([
      { isError: false, from: 'simulated', simulated: true, result: /^\[simulated\] / },
    ]);
    expect(tools.calls).toEqual([]);
    expect(outputs.answer).toMatch(/^\[simulated\] According to the tools: add gave /);
  });
});

describe('the estimate', () => {
  it('counts one tool round as likely and the others as at most: in the worst case only', async () => {
    const plan = (await compile(calculator({ maxToolRounds: 3 }))).plan;
    const worst = estimateRun(plan, DEFAULT_PRICES);
    expect(worst.byNode.map((r) => [r.node, r.phase, r.calls])).toEqual([
      ['a', undefined, 1],
      ['a', 'tool round', 1],
      ['a', 'up to 3 tool rounds', 2],
    ]);
    expect(worst.calls).toBe(4);
    // A run whose answers are all taken the first time calls a tool once and reads its result.
    expect(worst.firstAttempts.calls).toBe(2);
  });
});

describe('the tools field', () => {
  it.each(['command', 'url'])('refuses a tools entry carrying a "%s"', async (key) => {
    const doc = calculator({ tools: [{ mcp: 'calc', [key]: 'npx evil-server' }] });
    const [problem] = await problems(doc);
    expect(problem?.message).toContain(
      'a tools entry names an MCP server profile of your settings ({ "mcp": "NAME" }), never a command line or a URL',
    );
    expect(problem?.message).toContain('society mcp --add');
  });
});
