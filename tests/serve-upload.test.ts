/**
 * `society serve` takes a run's files as a multipart form (as `curl -F` sends them) besides JSON
 * with data URLs, refusing a wrong part or type with a 400 naming it and a body past the cap with
 * 413; and the one run-value reader reads the HTTP API's strict JSON and the studio's form text.
 */

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveOptions } from '../app/cli/commands/serve/serve.ts';
import { BlobStore } from '../app/runtime/blobs.ts';
import { API_VALUES, PAGE_VALUES, readRunValues, UploadedFile } from '../app/runtime/run-values.ts';
import { serve } from '../app/serve/index.ts';
import { compile, edge, graph, input, output } from './support/graphs.ts';

const TOKEN = 'test-token-0123456789abcdef';
const auth = { authorization: `Bearer ${TOKEN}` };
/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const PNG_URL = `data:image/png;base64,${PNG.toString('base64')}`;

/** Inputs wired straight to outputs: what a run was given comes back as its outputs. */
const doc = graph(
  [
    input('photo', { modality: 'image', example: PNG_URL }),
    input('count', { modality: 'number' }),
    input('question'),
    output('seen'),
    output('times'),
    output('asked'),
  ],
  [
    edge('photo.value', 'seen.value'),
    edge('count.value', 'times.value'),
    edge('question.value', 'asked.value'),
  ],
);

interface Answer {
  id: string;
  status: string;
  outputs?: Record<string, unknown>;
  error?: { message: string; field?: string };
}

describe('society serve: multipart uploads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'society-upload-'));
  const file = join(dir, 'look.society.json');
  writeFileSync(file, JSON.stringify(doc));
  let url: string;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    const { options, close } = await serveOptions([file], {
      port: '0',
      host: '127.0.0.1',
      token: TOKEN,
      auth: true,
      concurrency: '2',
      queueLimit: '4',
      maxBody: '65536',
      provider: [],
      allowHost: [],
      db: join(dir, 'runs.db'),
    });
    const serving = await serve(options);
    url = serving.url;
    stop = async () => {
      await serving.close();
      close();
    };
  });
  afterAll(async () => stop?.());

  const post = async (form: FormData) => {
    const res = await fetch(`${url}/societies/look/runs`, {
      method: 'POST',
      headers: auth,
      body: form,
    });
    return { status: res.status, body: (await res.json()) as Answer };
  };
  const form = (parts: Record<string, string | Blob | [Blob, string]>) => {
    const f = new FormData();
    for (const [name, part] of Object.entries(parts))
      if (Array.isArray(part)) f.append(name, part[0], part[1]);
      else f.append(name, part);
    return f;
  };

  it('runs with a file part and plain fields, typed as the inputs take them', async () => {
    // A client that does not know the type sends bytes: the file name's extension says PNG.
    const bytes = new Blob([PNG], { type: 'application/octet-stream' });
    const started = await post(form({ photo: [bytes, 'me.png'], count: '3', question: 'Who?' }));
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const run = (await (
      await fetch(`${url}/runs/${started.body.id}?wait=1`, { headers: auth })
    ).json()) as Answer;
    expect(run).toMatchObject({
      status: 'succeeded',
      outputs: { seen: PNG_URL, times: 3, asked: 'Who?' },
    });

    // The same run with the values as one JSON part and the file beside it.
    const mixed = await post(
      form({
        inputs: JSON.stringify({ count: 4, question: 'Where?' }),
        photo: [new Blob([PNG], { type: 'image/png' }), 'x'],
      }),
    );
    expect(mixed.status, JSON.stringify(mixed.body)).toBe(202);
  });

  it('refuses a wrong part name, a file where text goes, a wrong type and a body past the cap', async () => {
    const png = (): [Blob, string] => [new Blob([PNG], { type: 'image/png' }), 'me.png'];
    for (const [parts, field, words] of [
      [
        { photo: png(), count: '3', question: 'q', colour: 'red' },
        'inputs.colour',
        'unknown input',
      ],
      [{ photo: png(), count: '3', question: png() }, 'inputs.question', 'not a file'],
      [
        {
          photo: [new Blob(['hello'], { type: 'text/plain' }), 'a.txt'],
          count: '3',
          question: 'q',
        },
        'inputs.photo',
        'text/plain is not a PNG',
      ],
      [{ photo: png(), count: 'three', question: 'q' }, 'inputs.count', 'must be a number'],
      [{ photo: png(), count: '3' }, 'inputs.question', 'missing input'],
      [{ photo: png(), count: '3', question: 'q', inputs: '{"question":' }, 'inputs', 'not JSON'],
    ] as const) {
      const res = await post(form(parts as Record<string, string | [Blob, string]>));
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error).toEqual({ message: expect.stringContaining(words), field });
    }
    const big = await post(
      form({ photo: [new Blob([new Uint8Array(70_000)]), 'big.png'], count: '1', question: 'q' }),
    );
    expect(big.status).toBe(413);
    // Sent in chunks with no length declared, the body is stopped once it passes the cap.
    const encoded = new Response(
      form({ photo: [new Blob([new Uint8Array(70_000)]), 'big.png'], count: '1', question: 'q' }),
    );
    const chunked = await fetch(`${url}/societies/look/runs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': encoded.headers.get('content-type')! },
      body: encoded.body,
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
  });

  it('describes the form in the OpenAPI document', async () => {
    const api = (await (await fetch(`${url}/openapi.json`, { headers: auth })).json()) as {
      paths: Record<string, { post: { requestBody: { content: Record<string, unknown> } } }>;
    };
    expect(Object.keys(api.paths['/societies/{name}/runs']!.post.requestBody.content)).toEqual([
      'application/json',
      'multipart/form-data',
    ]);
  });
});

describe('the run-value reader', () => {
  it('reads strict JSON for the API and text and examples for the page', async () => {
    const { plan } = await compile(doc);
    const blobs = new BlobStore();
    const values = { photo: 'example', count: '3', question: 'q' };
    expect(() => readRunValues(values, plan, blobs, API_VALUES)).toThrow(
      'input "photo" is an image: send it as a data URL',
    );
    expect(() => readRunValues({ count: '3' }, plan, blobs, API_VALUES)).toThrow(
      'input "count" must be a number',
    );
    const page = readRunValues(values, plan, blobs, PAGE_VALUES);
    expect(page.inputs.count).toBe(3);
    expect(blobs.get((page.inputs.photo as { $image: string }).$image)?.mime).toBe('image/png');
    // An upload whose type is unknown is recognised from its bytes.
    const sniffed = readRunValues(
      { photo: new UploadedFile(new Uint8Array(PNG), 'application/octet-stream') },
      plan,
      blobs,
      API_VALUES,
    );
    expect(sniffed.inputs.photo).toEqual(page.inputs.photo);
  });
});
