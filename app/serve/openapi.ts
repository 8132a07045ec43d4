/**
 * The server's OpenAPI 3.1 description, served at `/openapi.json`: the request bodies from their
 * zod schemas, each served society's inputs and outputs from its input and output nodes.
 */
import { z } from 'zod';
import { fieldsSchema, type ServedSociety } from './catalog.ts';
import { ChatRequest, RunRequest } from './schemas.ts';

const ERROR = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: {
        message: { type: 'string' },
        field: { type: 'string', description: 'the request field the error is about' },
      },
      required: ['message'],
    },
  },
} as const;

const RUN = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    society: { type: 'string' },
    status: {
      type: 'string',
      enum: ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted'],
    },
    outputs: { type: 'object', description: 'values by output name; files as data URLs' },
    usage: { type: 'object' },
    error: { type: 'string' },
    simulated: {
      type: 'boolean',
      const: true,
      description: 'present when the simulated provider answered the run: its outputs are made up',
    },
  },
  required: ['id', 'society', 'status'],
} as const;

/** A run's inputs as a form: a part per input, files as files, and/or an `inputs` JSON part. */
const FORM = {
  type: 'object',
  description:
    'one part per input, named after it: a file part for an image, recording or 3D asset input (its Content-Type, or its file name, gives its type), a plain field for the others (numbers, true/false and JSON as text); and/or one "inputs" part holding JSON values by input name',
  properties: {
    inputs: {
      type: 'string',
      contentMediaType: 'application/json',
      description: 'values by input name, as in the JSON body',
    },
  },
  additionalProperties: {
    anyOf: [
      { type: 'string', contentMediaType: 'application/octet-stream', description: 'a file' },
      { type: 'string', description: 'a value as text' },
    ],
  },
} as const;

function errors(...codes: number[]) {
  const text: Record<number, string> = {
    400: 'a field does not fit (named in error.field), or a budget asks more than the server has left',
    401: 'no or wrong bearer token',
    403: "a Host that is not this server's address (DNS rebinding), or another site's Origin",
    409: 'the run has already ended (error.message says how), or it is running on another server',
    404: 'no such society or run',
    413: 'the request body is too large',
    429: 'the server is busy or its budget spent (see Retry-After)',
    503: 'the server is stopping (see Retry-After)',
    502: "the society's run did not succeed (error.field is budget when its budget stopped it); sent with x-should-retry: false",
  };
  return Object.fromEntries(
    codes.map((code) => [
      code,
      { description: text[code], content: { 'application/json': { schema: ERROR } } },
    ]),
  );
}

const json = (schema: unknown) => ({ 'application/json': { schema } });
const runId = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
const budgetHeader = {
  name: 'X-Society-Budget-Usd',
  in: 'header',
  description:
    'US dollars this request may spend (the only budget a form can send); with budget_usd or budget.usd, the lowest holds',
  schema: { type: 'number', exclusiveMinimum: 0 },
};

/** The OpenAPI document for `societies`. */
export function openApiDocument(societies: Iterable<ServedSociety>): Record<string, unknown> {
  const schemas: Record<string, unknown> = { Error: ERROR, Run: RUN };
  for (const s of societies) {
    schemas[`${s.name}.inputs`] = fieldsSchema(s.inputs);
    schemas[`${s.name}.outputs`] = fieldsSchema(s.outputs);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'society serve',
      version: '1',
      description:
        'Run the served societies over HTTP. Every request carries Authorization: Bearer TOKEN (unless the server runs with --no-auth on loopback).',
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas,
    },
    security: [{ bearer: [] }],
    paths: {
      '/societies': {
        get: {
          summary: 'the served societies, with the JSON Schemas of their inputs and outputs',
          responses: { 200: { description: 'the societies' }, ...errors(401, 403) },
        },
      },
      '/societies/{name}/runs': {
        post: {
          summary:
            "start a run (queued when the server is at its concurrency); budget caps this run's spend within the document's and the server's",
          parameters: [
            { name: 'name', in: 'path', required: true, schema: { type: 'string' } },
            budgetHeader,
          ],
          requestBody: {
            required: true,
            content: {
              ...json(z.toJSONSchema(RunRequest, { io: 'input' })),
              'multipart/form-data': { schema: FORM },
            },
          },
          responses: {
            202: { description: 'the run, queued or running', content: json(RUN) },
            ...errors(400, 401, 403, 404, 413, 429, 503),
          },
        },
      },
      '/runs/{id}': {
        get: {
          summary: 'a run; with ?wait=1, once it has ended',
          parameters: [runId, { name: 'wait', in: 'query', schema: { type: 'string' } }],
          responses: {
            200: { description: 'the run', content: json(RUN) },
            ...errors(401, 403, 404),
          },
        },
        delete: {
          summary: 'cancel a run',
          parameters: [runId],
          responses: {
            200: {
              description:
                'the run once it has stopped: cancelled, or how it ended should it end on its own meanwhile',
              content: json(RUN),
            },
            ...errors(401, 403, 404, 409),
          },
        },
      },
      '/runs/{id}/events': {
        get: {
          summary:
            "the run's events as Server-Sent Events (event: its type; data: the event as the run store records it), ending after run.finished",
          parameters: [runId],
          responses: {
            200: { description: 'the event stream', content: { 'text/event-stream': {} } },
            ...errors(401, 403, 404),
          },
        },
      },
      '/v1/models': {
        get: {
          summary: 'OpenAI-compatible: every served society is a model',
          responses: { 200: { description: 'the models' }, ...errors(401, 403) },
        },
      },
      '/v1/chat/completions': {
        post: {
          parameters: [budgetHeader],
          summary:
            "OpenAI-compatible: the last user message is the society's first text input, the answer its first text output",
          requestBody: {
            required: true,
            content: json(z.toJSONSchema(ChatRequest, { io: 'input' })),
          },
          responses: {
            200: {
              description:
                'a chat.completion, or with stream: chat.completion.chunk events, the answer as it is produced when its last model call makes it (else in one chunk at the end), the last chunk with finish_reason and usage',
            },
            ...errors(400, 401, 403, 404, 413, 429, 502, 503),
          },
        },
      },
    },
  };
}
