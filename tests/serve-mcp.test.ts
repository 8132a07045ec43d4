/**
 * `society serve`'s MCP server, through the official SDK's client: over Streamable HTTP at
 * `/mcp` (in-process, 127.0.0.1 port 0, the society's model a local stub of the OpenAI protocol)
 * it lists the served society as a tool, calls it with progress, cancels a call, and follows a
 * reloaded document; over stdio (`society serve --stdio`, spawned) it serves a template.
 */

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  LoggingMessageNotificationSchema,
  type Progress,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServeFlags } from '../app/cli/commands/serve/serve.ts';
import { compileFile } from '../app/cli/document-file.ts';
import { servedSociety } from '../app/serve/catalog.ts';
import { RUN_META } from '../app/serve/mcp-tools.ts';
import { openRunStore } from '../app/store/index.ts';
import { agent, edge, graph, input, output } from './support/graphs.ts';
import { hugePng } from './support/huge-png.ts';
import { startServing } from './support/serve.ts';
import { type StubOpenAI, startStubOpenAI } from './support/stub-openai.ts';

const TOKEN = 'test-token-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'society-serve-mcp-'));
const file = join(dir, 'echo.society.json');
const doc = (prompt: string, description: string) =>
  JSON.stringify({
    ...graph(
      [input('question'), agent('a', prompt), output('answer')],
      [edge('question.value', 'a.question'), edge('a.text', 'answer.value')],
      { models: { m: { provider: 'stub', model: 'stub-model' } }, name: 'echo society' },
    ),
    description,
  });
writeFileSync(file, doc('Answer: {{ question }}', 'Repeats the question.'));

/** Gives back the image it is given: an image input wired straight to an output. */
const mirror = join(dir, 'mirror.society.json');
writeFileSync(
  mirror,
  JSON.stringify(
    graph(
      [input('photo', { modality: 'image' }), output('picture')],
      [edge('photo.value', 'picture.value')],
    ),
  ),
);

async function start(stub: StubOpenAI, extra: Partial<ServeFlags> = {}, files = [file]) {
  return startServing(dir, files, TOKEN, stub.url, extra);
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'serve-mcp-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  return client;
}

const until = async (done: () => boolean) => {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 25));
};

describe('society serve /mcp', () => {
  let stub: StubOpenAI;
  let server: Awaited<ReturnType<typeof start>>;
  let client: Client;

  beforeAll(async () => {
    stub = await startStubOpenAI();
    server = await start(stub);
    client = await connect(server.serving.url);
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
    await stub?.close();
  });

  it('lists the society as a tool with its input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools).toEqual([
      expect.objectContaining({
        name: 'echo',
        title: 'echo society',
        description: 'echo society. Repeats the question.',
        inputSchema: {
          type: 'object',
          properties: { question: { type: 'string' } },
          required: ['question'],
        },
        outputSchema: { type: 'object', properties: { answer: { type: 'string' } } },
      }),
    ]);
  });

  it('calls it: the run`s output as text, progress per node, the run in the store', async () => {
    const progress: Progress[] = [];
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params.data);
    });
    const result = await client.callTool(
      { name: 'echo', arguments: { question: 'Two plus two?' } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    );
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: 'echo: Answer: Two plus two?' }]);
    expect(result.structuredContent).toEqual({ answer: 'echo: Answer: Two plus two?' });
    // One notification per node, naming it, counting up to the nodes planned.
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(progress.every((p) => p.total === 3)).toBe(true);
    expect(progress.map((p) => p.message)).toContain('node "a" finished');
    await until(() => logs.length >= 3);
    expect(logs).toContain('node "a" finished (2/3)');

    const runId = (result._meta as Record<string, string>)[RUN_META]!;
    const store = openRunStore(server.db);
    try {
      expect(store.getRun(runId)).toMatchObject({ status: 'succeeded', graphName: 'echo society' });
    } finally {
      store.close();
    }
  });

  it('answers arguments that do not fit as a tool error naming the input', async () => {
    const result = await client.callTool({ name: 'echo', arguments: { question: 5 } });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: 'input "question" must be text' }]);
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(
      /no tool "nope" \(tools: echo\)/,
    );
  });

  it('refuses a request without the token, and a page from another site', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      },
    };
    const post = (headers: Record<string, string>) =>
      fetch(`${server.serving.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify(init),
      });
    const anonymous = await post({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    const crossSite = await post({
      authorization: `Bearer ${TOKEN}`,
      origin: 'https://attacker.example',
    });
    expect(crossSite.status).toBe(403);
  });

  it('tells the client when a reloaded document changes the tools', async () => {
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
    });
    const edited = join(dir, 'edited', 'echo.society.json');
    mkdirSync(join(dir, 'edited'), { recursive: true });
    writeFileSync(edited, doc('Now: {{ question }}', 'Repeats it, edited.'));
    const compiled = await compileFile(edited);
    if (!compiled.ok) throw new Error('the edited document does not compile');
    server.serving.replace(servedSociety('echo', edited, compiled));
    await until(() => changed > 0);
    expect(changed).toBe(1);
    const { tools } = await client.listTools();
    expect(tools[0]!.description).toBe('echo society. Repeats it, edited.');
    const result = await client.callTool({ name: 'echo', arguments: { question: 'hi' } });
    expect(result.content).toEqual([{ type: 'text', text: 'echo: Now: hi' }]);
  });
});

describe('society serve /mcp, a server per test', () => {
  it('cancels the run when the client cancels the call', async () => {
    const stub = await startStubOpenAI({ latencyMs: 5_000 });
    const server = await start(stub);
    const client = await connect(server.serving.url);
    try {
      const abort = new AbortController();
      const call = client.callTool({ name: 'echo', arguments: { question: 'slow?' } }, undefined, {
        signal: abort.signal,
      });
      await until(() => server.serving.runner.load.running === 1 && stub.count() === 1);
      abort.abort();
      await expect(call).rejects.toThrow(/abort/i);
      await until(() => server.serving.runner.load.running === 0);
      // The model call in flight was aborted, and the run is recorded as cancelled.
      await until(() => stub.aborted() === 1);
      expect(stub.aborted()).toBe(1);
      const store = openRunStore(server.db);
      try {
        const runs = store.listRuns();
        expect(runs.map((r) => r.status)).toEqual(['cancelled']);
      } finally {
        store.close();
      }
    } finally {
      await client.close();
      await server.stop();
      await stub.close();
    }
  });

  it('cancels the run of a client that goes away mid-call without cancelling it', async () => {
    const stub = await startStubOpenAI({ latencyMs: 5_000 });
    const server = await start(stub);
    const client = await connect(server.serving.url);
    try {
      const call = client
        .callTool({ name: 'echo', arguments: { question: 'slow?' } })
        .catch(() => undefined);
      await until(() => server.serving.runner.load.running === 1 && stub.count() === 1);
      await client.close(); // no notifications/cancelled: its connections just close
      await call;
      await until(() => stub.aborted() === 1);
      expect(stub.aborted()).toBe(1);
      await until(() => server.serving.runner.load.running === 0);
      const store = openRunStore(server.db);
      try {
        expect(store.listRuns().map((r) => r.status)).toEqual(['cancelled']);
      } finally {
        store.close();
      }
    } finally {
      await server.stop();
      await stub.close();
    }
  });

  it('answers a run that fails as a tool error with one line saying why', async () => {
    const stub = await startStubOpenAI({
      respond: () => ({
        status: 400,
        body: { error: { message: 'model "stub-model" is not here' } },
      }),
    });
    const server = await start(stub);
    const client = await connect(server.serving.url);
    try {
      const result = await client.callTool({ name: 'echo', arguments: { question: 'hi' } });
      expect(result.isError).toBe(true);
      const text = (result.content as Array<{ text: string }>)[0]!.text;
      const runId = (result._meta as Record<string, string>)[RUN_META]!;
      expect(text).toMatch(new RegExp(`^the society's run ${runId} failed: .*not here`));
      expect(text).not.toContain('\n');
      expect(text).not.toMatch(/ at .*\.ts:\d+/);
    } finally {
      await client.close();
      await server.stop();
      await stub.close();
    }
  });

  it('answers a call beyond the queue as a tool error saying the server is busy', async () => {
    const stub = await startStubOpenAI({ latencyMs: 2_000 });
    const server = await start(stub, { concurrency: '1', queueLimit: '0' });
    const client = await connect(server.serving.url);
    try {
      const first = client.callTool({ name: 'echo', arguments: { question: 'one' } });
      await until(() => server.serving.runner.load.running === 1);
      const refused = await client.callTool({ name: 'echo', arguments: { question: 'two' } });
      expect(refused.isError).toBe(true);
      expect((refused.content as Array<{ text: string }>)[0]!.text).toMatch(
        /^the server is busy \(1 running, 0 waiting\); retry later \(in about \d+ s\)$/,
      );
      await server.serving.runner.stop();
      expect((await first).isError).toBe(true);
    } finally {
      await client.close();
      await server.stop();
      await stub.close();
    }
  });
});

describe('society serve /mcp: progress of bigger societies', () => {
  it('gives a total only when the plan fixes it, and never one that grows', async () => {
    const stub = await startStubOpenAI();
    const templates = join(import.meta.dirname, '..', 'templates');
    const server = await start(stub, { simulate: true }, [
      join(templates, 'tie-judge.society.json'),
      join(templates, 'nlsom-vqa-democracy.society.json'),
    ]);
    const client = await connect(server.serving.url);
    const call = async (name: string, args: Record<string, unknown>) => {
      const progress: Progress[] = [];
      const result = await client.callTool({ name, arguments: args }, undefined, {
        onprogress: (p) => progress.push(p),
      });
      expect(result.isError).toBeFalsy();
      return progress;
    };
    try {
      // Two voters replicated beside six other nodes: nine instances, known before the run.
      const voted = await call('tie-judge', { question: 'Is 17 a prime number?' });
      expect(voted.map((p) => p.progress)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(voted.map((p) => p.total)).toEqual(Array(9).fill(9));
      // A loop runs as many rounds as its end condition says: counted, with no total.
      const png = hugePng(4, 4).toString('base64');
      const debated = await call('nlsom-vqa-democracy', {
        question: 'What is in the picture?',
        image: `data:image/png;base64,${png}`,
      });
      expect(debated.length).toBeGreaterThan(10);
      expect(debated.map((p) => p.progress)).toEqual(debated.map((_, i) => i + 1));
      expect(debated.every((p) => p.total === undefined)).toBe(true);
    } finally {
      await client.close();
      await server.stop();
      await stub.close();
    }
  });
});

describe('society serve /mcp: files and keys', () => {
  it('takes an image as a data URL and gives it back as image content', async () => {
    const stub = await startStubOpenAI();
    const server = await start(stub, {}, [mirror]);
    const client = await connect(server.serving.url);
    try {
      const { tools } = await client.listTools();
      expect(tools[0]).toMatchObject({
        name: 'mirror',
        inputSchema: { properties: { photo: { type: 'string', contentEncoding: 'base64' } } },
      });
      // Only files come out: there is nothing structured to describe.
      expect(tools[0]!.outputSchema).toBeUndefined();
      const png = hugePng(4, 4).toString('base64');
      const result = await client.callTool({
        name: 'mirror',
        arguments: { photo: `data:image/png;base64,${png}` },
      });
      expect(result.content).toEqual([{ type: 'image', mimeType: 'image/png', data: png }]);
      expect(result.structuredContent).toBeUndefined();
    } finally {
      await client.close();
      await server.stop();
      await stub.close();
    }
  });

  it('never answers with a provider key, even when a model repeats it', async () => {
    const key = 'sk-serve-mcp-test-key-0123456789abcdef';
    process.env.SERVE_MCP_TEST_STUB_KEY = key;
    const stub = await startStubOpenAI({
      respond: (_body, ctx) => ({ text: `I was sent ${ctx.headers.authorization}` }),
    });
    const server = await start(stub, {
      provider: [`stub=${stub.url},key=SERVE_MCP_TEST_STUB_KEY`],
    });
    const client = await connect(server.serving.url);
    try {
      const result = await client.callTool({ name: 'echo', arguments: { question: 'hi' } });
      expect(stub.headers[0]!.authorization).toBe(`Bearer ${key}`);
      expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(/^I was sent Bearer /);
      expect(JSON.stringify(result)).not.toContain(key);
    } finally {
      delete process.env.SERVE_MCP_TEST_STUB_KEY;
      await client.close();
      await server.stop();
      await stub.close();
    }
  });
});

describe('society serve --stdio', () => {
  it('serves a template as a tool to a client that starts it', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        'bin/society.js',
        'serve',
        '--stdio',
        'templates/tie-judge.society.json',
        '--simulate',
        '--db',
        join(dir, 'stdio.db'),
      ],
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const client = new Client({ name: 'serve-mcp-test', version: '1' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['tie-judge']);
      const result = await client.callTool({
        name: 'tie-judge',
        arguments: { question: 'Is 17 a prime number?' },
      });
      expect(result.isError).toBeFalsy();
      // Its two outputs, each named; the decision made up by the simulated provider says so.
      const texts = (result.content as Array<{ type: string; text: string }>).map((c) => c.text);
      expect(texts).toHaveLength(2);
      expect(texts[0]).toMatch(/^decision: \[simulated\] (yes|no)$/);
      expect(texts[1]).toMatch(/^tally: \[simulated\] \{"rule":"plurality"/);
      expect(result.structuredContent).toMatchObject({ tally: { rule: 'plurality' } });
    } finally {
      await client.close();
    }
    expect(stderr).toContain('society: serving tie-judge as MCP tools over stdio');
  });
});
