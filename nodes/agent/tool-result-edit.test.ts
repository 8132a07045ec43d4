/**
 * The debugger's hold after a tool returned, before the model reads its result: a
 * `tool-result:NAME` breakpoint (or stepping by tool from before the call) holds the run there;
 * a person replaces the result; the model reads theirs, the `tool.result` event keeps the tool's
 * own and who changed it, and a replay of the run gives the edited result again without
 * calling the tool or holding.
 */
import { PassThrough, Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { attachStepper, describeBreakpoint, parseBreakpoint } from '../../app/cli/stepper.ts';
import { Cassette } from '../../app/providers/cassette.ts';
import { OpenAICompatibleProvider } from '../../app/providers/openai.ts';
import { agentContext } from '../../app/runtime/agent-context.ts';
import { editsInLog } from '../../app/runtime/edits.ts';
import type { Run, RunOptions } from '../../app/runtime/engine.ts';
import type { Checkpoint } from '../../app/runtime/events.ts';
import { eventsOf, run, start } from '../../tests/support/graphs.ts';
import type { StubOpenAI } from '../../tests/support/stub-openai.ts';
import {
  calculatorSociety,
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

const ALICE = { person: 'alice', via: 'studio' } as const;

describe('the hold after a tool returned', () => {
  it('b tool-result:add holds with the result; the edit is what the model reads, the event keeps the original', async () => {
    const s = await adder();
    const tools = fakeToolSources();
    const recording = new Cassette();
    const r = await start(
      calculatorSociety(),
      options(s, {
        tools,
        breakpoints: [{ toolResult: 'add' }],
        cassette: { cassette: recording, mode: 'record' },
      }),
    );
    const at = await pausedFor(r, 'breakpoint');
    expect(at).toMatchObject({
      kind: 'tool-result',
      instance: 'a',
      source: 'mcp:calc',
      tool: 'add',
      arguments: '{"a":2,"b":3}',
      result: '5',
      isError: false,
    });
    // The tool ran; the model has not read its result yet.
    expect(tools.calls).toEqual([{ tool: 'add', args: { a: 2, b: 3 } }]);
    expect(s.count()).toBe(1);
    expect(eventsOf(r.events, 'tool.result')).toEqual([]);
    const callId = (at as { callId: string }).callId;
    expect(() => r.editToolResult('a:tool9', '7', ALICE)).toThrow(
      'no result of tool call a:tool9 is waiting to go to the model',
    );
    r.editToolResult(callId, '41', ALICE);
    r.resume();
    const result = await r.result;
    expect(result.status).toBe('succeeded');
    expect(result.outputs.answer).toBe('The sum is 41');
    expect(lastToolResult(s.requests[1])).toBe('41');
    expect(eventsOf(r.events, 'tool.result')).toMatchObject([
      { result: '41', original: '5', edited: true, editedBy: ALICE, from: 'live' },
    ]);
    // The context view shows the tool message as edited, with what the tool gave.
    const sent = agentContext(r.events, 'a').call?.messages.find((m) => m.role === 'tool');
    expect(sent).toMatchObject({ text: '41', edited: { original: '5', by: ALICE } });

    // A replay of the recorded run reads the edited result again: no tool call, no hold.
    expect(editsInLog(r.events).toolEdits).toEqual({
      [callId]: { result: { text: '41', by: ALICE } },
    });
    const replayTools = fakeToolSources();
    const replayed = await run(
      calculatorSociety(),
      options(s, {
        tools: replayTools,
        cassette: { cassette: Cassette.fromJSON(recording.toJSON()), mode: 'replay' },
        breakpoints: [{ toolResult: 'add' }],
        toolEdits: editsInLog(r.events).toolEdits,
      }),
    );
    expect(replayed.outputs.answer).toBe('The sum is 41');
    expect(replayTools.calls).toEqual([]);
    expect(s.count()).toBe(2);
    expect(eventsOf(replayed.events, 'paused')).toEqual([]);
    expect(eventsOf(replayed.events, 'tool.result')).toMatchObject([
      { result: '41', original: '5', edited: true, editedBy: ALICE, from: 'cassette' },
    ]);
  });

  it('continued unedited, the model reads the tool’s own result and the event says nothing was edited', async () => {
    const s = await adder();
    const r = await start(
      calculatorSociety(),
      options(s, { tools: fakeToolSources(), breakpoints: [{ toolResult: '*' }] }),
    );
    await pausedFor(r, 'breakpoint');
    r.resume();
    expect((await r.result).outputs.answer).toBe('The sum is 5');
    const [event] = eventsOf(r.events, 'tool.result');
    expect(event).not.toHaveProperty('edited');
    expect(event).not.toHaveProperty('original');
  });

  it('stepping by tool from before the call stops again once it returned', async () => {
    const s = await adder();
    const tools = fakeToolSources();
    const r = await start(
      calculatorSociety(),
      options(s, { tools, breakpoints: [{ tool: 'add' }] }),
    );
    expect(await pausedFor(r, 'breakpoint')).toMatchObject({ kind: 'tool', tool: 'add' });
    const after = pausedFor(r, 'step');
    r.step('tool');
    expect(await after).toMatchObject({ kind: 'tool-result', tool: 'add', result: '5' });
    expect(tools.calls).toHaveLength(1);
    r.resume();
    expect((await r.result).outputs.answer).toBe('The sum is 5');
  });
});

describe('the terminal debugger at a tool result', () => {
  it('shows the result; e replaces what the model reads; b tool-result:NAME reads back', async () => {
    const s = await adder();
    const r = await start(
      calculatorSociety(),
      options(s, { tools: fakeToolSources(), breakpoints: [parseBreakpoint('tool-result:add')] }),
    );
    const out = new PassThrough();
    let said = '';
    out.on('data', (d) => {
      said += d;
    });
    attachStepper(r, out, Readable.from(['d\ne twelve\nc\n']));
    const result = await r.result;
    expect(result.outputs.answer).toBe('The sum is twelve');
    expect(said).toContain(
      `⏸ breakpoint: after a's call to mcp:calc/add {"a":2,"b":3} returned: 5 (c sends it to the model, e TEXT sends this text instead)`,
    );
    expect(said).toContain('the tool already ran: e TEXT gives the model another result');
    expect(said).toContain('a will read from add: twelve');
    expect(eventsOf(r.events, 'tool.result')[0]).toMatchObject({
      original: '5',
      editedBy: { via: 'terminal' },
    });
    expect(describeBreakpoint(parseBreakpoint('tool-result:*'))).toBe('tool-result:*');
  });
});
