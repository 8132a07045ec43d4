/**
 * The OpenAI-compatible endpoint of `society serve`, as the official `openai` SDK sees it: a
 * served society answers `chat.completions.create` plain and streamed, its model calls going to
 * a local stub of the OpenAI protocol. A streamed answer arrives as it is produced (the first
 * chunk before the model has even finished, held back by the stub until the client has it), and
 * only what will be the answer is ever sent.
 */

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServeFlags } from '../app/cli/commands/serve/serve.ts';
import { compileGraph } from '../app/compiler/index.ts';
import { blobHashOf } from '../app/schema/blob-refs.ts';
import { openRunStore } from '../app/store/index.ts';
import { agent, edge, graph, input, output, registry } from './support/graphs.ts';
import { hugePng } from './support/huge-png.ts';
import { startServing } from './support/serve.ts';
import { echoReply, type StubOpenAI, startStubOpenAI } from './support/stub-openai.ts';

const TOKEN = 'test-token-openai-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'society-serve-openai-'));
const MODELS = { m: { provider: 'stub', model: 'stub-model' } };

function society(name: string, agentData: Record<string, unknown> = {}): string {
  const file = join(dir, `${name}.society.json`);
  writeFileSync(
    file,
    JSON.stringify(
      graph(
        [input('question'), agent('a', 'Answer: {{ question }}', agentData), output('answer')],
        [edge('question.value', 'a.question'), edge('a.text', 'answer.value')],
        { models: MODELS, name },
      ),
    ),
  );
  return file;
}

async function start(stub: StubOpenAI, files: string[], extra: Partial<ServeFlags> = {}) {
  return startServing(dir, files, TOKEN, stub.url, extra);
}

/**
 * A model answer streamed in pieces, its second piece held until `release` is called: the test
 * releases it once its client has the first content chunk, so that chunk cannot have waited for
 * the answer's end. After 5 s it goes on anyway, and says so.
 */
function heldStream(pieces: string[]) {
  let release!: (by: 'client' | 'timeout') => void;
  const released = new Promise<'client' | 'timeout'>((resolve) => {
    release = resolve;
    setTimeout(() => resolve('timeout'), 5_000).unref();
  });
  const fault = async (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const event = (delta: unknown, finish: string | null = null, extra = {}) =>
      res.write(
        `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'stub-model', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`,
      );
    event({ role: 'assistant', content: '' });
    event({ content: pieces[0] });
    await released;
    for (const piece of pieces.slice(1)) event({ content: piece });
    event({}, 'stop', { usage: { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 } });
    res.end('data: [DONE]\n\n');
  };
  return { fault, release: () => release('client'), released };
}

describe('the OpenAI-compatible endpoint with the openai SDK', () => {
  const plain = society('plain');
  const question = society('question', { parse: 'question' });
  let stub: StubOpenAI;
  let server: Awaited<ReturnType<typeof start>>;
  let client: OpenAI;
  let held: ReturnType<typeof heldStream> | undefined;

  beforeAll(async () => {
    stub = await startStubOpenAI({
      respond: (body) => (body.stream && held ? { fault: held.fault } : echoReply(body)),
    });
    server = await start(stub, [plain, question]);
    client = new OpenAI({ baseURL: `${server.serving.url}/v1`, apiKey: TOKEN, maxRetries: 0 });
  });
  afterAll(async () => {
    await server?.stop();
    await stub?.close();
  });

  it('answers a plain chat with the society`s output and its tokens', async () => {
    const reply = await client.chat.completions.create({
      model: 'plain',
      messages: [{ role: 'user', content: 'Is the sky blue?' }],
    });
    expect(reply.choices[0]!.message.content).toBe('echo: Answer: Is the sky blue?');
    expect(reply.choices[0]!.finish_reason).toBe('stop');
    expect(reply.usage!.total_tokens).toBeGreaterThan(0);
  });

  it('streams the answer as its model call produces it, the first chunk before the run ends', async () => {
    held = heldStream(['  The ', 'sky ', 'is ', 'blue. \n']);
    const { released } = held;
    const stream = await client.chat.completions.create({
      model: 'plain',
      messages: [{ role: 'user', content: 'Is the sky blue?' }],
      stream: true,
    });
    const contents: string[] = [];
    let statusAtFirst: string | undefined;
    let last: OpenAI.ChatCompletionChunk | undefined;
    for await (const chunk of stream) {
      last = chunk;
      const content = chunk.choices[0]?.delta?.content;
      if (!content) continue;
      contents.push(content);
      if (contents.length === 1) {
        // The run is still going: its model has not even finished its answer.
        const runId = chunk.id.replace('chatcmpl-', '');
        const res = await fetch(`${server.serving.url}/runs/${runId}`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        statusAtFirst = ((await res.json()) as { status: string }).status;
        held.release();
      }
    }
    held = undefined;
    expect(await released).toBe('client');
    expect(statusAtFirst).toBe('running');
    expect(contents.length).toBeGreaterThanOrEqual(3);
    // Leading and trailing spaces are never sent: the answer is trimmed.
    expect(contents[0]).toBe('The');
    expect(contents.join('')).toBe('The sky is blue.');
    expect(last!.choices[0]!.finish_reason).toBe('stop');
    expect(last!.usage).toEqual({ prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 });
  });

  it('sends an answer a node reshapes only once it is made, whole', async () => {
    // `parse: question` keeps the text up to its first "?": what streams would not be the answer.
    const stream = await client.chat.completions.create({
      model: 'question',
      messages: [{ role: 'user', content: 'Why? Because.' }],
      stream: true,
    });
    const contents: string[] = [];
    for await (const chunk of stream) {
      const content = chunk.choices[0]?.delta?.content;
      if (content) contents.push(content);
    }
    expect(contents).toEqual(['echo: Answer: Why?']);
  });

  it('refuses a client without the token with the SDK`s AuthenticationError', async () => {
    const stranger = new OpenAI({
      baseURL: `${server.serving.url}/v1`,
      apiKey: 'not-the-token',
      maxRetries: 0,
    });
    const refused = stranger.chat.completions.create({
      model: 'plain',
      messages: [{ role: 'user', content: 'hi' }],
    });
    await expect(refused).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    await expect(refused).rejects.toMatchObject({ status: 401 });
  });
});

describe('a streamed answer whose model call is cut off and retried', () => {
  it('sends only what goes beyond what was already sent, once', async () => {
    const file = join(dir, 'retried.society.json');
    writeFileSync(
      file,
      JSON.stringify(
        graph(
          [input('question'), agent('a', 'Answer: {{ question }}'), output('answer')],
          [edge('question.value', 'a.question'), edge('a.text', 'answer.value')],
          { models: MODELS, settings: { retry: { attempts: 2, baseMs: 1, maxMs: 1 } } },
        ),
      ),
    );
    // The first attempt's stream breaks after two words; the retry says the whole answer.
    const stub = await startStubOpenAI({
      respond: (_body, { index }) =>
        index === 0
          ? {
              fault: (res) => {
                res.writeHead(200, { 'content-type': 'text/event-stream' });
                for (const content of ['', 'The ', 'sky '])
                  res.write(
                    `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'stub-model', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`,
                  );
                res.end(); // cut off: no finish reason, no [DONE]
              },
            }
          : { text: 'The sky is blue.' },
    });
    const server = await start(stub, [file]);
    try {
      const client = new OpenAI({ baseURL: `${server.serving.url}/v1`, apiKey: TOKEN });
      const stream = await client.chat.completions.create({
        model: 'retried',
        messages: [{ role: 'user', content: 'Is the sky blue?' }],
        stream: true,
      });
      let text = '';
      let id = '';
      for await (const chunk of stream) {
        id = chunk.id.replace('chatcmpl-', '');
        text += chunk.choices[0]?.delta?.content ?? '';
      }
      expect(stub.count()).toBe(2);
      expect(text).toBe('The sky is blue.');
      // The cut-off attempt's words had streamed before the retry.
      const store = openRunStore(server.db);
      try {
        const types = store.events(id).map((e) => e.type);
        expect(types.indexOf('model.delta')).toBeLessThan(types.indexOf('model.retry'));
      } finally {
        store.close();
      }
    } finally {
      await server.stop();
      await stub.close();
    }
  });
});

describe('a document that names how chat maps onto it', () => {
  // Its first text input and output are not the chat's: serve.chat names them.
  const doc = () =>
    graph(
      [
        input('sys'),
        input('past'),
        input('question'),
        agent('a', 'S={{ sys }} H={{ past }} Q={{ question }}'),
        agent('b', 'Final: {{ draft }}'),
        output('first'),
        output('answer'),
      ],
      [
        edge('sys.value', 'a.sys'),
        edge('past.value', 'a.past'),
        edge('question.value', 'a.question'),
        edge('a.text', 'first.value'),
        edge('a.text', 'b.draft'),
        edge('b.text', 'answer.value'),
      ],
      { models: MODELS, name: 'mapped' },
    );

  it('feeds the named inputs the last message, the earlier turns and the system message', async () => {
    const file = join(dir, 'mapped.society.json');
    const chat = { input: 'question', output: 'answer', history: 'past', system: 'sys' };
    writeFileSync(file, JSON.stringify({ ...doc(), serve: { chat } }));
    const stub = await startStubOpenAI();
    const server = await start(stub, [file]);
    try {
      const client = new OpenAI({ baseURL: `${server.serving.url}/v1`, apiKey: TOKEN });
      const models = await client.models.list();
      expect(models.data[0]).toMatchObject({ id: 'mapped', chat });
      const reply = await client.chat.completions.create({
        model: 'mapped',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: 'Hello!' },
          { role: 'user', content: 'Is 7 prime?' },
        ],
      });
      expect(reply.choices[0]!.message.content).toBe(
        'echo: Final: echo: S=Be brief. H=User: Hi\n\nAssistant: Hello! Q=Is 7 prime?',
      );
    } finally {
      await server.stop();
      await stub.close();
    }
  });

  it('is checked when the document compiles: an unknown name is a problem naming the field', async () => {
    const checked = await compileGraph(
      { ...doc(), serve: { chat: { input: 'nope', output: 'answer', history: 'question' } } },
      registry,
    );
    expect(checked.ok).toBe(false);
    expect(checked.ok ? [] : checked.problems).toEqual([
      {
        path: 'serve.chat.input',
        message: 'no run input "nope" (inputs: sys, past, question)',
      },
    ]);
    const unknownOutput = await compileGraph(
      { ...doc(), serve: { chat: { output: 'final', extra: 'x' } } },
      registry,
    );
    expect(unknownOutput.ok ? [] : unknownOutput.problems.map((p) => p.path)).toEqual([
      'serve.chat',
    ]);
    const noOutput = await compileGraph(
      { ...doc(), serve: { chat: { output: 'final' } } },
      registry,
    );
    expect(noOutput.ok ? [] : noOutput.problems).toEqual([
      { path: 'serve.chat.output', message: 'no run output "final" (outputs: first, answer)' },
    ]);
  });
});

describe('a visual-question society over chat', () => {
  const vqa = join(import.meta.dirname, '..', 'templates', 'nlsom-vqa.society.json');
  const png = hugePng(4, 4);
  const question = 'What is the large shape in the picture? (a) a circle (b) a square';
  const asked = (url: string) =>
    [
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: question },
          { type: 'image_url' as const, image_url: { url } },
        ],
      },
    ] satisfies OpenAI.ChatCompletionMessageParam[];
  const refusal = (error: unknown) => {
    const refused = error as InstanceType<typeof OpenAI.APIError>;
    return { status: refused.status, field: (refused.error as { field?: string }).field };
  };

  it('feeds the last user message`s image to the society`s image input', async () => {
    const stub = await startStubOpenAI();
    const server = await start(stub, [vqa], { simulate: true });
    try {
      const client = new OpenAI({ baseURL: `${server.serving.url}/v1`, apiKey: TOKEN });
      const models = await client.models.list();
      expect(models.data[0]).toMatchObject({
        id: 'nlsom-vqa',
        chat: { input: 'question', image: 'image', output: 'answer' },
      });
      const reply = await client.chat.completions.create({
        model: 'nlsom-vqa',
        messages: asked(`data:image/png;base64,${png.toString('base64')}`),
      });
      expect(reply.choices[0]!.message.content).toMatch(/^\[simulated\]/);
      const store = openRunStore(server.db);
      try {
        const id = reply.id.replace('chatcmpl-', '');
        const started = store.events(id)[0] as { type: string; inputs: Record<string, unknown> };
        expect(started.inputs.question).toBe(question);
        const blob = store.getBlob(blobHashOf(started.inputs.image)!);
        expect(blob?.mime).toBe('image/png');
        expect(Buffer.from(blob!.bytes).equals(png)).toBe(true);
      } finally {
        store.close();
      }

      // The server fetches no URL; a chat without an image, or one that is not an image, is
      // refused naming where in the request it was.
      const refused = async (messages: OpenAI.ChatCompletionMessageParam[]) =>
        refusal(
          await client.chat.completions
            .create({ model: 'nlsom-vqa', messages }, { maxRetries: 0 })
            .catch((error: unknown) => error),
        );
      expect(await refused(asked('https://example.com/kitchen.jpg'))).toEqual({
        status: 400,
        field: 'messages.0.content.1.image_url',
      });
      expect(await refused(asked('data:text/plain;base64,aGVsbG8='))).toEqual({
        status: 400,
        field: 'messages.0.content.1.image_url',
      });
      expect(await refused([{ role: 'user', content: question }])).toEqual({
        status: 400,
        field: 'messages.0.content',
      });
      expect(stub.count()).toBe(0);
    } finally {
      await server.stop();
      await stub.close();
    }
  });

  it('checks serve.chat.image when the document compiles: it must name an image input', async () => {
    const doc = JSON.parse(readFileSync(vqa, 'utf8'));
    const checked = await compileGraph(
      { ...doc, serve: { chat: { image: 'question' } } },
      registry,
    );
    expect(checked.ok ? [] : checked.problems).toEqual([
      { path: 'serve.chat.image', message: 'input "question" takes text, not image' },
    ]);
  });
});

describe('a simulated society streamed', () => {
  it('labels its first chunk [simulated] and streams the rest, calling no model', async () => {
    const stub = await startStubOpenAI();
    const server = await start(stub, [society('simulated')], { simulate: true });
    try {
      const client = new OpenAI({ baseURL: `${server.serving.url}/v1`, apiKey: TOKEN });
      const stream = await client.chat.completions.create({
        model: 'simulated',
        messages: [{ role: 'user', content: 'Is the sky blue?' }],
        stream: true,
      });
      const contents: string[] = [];
      let id = '';
      for await (const chunk of stream) {
        id = chunk.id.replace('chatcmpl-', '');
        const content = chunk.choices[0]?.delta?.content;
        if (content) contents.push(content);
      }
      expect(contents[0]).toMatch(/^\[simulated\]/);
      expect(contents.length).toBeGreaterThan(2);
      expect(stub.count()).toBe(0);
      const store = openRunStore(server.db);
      try {
        expect(contents.join('')).toBe(store.getRun(id)!.outputs!.answer);
      } finally {
        store.close();
      }
    } finally {
      await server.stop();
      await stub.close();
    }
  });
});
