/**
 * Tool policies at the engine's tool gateway: a tool whose policy is `ask` holds the run before
 * its call until a person continues (perhaps with edited arguments) or denies it; `deny` is never
 * offered; a destructive tool asks by default; a run no one can answer fails before its agent
 * asks anything unless the tool is approved; and the terminal debugger answers at the call.
 */
import { PassThrough, Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { attachStepper, describeBreakpoint, parseBreakpoint } from '../../app/cli/stepper.ts';
import { OpenAICompatibleProvider } from '../../app/providers/openai.ts';
import type { ToolPolicy } from '../../app/providers/tools.ts';
import { editsInLog } from '../../app/runtime/edits.ts';
import type { Run, RunOptions } from '../../app/runtime/engine.ts';
import type { Checkpoint } from '../../app/runtime/events.ts';
import { eventsOf, run, start } from '../../tests/support/graphs.ts';
import { type StubOpenAI, startStubOpenAI } from '../../tests/support/stub-openai.ts';
import {
  ADD,
  calculatorSociety,
  type FakeTool,
  fakeToolSources,
  lastToolResult,
  startAdderModel,
} from '../../tests/support/tool-source.ts';

let stub: StubOpenAI | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

/** A model that calls add(2, 3), then answers with what it read back. */
async function adder(): Promise<StubOpenAI> {
  stub = await startAdderModel();
  return stub;
}

/** The fake `calc` server, with the user's policy for its tools. */
function sources(policy?: ToolPolicy, tools: FakeTool[] = [ADD]) {
  return Object.assign(fakeToolSources({ tools }), {
    policy: () => policy,
  });
}

function options(s: StubOpenAI, extra: Partial<RunOptions>): Partial<RunOptions> {
  return {
    providerFor: () => new OpenAICompatibleProvider({ id: 'test', baseUrl: s.url }),
    inputs: { q: 'what is 2 + 3?' },
    ...extra,
  };
}

/** Resolves with where the run is held when it pauses for a reason. */
function pausedFor(r: Run, reason: string): Promise<Checkpoint> {
  return new Promise((resolve) => {
    const off = r.subscribe((e) => {
      if (e.type === 'paused' && e.reason === reason) {
        off();
        resolve(e.at);
      }
    });
  });
}

describe('a tool whose policy is ask', () => {
  it('holds the run before the call; the edited arguments are what the tool and the model get', async () => {
    const s = await adder();
    const tools = sources('ask');
    const r = await start(
      calculatorSociety(),
      options(s, { tools, toolApproval: { interactive: true } }),
    );
    const at = await pausedFor(r, 'ask');
    expect(at).toMatchObject({
      kind: 'tool',
      instance: 'a',
      source: 'mcp:calc',
      tool: 'add',
      arguments: '{"a":2,"b":3}',
      ask: true,
    });
    expect(tools.calls).toEqual([]);
    const callId = (at as { callId: string }).callId;
    // Checked against the tool's schema before anything changes.
    expect(() => r.editToolCall(callId, '{"a":"forty"}')).toThrow(
      /the arguments of "add" do not match its schema: .*\/a must be number/,
    );
    expect(() => r.editToolCall(callId, '{nope')).toThrow(/are not JSON/);
    r.editToolCall(callId, '{"a":40,"b":2}');
    r.resume();
    const result = await r.result;
    expect(result.status).toBe('succeeded');
    expect(result.outputs.answer).toBe('The sum is 42');
    expect(tools.calls).toEqual([{ tool: 'add', args: { a: 40, b: 2 } }]);
    expect(lastToolResult(s.requests[1])).toBe('42');
    expect(eventsOf(r.events, 'tool.call')).toMatchObject([
      { tool: 'add', arguments: '{"a":40,"b":2}', edited: true },
    ]);
    // A replay or fork of the run makes the same edit, without asking again.
    expect(editsInLog(r.events).toolEdits).toEqual({
      'a:tool1': { arguments: '{"a":40,"b":2}' },
    });
    const again = await adder();
    const replayed = await sources('ask');
    const second = await run(
      calculatorSociety(),
      options(again, {
        tools: replayed,
        toolApproval: { interactive: true },
        toolEdits: editsInLog(r.events).toolEdits,
      }),
    );
    expect(second.outputs.answer).toBe('The sum is 42');
    expect(replayed.calls).toEqual([{ tool: 'add', args: { a: 40, b: 2 } }]);
  });

  it('denied: the tool never runs and the model reads that it was denied', async () => {
    const s = await adder();
    const tools = sources('ask');
    const r = await start(
      calculatorSociety(),
      options(s, { tools, toolApproval: { interactive: true } }),
    );
    const at = (await pausedFor(r, 'ask')) as { callId: string };
    r.denyToolCall(at.callId);
    r.resume();
    const result = await r.result;
    expect(result.status).toBe('succeeded');
    expect(tools.calls).toEqual([]);
    expect(lastToolResult(s.requests[1])).toBe(
      'the call to "add" was denied by the person running the society',
    );
    expect(eventsOf(r.events, 'tool.result')).toMatchObject([{ isError: true, denied: true }]);
    expect(editsInLog(r.events).toolEdits).toEqual({ 'a:tool1': { denied: true } });
  });

  it('fails a run no one can answer before its agent asks anything, naming the tool; --approve-tools lets it run', async () => {
    const s = await adder();
    const refused = await run(calculatorSociety(), options(s, { tools: sources('ask') }));
    expect(refused.status).toBe('failed');
    expect(refused.error).toBe(
      'node "a": the tool calc/add asks before it runs and no one is here to answer: run with --step, or approve it with --approve-tools calc/add',
    );
    expect(s.count()).toBe(0);
    for (const approved of [['calc/add'], ['calc/*'], ['all']]) {
      await stub?.close();
      const fresh = await adder();
      const tools = sources('ask');
      const ok = await run(
        calculatorSociety(),
        options(fresh, { tools, toolApproval: { approved } }),
      );
      expect(ok.outputs.answer).toBe('The sum is 5');
      expect(tools.calls).toHaveLength(1);
    }
  });

  it('asks nothing of a simulated run: its tools are not called', async () => {
    const r = await run(calculatorSociety(), {
      simulate: true,
      tools: sources('ask'),
      inputs: { q: '2 + 3?' },
    });
    expect(r.status).toBe('succeeded');
    expect(eventsOf(r.events, 'paused')).toEqual([]);
  });
});

describe('tool policies', () => {
  const destructive: FakeTool = {
    ...ADD,
    definition: { ...ADD.definition, hints: { destructive: true } },
  };

  it('asks about a tool that says it is destructive, unless the user allows it', async () => {
    const s = await adder();
    const asked = await run(
      calculatorSociety(),
      options(s, { tools: sources(undefined, [destructive]) }),
    );
    expect(asked.error).toMatch(/^node "a": the tool calc\/add asks before it runs/);
    expect(s.count()).toBe(0);
    const allowed = sources('allow', [destructive]);
    const ok = await run(calculatorSociety(), options(s, { tools: allowed }));
    expect(ok.outputs.answer).toBe('The sum is 5');
  });

  it('never offers a denied tool', async () => {
    stub = await startStubOpenAI({ respond: () => ({ text: 'I cannot add.' }) });
    const tools = sources('deny');
    const r = await run(calculatorSociety(), options(stub, { tools }));
    expect(r.outputs.answer).toBe('I cannot add.');
    expect(stub.requests[0].tools).toBeUndefined();
  });

  it('b tool:NAME holds before an allowed tool runs; n tool steps to the next call', async () => {
    const s = await adder();
    const tools = sources();
    const r = await start(
      calculatorSociety(),
      options(s, { tools, breakpoints: [{ tool: 'add' }] }),
    );
    const at = await pausedFor(r, 'breakpoint');
    expect(at).toMatchObject({ kind: 'tool', tool: 'add' });
    expect(at).not.toHaveProperty('ask');
    expect(tools.calls).toEqual([]);
    r.resume();
    expect((await r.result).outputs.answer).toBe('The sum is 5');
    expect(describeBreakpoint(parseBreakpoint('tool:add'))).toBe('tool:add');
  });
});

describe('the terminal debugger at a tool that asks', () => {
  it('shows the call, e edits its arguments as JSON, c runs it', async () => {
    const s = await adder();
    const tools = sources('ask');
    const r = await start(
      calculatorSociety(),
      options(s, { tools, toolApproval: { interactive: true } }),
    );
    const out = new PassThrough();
    let said = '';
    out.on('data', (d) => {
      said += d;
    });
    attachStepper(r, out, Readable.from(['e {"a":"x"}\ne {"a":1,"b":1}\nc\n']));
    const result = await r.result;
    expect(result.outputs.answer).toBe('The sum is 2');
    expect(said).toContain(
      '⏸ approve: before a calls mcp:calc/add {"a":2,"b":3} (the tool asks first: c runs it, e JSON edits its arguments, d denies it)',
    );
    expect(said).toMatch(
      /the arguments of "add" do not match its schema: \/b must have required property 'b'|required property 'b'/,
    );
    expect(said).toContain('add will be called with {"a":1,"b":1}');
    expect(tools.calls).toEqual([{ tool: 'add', args: { a: 1, b: 1 } }]);
  });

  it('d denies the held call', async () => {
    const s = await adder();
    const tools = sources('ask');
    const r = await start(
      calculatorSociety(),
      options(s, { tools, toolApproval: { interactive: true } }),
    );
    const out = new PassThrough();
    let said = '';
    out.on('data', (d) => {
      said += d;
    });
    attachStepper(r, out, Readable.from(['d\n']));
    await r.result;
    expect(said).toContain('add will not run; a reads that it was denied');
    expect(tools.calls).toEqual([]);
  });
});
