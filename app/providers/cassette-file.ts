/**
 * The cassette file format: requests in their normalized form and the keys made from them, what
 * a recorded answer holds, and the schema a file is checked against when it is read. Plain JSON
 * meant to be committed and diffed; no keys or headers are ever part of it.
 */
import { z } from 'zod';
import { canonicalJson, sha256Hex } from './canonical.ts';
import type { NormalizedExpertRequest, RecordedExpertResponse } from './expert-record.ts';
import type { ToolCall, ToolDefinition } from './tools.ts';
import type { ChatContentPart, ChatMessage, ChatRequest, TokenUsage } from './types.ts';

/** The part of a request that decides its answer, with images reduced to content hashes. */
export interface NormalizedRequest {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  extra?: Record<string, unknown>;
  /** Tools offered, when any: a request without tools keys as it did before tools existed. */
  tools?: ToolDefinition[];
}

/** One recorded answer. */
export interface RecordedResponse {
  text: string;
  usage: TokenUsage;
  model: string;
  finishReason?: string;
  /** Present (true) when the recorded answer came from the simulated provider. */
  simulated?: boolean;
  /** The tools the model asked to call, when it did. */
  toolCalls?: ToolCall[];
}

export interface CassetteEntry {
  key: string;
  request: NormalizedRequest;
  responses: RecordedResponse[];
}

/** One recorded expert request with its answers. */
export interface ExpertCassetteEntry {
  key: string;
  request: NormalizedExpertRequest;
  responses: RecordedExpertResponse[];
}

/** The file format. */
export interface CassetteFile {
  format: 'society-cassette';
  version: 1;
  entries: CassetteEntry[];
  /** Expert model calls (Hugging Face, local operations), when there are any. */
  experts?: ExpertCassetteEntry[];
  /** Bytes the expert answers returned (images, audio), by sha256: MIME type and base64. */
  blobs?: Record<string, { mime: string; base64: string }>;
  /**
   * A person's answers, by the name they were asked under (`agent1@t3` for a seat's command
   * at step 3): a replay gives them again, as it gives the models' answers.
   */
  answers?: Record<string, string>;
  /**
   * Tool results, keyed by source, tool and canonical arguments (`toolKey`), and the tools each
   * source offered: a replay serves both and never opens a source.
   */
  tools?: ToolCassetteEntry[];
  toolLists?: Record<string, ToolDefinition[]>;
}

/** A tool call as a cassette keys it: where, which tool, the arguments as parsed. */
export interface NormalizedToolRequest {
  kind: 'tool';
  source: string;
  tool: string;
  arguments: Record<string, unknown>;
}

/** One recorded tool result. */
export interface RecordedToolResult {
  content: string;
  structured?: unknown;
  isError?: boolean;
  simulated?: boolean;
}

export interface ToolCassetteEntry {
  key: string;
  request: NormalizedToolRequest;
  responses: RecordedToolResult[];
}

/** The cassette key of a tool call: sha256 hex of its canonical JSON. */
export function toolKey(request: Omit<NormalizedToolRequest, 'kind'>): string {
  return sha256Hex(
    canonicalJson({
      kind: 'tool',
      source: request.source,
      tool: request.tool,
      arguments: request.arguments,
    }),
  );
}

/** Whether a stored request is a tool call's (the calls table holds every kind). */
export function isToolRequest(request: unknown): request is NormalizedToolRequest {
  return (
    typeof request === 'object' &&
    request !== null &&
    (request as { kind?: unknown }).kind === 'tool'
  );
}

/** A tool result with its fields in a fixed order and nothing else. */
export function toRecordedTool(result: RecordedToolResult): RecordedToolResult {
  const recorded: RecordedToolResult = { content: result.content };
  if (result.structured !== undefined) recorded.structured = result.structured;
  if (result.isError) recorded.isError = true;
  if (result.simulated) recorded.simulated = true;
  return recorded;
}

const DATA_URL = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s;

/**
 * An image part with its data URL replaced by `sha256:<hex>` of the decoded bytes, so the key
 * depends on the picture and not on how its base64 happened to be wrapped or padded (and a
 * cassette does not carry megabytes of base64). http(s) URLs are kept as they are.
 */
function normalizeImage(part: Extract<ChatContentPart, { type: 'image' }>): ChatContentPart {
  const match = DATA_URL.exec(part.url);
  if (!match) {
    return part.mime
      ? { type: 'image', url: part.url, mime: part.mime }
      : { type: 'image', url: part.url };
  }
  const [, mimeType = '', params = '', payload = ''] = match;
  const bytes = /;base64/i.test(params)
    ? Buffer.from(payload.replace(/\s+/g, ''), 'base64')
    : Buffer.from(percentDecode(payload), 'utf8');
  const mime = (mimeType || part.mime || 'application/octet-stream').toLowerCase();
  return { type: 'image', url: `sha256:${sha256Hex(bytes)}`, mime };
}

function percentDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // malformed escapes: hash the text as it stands
  }
}

function normalizeMessage(message: ChatMessage): ChatMessage {
  // Tool fields only when present, so a message without them keys as it always did.
  const tools: Partial<ChatMessage> = {};
  if (message.toolCalls && message.toolCalls.length > 0)
    tools.toolCalls = message.toolCalls.map((c) => ({
      id: c.id,
      name: c.name,
      arguments: c.arguments,
    }));
  if (message.toolCallId !== undefined) tools.toolCallId = message.toolCallId;
  if (typeof message.content === 'string')
    return { role: message.role, content: message.content, ...tools };
  const content = message.content.map(
    (part): ChatContentPart =>
      part.type === 'text' ? { type: 'text', text: part.text } : normalizeImage(part),
  );
  return { role: message.role, content, ...tools };
}

/**
 * The request as a cassette sees it: model, messages (images as `sha256:` of their bytes plus
 * mime), temperature, maxTokens and extra. `stream` is dropped: streaming does not change the
 * answer. Normalizing an already normalized request changes nothing.
 */
export function normalizeRequest(request: ChatRequest | NormalizedRequest): NormalizedRequest {
  const normalized: NormalizedRequest = {
    model: request.model,
    messages: request.messages.map(normalizeMessage),
  };
  if (request.temperature !== undefined) normalized.temperature = request.temperature;
  if (request.maxTokens !== undefined) normalized.maxTokens = request.maxTokens;
  if (request.extra && Object.keys(request.extra).length > 0) normalized.extra = request.extra;
  if (request.tools && request.tools.length > 0)
    normalized.tools = request.tools.map((tool) => ({
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      parameters: tool.parameters,
    }));
  return normalized;
}

/** The cassette key of a request: sha256 hex of its normalized form as canonical JSON. */
export function requestKey(request: ChatRequest | NormalizedRequest): string {
  return sha256Hex(canonicalJson(normalizeRequest(request)));
}

const toolCallSchema = z.object({ id: z.string(), name: z.string(), arguments: z.string() });

const toolDefinitionSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()),
  hints: z
    .object({
      destructive: z.boolean().optional(),
      readOnly: z.boolean().optional(),
      idempotent: z.boolean().optional(),
      openWorld: z.boolean().optional(),
    })
    .optional(),
});

const contentPartSchema = z.union([
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({
    type: z.literal('image'),
    url: z.string(),
    mime: z.string().optional(),
    sha256: z.string().optional(),
  }),
]);

/** A cassette file as read: checked before any of it is used. */
export const cassetteSchema = z.object({
  format: z.literal('society-cassette'),
  version: z.literal(1),
  entries: z.array(
    z.object({
      key: z.string().regex(/^[0-9a-f]{64}$/, 'expected a sha256 hex key'),
      request: z.object({
        model: z.string(),
        messages: z.array(
          z.object({
            role: z.enum(['system', 'user', 'assistant', 'tool']),
            content: z.union([z.string(), z.array(contentPartSchema)]),
            toolCalls: z.array(toolCallSchema).optional(),
            toolCallId: z.string().optional(),
          }),
        ),
        temperature: z.number().optional(),
        maxTokens: z.number().int().optional(),
        extra: z.record(z.string(), z.unknown()).optional(),
        tools: z.array(toolDefinitionSchema).optional(),
      }),
      responses: z
        .array(
          z.object({
            text: z.string(),
            usage: z.object({
              promptTokens: z.number().nonnegative(),
              completionTokens: z.number().nonnegative(),
            }),
            model: z.string(),
            finishReason: z.string().optional(),
            simulated: z.boolean().optional(),
            toolCalls: z.array(toolCallSchema).optional(),
          }),
        )
        .min(1, 'an entry needs at least one response'),
    }),
  ),
  experts: z
    .array(
      z.object({
        key: z.string().regex(/^[0-9a-f]{64}$/, 'expected a sha256 hex key'),
        request: z.object({
          kind: z.literal('expert'),
          task: z.string(),
          model: z.string(),
          inputs: z.record(
            z.string(),
            z.union([z.string(), z.object({ sha256: z.string(), mime: z.string() })]),
          ),
          parameters: z.record(z.string(), z.unknown()).optional(),
        }),
        responses: z
          .array(
            z.object({
              output: z.union([
                z.string(),
                z.object({ $blob: z.string().regex(/^[0-9a-f]{64}$/), mime: z.string() }),
                z.array(z.number()),
                // Token vectors: feature extraction with `pooling: 'none'`.
                z.array(z.array(z.number())),
                z.array(
                  z.object({
                    label: z.string(),
                    score: z.number(),
                    box: z
                      .object({
                        xmin: z.number(),
                        ymin: z.number(),
                        xmax: z.number(),
                        ymax: z.number(),
                      })
                      .optional(),
                  }),
                ),
                // Named entities: token classification.
                z.array(
                  z.object({
                    word: z.string(),
                    type: z.string(),
                    score: z.number(),
                    start: z.number(),
                    end: z.number(),
                  }),
                ),
              ]),
              model: z.string(),
              simulated: z.boolean().optional(),
            }),
          )
          .min(1, 'an entry needs at least one response'),
      }),
    )
    .optional(),
  blobs: z.record(z.string(), z.object({ mime: z.string(), base64: z.string() })).optional(),
  answers: z.record(z.string(), z.string()).optional(),
  tools: z
    .array(
      z.object({
        key: z.string().regex(/^[0-9a-f]{64}$/, 'expected a sha256 hex key'),
        request: z.object({
          kind: z.literal('tool'),
          source: z.string(),
          tool: z.string(),
          arguments: z.record(z.string(), z.unknown()),
        }),
        responses: z
          .array(
            z.object({
              content: z.string(),
              structured: z.unknown().optional(),
              isError: z.boolean().optional(),
              simulated: z.boolean().optional(),
            }),
          )
          .min(1, 'an entry needs at least one response'),
      }),
    )
    .optional(),
  toolLists: z.record(z.string(), z.array(toolDefinitionSchema)).optional(),
});
