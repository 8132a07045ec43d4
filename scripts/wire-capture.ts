/**
 * `npm run wire:capture [BASE…]`: what each shipped template sends on the wire, written as a
 * golden file under tests/wire/ (tests/wire/templates-wire.test.ts compares a fresh capture with
 * it, so a change to the engine that alters any template's requests shows up as a diff).
 *
 * A template runs as `society run` runs it with its example inputs, and its model calls go
 * through the real OpenAI-compatible provider to a local server (tests/support/stub-openai.ts)
 * that answers each one from the template's committed cassette: the request body received is
 * read back into the cassette's request form and its recorded answer is sent, usage and finish
 * reason included. What is captured is the body as it arrived on the server.
 *
 * Expert calls (Hugging Face models and local operations) are captured one layer up: the
 * request the engine hands to the expert provider (task, model, inputs with bytes as sha256,
 * parameters), answered from the cassette. Their wire form is not served, because the
 * Hugging Face protocol does not carry the task and sends images as raw bytes, so a server
 * cannot tell which recorded answer a request asks for; the provider turns that request into
 * its HTTP call with no say from the engine, so the request it is handed is the honest record.
 *
 * The script imports only what the engine had before its core was opened (documents, compiler,
 * registry, startRun), so it can capture an older commit's requests when copied there.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fillExamples } from '../app/cli/inputs.ts';
import { compileGraph } from '../app/compiler/index.ts';
import { ExpertCassetteProvider, expertProviders } from '../app/experts/providers.ts';
import { loadNodeRegistry } from '../app/node-sdk/registry.ts';
import { canonicalJson, sha256Hex } from '../app/providers/canonical.ts';
import { Cassette, type NormalizedRequest, requestKey } from '../app/providers/cassette.ts';
import { normalizeExpertRequest } from '../app/providers/expert-record.ts';
import { createChatProvider, resolveProviderProfile } from '../app/providers/registry.ts';
import type { ToolSources } from '../app/providers/tools.ts';
import type { ChatContentPart, ChatMessage, ChatProvider } from '../app/providers/types.ts';
import { BlobStore } from '../app/runtime/blobs.ts';
import { startRun } from '../app/runtime/engine.ts';
import { type StubRequestBody, startStubOpenAI } from '../tests/support/stub-openai.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** The templates folder. */
export const TEMPLATES = path.join(ROOT, 'templates');
/** Where the golden files live. */
export const GOLDEN_DIR = path.join(ROOT, 'tests', 'wire');

/** One distinct request with how many times it was sent. */
export interface WireRequest {
  /** `POST /v1/chat/completions` for a model call; `expert <task>` for an expert call. */
  endpoint: string;
  model: string;
  /** sha256 of the canonical JSON of the body (or of the expert request). */
  sha256: string;
  count: number;
  /** The body's start, images shortened, for a readable diff. */
  preview: string;
  /** The text of the body's last message (what differs most between calls), clipped. */
  last: string;
}

/** A template's capture. */
export interface WireCapture {
  template: string;
  /** The run's end, so a capture of a failed run is never mistaken for a good one. */
  status: string;
  error?: string;
  requests: WireRequest[];
}

const DATA_URL = /data:([^;,"]*)[^,"]*,[A-Za-z0-9+/=%\s]{40,}/g;

/** Text with data URLs cut to their MIME type and the hash of their text, clipped. */
function preview(text: string, length = 160): string {
  const short = text.replace(
    DATA_URL,
    (url, mime) => `data:${mime},…${sha256Hex(url).slice(0, 12)}`,
  );
  return short.length > length ? `${short.slice(0, length)}…` : short;
}

/** The last message's text (or an expert request's inputs), for `last`. */
function lastText(body: StubRequestBody): string {
  const content = Array.isArray(body?.messages) ? body.messages.at(-1)?.content : undefined;
  if (typeof content === 'string') return preview(content, 200);
  return preview(JSON.stringify(content ?? body?.inputs ?? ''), 200);
}

/** A Chat Completions message as it arrives, tool fields included. */
interface WireMessage {
  role: ChatMessage['role'];
  content: string | null | Record<string, unknown>[];
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

/** A tool offered in a Chat Completions body. */
interface WireTool {
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}

/**
 * A Chat Completions body read back into the request the engine asked (the cassette's key):
 * the OpenAI provider sends `extra` fields first, then model, messages, temperature, max_tokens.
 */
export function fromWire(body: StubRequestBody): NormalizedRequest {
  const {
    model,
    messages,
    temperature,
    max_tokens: maxTokens,
    stream: _stream,
    stream_options: _options,
    tools,
    ...extra
  } = body as Record<string, unknown>;
  const request: NormalizedRequest = {
    model: String(model),
    messages: (messages as WireMessage[]).map((m) => ({
      role: m.role,
      content:
        typeof m.content === 'string' || m.content === null || m.content === undefined
          ? (m.content ?? '')
          : m.content.map(
              (part): ChatContentPart =>
                part.type === 'text'
                  ? { type: 'text', text: String(part.text) }
                  : { type: 'image', url: String((part.image_url as { url: string }).url) },
            ),
      // Function calling: the calls an assistant asked for, and which call a tool message answers.
      ...(m.tool_calls?.length
        ? {
            toolCalls: m.tool_calls.map((c) => ({
              id: c.id,
              name: c.function.name,
              arguments: c.function.arguments,
            })),
          }
        : {}),
      ...(m.tool_call_id !== undefined ? { toolCallId: m.tool_call_id } : {}),
    })),
  };
  if (Array.isArray(tools) && tools.length > 0) {
    request.tools = (tools as WireTool[]).map(({ function: f }) => ({
      name: f.name,
      ...(f.description !== undefined ? { description: f.description } : {}),
      parameters: f.parameters,
    }));
  }
  if (typeof temperature === 'number') request.temperature = temperature;
  if (typeof maxTokens === 'number') request.maxTokens = maxTokens;
  if (Object.keys(extra).length > 0) request.extra = extra;
  return request;
}

/** Distinct requests with their counts, sorted, so concurrent runs compare equal. */
function tally(items: Omit<WireRequest, 'count'>[]): WireRequest[] {
  const byKey = new Map<string, WireRequest>();
  for (const item of items) {
    const key = `${item.endpoint}\n${item.sha256}`;
    const seen = byKey.get(key);
    if (seen) seen.count++;
    else byKey.set(key, { ...item, count: 1 });
  }
  return [...byKey.values()].sort(
    (a, b) =>
      a.endpoint.localeCompare(b.endpoint) ||
      a.model.localeCompare(b.model) ||
      a.preview.localeCompare(b.preview) ||
      a.sha256.localeCompare(b.sha256),
  );
}

/** Runs template `base` against a local server answering from its cassette; see the header. */
export async function captureTemplate(base: string, dir = TEMPLATES): Promise<WireCapture> {
  const cassette = await Cassette.load(path.join(dir, `${base}.cassette.json`));
  const seen: Omit<WireRequest, 'count'>[] = [];
  const misses: string[] = [];
  /** Requests (by cassette key) whose last answer served was recorded from the simulator. */
  const simulated = new Set<string>();
  const stub = await startStubOpenAI({
    respond: (body) => {
      const text = canonicalJson(body);
      seen.push({
        endpoint: 'POST /v1/chat/completions',
        model: String(body?.model),
        sha256: sha256Hex(text),
        preview: preview(JSON.stringify(body)),
        last: lastText(body),
      });
      const request = fromWire(body);
      const answer = cassette.lookup(request);
      if (!answer) {
        misses.push(cassette.missReason(request));
        return { status: 400, body: { error: { message: 'not in the cassette' } } };
      }
      if (answer.simulated) simulated.add(requestKey(request));
      else simulated.delete(requestKey(request));
      return {
        text: answer.text,
        usage: {
          prompt_tokens: answer.usage.promptTokens,
          completion_tokens: answer.usage.completionTokens,
        },
        ...(answer.finishReason ? { finishReason: answer.finishReason } : {}),
        ...(answer.toolCalls?.length
          ? {
              toolCalls: answer.toolCalls.map((c) => ({
                id: c.id,
                name: c.name,
                arguments: c.arguments,
              })),
            }
          : {}),
      };
    },
  });
  try {
    const registry = await loadNodeRegistry();
    const file = path.join(dir, `${base}.society.json`);
    const compiled = await compileGraph(readFileSync(file, 'utf8'), registry);
    if (!compiled.ok) throw new Error(`${file}: ${compiled.problems[0]?.message}`);
    const blobs = new BlobStore();
    const given = { inputs: {}, humanAnswers: {} };
    fillExamples(given, compiled.plan, blobs);
    const experts = new ExpertCassetteProvider({ cassette, mode: 'replay' });
    const overrides = { openai: { baseUrl: stub.url, apiKeyEnv: '' } };
    // The real provider sends each call; an answer the cassette holds from the simulator is
    // labelled simulated again, as a replay labels it, since nodes act on that label (a planner
    // falls back to its rules rather than repairing a simulated plan).
    const providerFor = (name: string): ChatProvider => {
      const live = createChatProvider(resolveProviderProfile(name, { env: {}, overrides }), {});
      return {
        id: live.id,
        chat: async (request, options) => {
          const result = await live.chat(request, options);
          return simulated.has(requestKey(request)) ? { ...result, simulated: true } : result;
        },
      };
    };
    const run = startRun(compiled, {
      registry,
      inputs: given.inputs,
      blobs,
      humanAnswers: cassette.answers(),
      providerOverrides: overrides,
      providerFor,
      env: {},
      experts: expertProviders,
      expertProviderFor: () => experts,
      tools: recordedTools(cassette, seen),
      retry: { attempts: 1 },
      onExpertCall: ({ request }) => {
        const normalized = normalizeExpertRequest(request);
        const text = canonicalJson(normalized);
        seen.push({
          endpoint: `expert ${request.task}`,
          model: request.model,
          sha256: sha256Hex(text),
          preview: preview(text),
          last: lastText(normalized),
        });
      },
    });
    const result = await run.result;
    const error = misses[0] ?? result.error;
    return {
      template: base,
      status: result.status,
      ...(error ? { error } : {}),
      requests: tally(seen),
    };
  } finally {
    await stub.close();
  }
}

/**
 * Tool sources answered from the cassette, as a replay answers them (no server is started):
 * each call is captured one layer up like an expert's, as the source, tool and arguments the
 * engine hands over.
 */
function recordedTools(cassette: Cassette, seen: Omit<WireRequest, 'count'>[]): ToolSources {
  return {
    async open(ref) {
      const id = `mcp:${ref.profile}`;
      const tools = cassette.toolList(id);
      if (!tools) throw new Error(`the cassette holds no tools of ${id}`);
      return {
        id,
        list: async () => tools,
        call: async (tool, args) => {
          const request = { source: id, tool, arguments: args };
          const text = canonicalJson(request);
          seen.push({
            endpoint: `tool ${id}`,
            model: tool,
            sha256: sha256Hex(text),
            preview: preview(text),
            last: preview(JSON.stringify(args), 200),
          });
          const recorded = cassette.lookupTool(request);
          if (!recorded)
            throw new Error(`the cassette holds no call ${tool}(${JSON.stringify(args)})`);
          return {
            content: recorded.content,
            ...(recorded.structured !== undefined ? { structured: recorded.structured } : {}),
            ...(recorded.isError ? { isError: true } : {}),
            source: 'cassette',
          };
        },
        close: async () => {},
      };
    },
  };
}

/** Every template's base name, sorted. */
export function templateNames(dir = TEMPLATES): string[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.society.json'))
    .map((file) => file.slice(0, -'.society.json'.length))
    .sort();
}

/** Where a template's golden file is. */
export function goldenPath(base: string, dir = GOLDEN_DIR): string {
  return path.join(dir, `${base}.wire.json`);
}

/** The golden file's text: the capture and the commit it was taken at. */
export function goldenText(capture: WireCapture, commit: string): string {
  return `${JSON.stringify({ capturedAt: commit, ...capture }, null, 1)}\n`;
}

/** The checkout's commit, short, for `capturedAt`; marked when files differ from it. */
function currentCommit(): string {
  try {
    const run = (args: string[]) =>
      execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = run(['status', '--porcelain', '--', 'app', 'nodes', 'templates']) !== '';
    return `${run(['rev-parse', '--short', 'HEAD'])}${dirty ? ' with changes' : ''}`;
  } catch {
    return 'unknown commit';
  }
}

async function cli(argv: string[]): Promise<number> {
  let out = GOLDEN_DIR;
  let commit: string | undefined;
  const wanted: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--out') out = path.resolve(argv[++i] ?? '');
    else if (arg === '--commit') commit = argv[++i];
    else wanted.push(arg);
  }
  const all = templateNames();
  const unknown = wanted.filter((base) => !all.includes(base));
  if (unknown.length > 0) {
    process.stderr.write(`no template ${unknown.join(', ')} (templates: ${all.join(', ')})\n`);
    return 2;
  }
  mkdirSync(out, { recursive: true });
  let failed = 0;
  for (const base of wanted.length > 0 ? wanted : all) {
    const started = Date.now();
    const capture = await captureTemplate(base);
    const calls = capture.requests.reduce((sum, r) => sum + r.count, 0);
    if (capture.status !== 'succeeded' || capture.error) {
      failed++;
      process.stderr.write(`${base}: ${capture.status}: ${capture.error} (not written)\n`);
      continue;
    }
    const file = goldenPath(base, out);
    const old = existsSync(file)
      ? (JSON.parse(readFileSync(file, 'utf8')) as WireCapture)
      : undefined;
    const same = old && canonicalJson(old.requests) === canonicalJson(capture.requests);
    const counted = `${calls} requests (${capture.requests.length} distinct) in ${Date.now() - started} ms`;
    // An unchanged list keeps its file, and so the commit it was first captured at.
    if (same && commit === undefined) {
      process.stderr.write(`${base}: ${counted}, as ${path.relative(ROOT, file)} says\n`);
      continue;
    }
    writeFileSync(file, goldenText(capture, commit ?? currentCommit()));
    process.stderr.write(`${base}: ${counted} → ${path.relative(ROOT, file)}\n`);
  }
  return failed > 0 ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await cli(process.argv.slice(2));
}
