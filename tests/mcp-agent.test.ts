/**
 * An agent that calls a real MCP server's tool (the reference `@modelcontextprotocol/server-
 * everything`, installed from npm, not written here), over stdio and over Streamable HTTP, through
 * the profiles a user keeps: the model (a local OpenAI-compatible stub that asks for a tool call,
 * then answers with what came back) is sent exactly two requests, the server's answer reaches the
 * second one, and the agent answers with it. A replay of the run's cassette then makes no request
 * to the model and starts no server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cassette } from '../app/providers/cassette.ts';
import { OpenAICompatibleProvider } from '../app/providers/openai.ts';
import { Redactor } from '../app/providers/secrets.ts';
import type { ToolSources } from '../app/providers/tools.ts';
import type { McpProfile } from '../app/tools/profiles.ts';
import { mcpToolSources } from '../app/tools/sources.ts';
import { agent, edge, eventsOf, graph, input, output, run } from './support/graphs.ts';
import { everythingStdio, startEverythingHttp } from './support/mcp-everything.ts';
import { type StubOpenAI, startStubOpenAI } from './support/stub-openai.ts';
import { lastToolResult } from './support/tool-source.ts';

let http: Awaited<ReturnType<typeof startEverythingHttp>>;
beforeAll(async () => {
  http = await startEverythingHttp();
});
afterAll(async () => {
  await http?.stop();
});

/** The text of the last tool message the model was sent. */

/** First a call to get-sum(19, 23), then an answer quoting what the tool gave back. */
async function arithmeticModel(): Promise<StubOpenAI> {
  return startStubOpenAI({
    respond: (body, { index }) =>
      index === 0
        ? { text: '', toolCalls: [{ name: 'get-sum', arguments: { a: 19, b: 23 } }] }
        : { text: `The tool said: ${lastToolResult(body)}` },
  });
}

/** q → asker (offered get-sum of the `tools` profile) → answer */
const asker = graph(
  [
    input('q'),
    agent('asker', 'Add the numbers: {{ q }}', { tools: [{ mcp: 'tools', allow: ['get-sum'] }] }),
    output('answer'),
  ],
  [edge('q.value', 'asker.q'), edge('asker.text', 'answer.value')],
);

function profile(transport: 'stdio' | 'http'): McpProfile {
  return transport === 'stdio'
    ? { name: 'tools', transport: 'stdio', ...everythingStdio, env: [] }
    : { name: 'tools', transport: 'http', url: http.url, headers: [] };
}

describe.each(['stdio', 'http'] as const)('an agent with an MCP server over %s', (transport) => {
  it('calls its tool, reads the result and answers with it: two model requests', async () => {
    const model = await arithmeticModel();
    const tools: ToolSources = mcpToolSources({
      profiles: [profile(transport)],
      env: process.env,
      redactor: new Redactor(),
    });
    try {
      const { status, outputs, events } = await run(asker, {
        providerFor: () => new OpenAICompatibleProvider({ id: 'stub', baseUrl: model.url }),
        tools,
        inputs: { q: '19 and 23' },
      });
      expect(status).toBe('succeeded');
      expect(model.count()).toBe(2);
      // Offered only the tool the document allows, with the server's own schema.
      expect(
        model.requests[0].tools.map((t: { function: { name: string } }) => t.function.name),
      ).toEqual(['get-sum']);
      expect(lastToolResult(model.requests[1])).toContain('42');
      expect(String(outputs.answer)).toMatch(/^The tool said: .*42/);
      expect(eventsOf(events, 'tool.result')).toMatchObject([
        { source: 'mcp:tools', tool: 'get-sum', isError: false, from: 'live' },
      ]);
    } finally {
      await model.close();
    }
  });
});

it('replays a recorded MCP run: no request to the model, no server started', async () => {
  const recording = new Cassette();
  const model = await arithmeticModel();
  const recorded = await run(asker, {
    providerFor: () => new OpenAICompatibleProvider({ id: 'stub', baseUrl: model.url }),
    tools: mcpToolSources({
      profiles: [profile('http')],
      env: process.env,
      redactor: new Redactor(),
    }),
    inputs: { q: '19 and 23' },
    cassette: { cassette: recording, mode: 'record' },
  });
  expect(recorded.status).toBe('succeeded');
  // Through the file format, as a cassette on disk is read.
  const text = JSON.stringify(recording.toJSON());
  expect(text).toContain('get-sum');
  const cassette = Cassette.fromJSON(JSON.parse(text));
  const before = model.count();
  let opened = 0;
  const replayed = await run(asker, {
    providerFor: () => new OpenAICompatibleProvider({ id: 'stub', baseUrl: model.url }),
    tools: {
      open: async () => {
        opened++;
        throw new Error('a replay must not open a tool source');
      },
    },
    inputs: { q: '19 and 23' },
    cassette: { cassette, mode: 'replay' },
  });
  await model.close();
  expect(replayed.status).toBe('succeeded');
  expect(replayed.outputs).toEqual(recorded.outputs);
  expect(model.count()).toBe(before);
  expect(opened).toBe(0);
});
