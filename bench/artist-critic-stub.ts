/**
 * The model servers of bench/artist-critic.ts: the stub OpenAI server (tests/support) answering
 * the artists, critics and collector, and the stub Hugging Face server answering the painter,
 * both after the same fixed latency, in a process of their own by default.
 *
 * A real model server runs elsewhere, so its work and its memory are not the engine's: in a
 * child process (the default) the bench's RSS is the engine's alone. `thread` puts both servers
 * on a worker thread of the bench's process instead, as bench/parallel-stub.ts does (its
 * isolate then counts in the RSS); `BENCH_STUB=thread` chooses it.
 *
 * Every answer fills its request's `max_tokens` (four characters a token), so the transcripts
 * and the critics' prompts are as long as the template lets them grow.
 */
import { fork } from 'node:child_process';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { startStubHuggingFace } from '../tests/support/stub-hf.ts';
import { type StubRequestBody, startStubOpenAI } from '../tests/support/stub-openai.ts';
import { epochNow } from './parallel-stub.ts';

/** Where the servers run: a child process, or a worker thread of this process. */
export type ServerPlacement = 'process' | 'thread';

/** One request as the servers saw it, in ms of `epochNow()`. */
export interface ServedRequest {
  server: 'openai' | 'hf';
  arrived: number;
  answered: number;
}

/** What the servers saw, once closed. */
export interface ServersReport {
  served: ServedRequest[];
  /** The most chat requests in flight at once at the OpenAI server. */
  peakConcurrency: number;
}

export interface ArtistCriticServers {
  /** Base URL of the OpenAI-compatible server, ending in /v1. */
  openaiUrl: string;
  /** Base URL of the Hugging Face server. */
  hfUrl: string;
  close(): Promise<ServersReport>;
}

/** A 1×1 PNG: the painter's picture. */
const PICTURE = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

const SENTENCE =
  'A tall white tower stands on dark wet rocks while the first light of the morning breaks the cloud. ';

type Message = { role?: string; content?: unknown };

const textOf = (body: StubRequestBody): string =>
  ((body?.messages ?? []) as Message[])
    .map((m) => (typeof m.content === 'string' ? m.content : ''))
    .join('\n');

/** `chars` characters of prose, cut at a word. */
function prose(prefix: string, chars: number): string {
  let text = prefix;
  while (text.length < chars) text += SENTENCE;
  return text.slice(0, Math.max(prefix.length, chars)).replace(/\s+\S*$/, '.');
}

/**
 * A critic names one of the artists its prompt lists ("<artist>: <proposal>" lines), chosen by
 * its profession so the ballots spread; the questioner asks one question; everyone else speaks
 * for as long as `max_tokens` allows.
 */
function respond(body: StubRequestBody) {
  const text = textOf(body);
  const chars = 4 * (Number(body?.max_tokens) || 100);
  const system = String(((body?.messages ?? []) as Message[])[0]?.content ?? '');
  if (text.includes('Which proposal')) {
    const artists = [...text.matchAll(/^([^:\n]+): /gm)].map((m) => m[1]!);
    return { text: artists[system.length % 7] ?? artists[0] ?? 'none' };
  }
  if (text.includes('Ask one more question')) {
    return { text: `${prose('', chars - 40)} What light falls on the tower?` };
  }
  return { text: prose('', chars) };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  });
}

/** Both servers in this thread. */
async function serve(latencyMs: number): Promise<ArtistCriticServers> {
  const served: ServedRequest[] = [];
  const openai = await startStubOpenAI({
    latencyMs,
    respond: (body) => {
      const answered = epochNow();
      served.push({ server: 'openai', arrived: answered - latencyMs, answered });
      return respond(body);
    },
  });
  const hf = await startStubHuggingFace({
    respond: async (_request, { signal }) => {
      const arrived = epochNow();
      await sleep(latencyMs, signal);
      served.push({ server: 'hf', arrived, answered: epochNow() });
      return { headers: { 'content-type': 'image/png' }, body: PICTURE };
    },
  });
  return {
    openaiUrl: openai.url,
    hfUrl: hf.url,
    close: async () => {
      const report = { served, peakConcurrency: openai.peakConcurrency() };
      await Promise.all([openai.close(), hf.close()]);
      return report;
    },
  };
}

/** A channel to the servers running elsewhere: one message each way at a time. */
interface Channel {
  next(): Promise<unknown>;
  send(message: unknown): void;
  end(): Promise<void>;
}

/** Starts both servers with `latencyMs` of latency, in a child process unless told otherwise. */
export async function startArtistCriticServers(
  latencyMs: number,
  placement: ServerPlacement = 'process',
): Promise<ArtistCriticServers> {
  const channel = placement === 'thread' ? threadChannel(latencyMs) : processChannel(latencyMs);
  const { openaiUrl, hfUrl } = (await channel.next()) as { openaiUrl: string; hfUrl: string };
  return {
    openaiUrl,
    hfUrl,
    close: async () => {
      const report = channel.next();
      channel.send('close');
      const result = (await report) as ServersReport;
      await channel.end();
      return result;
    },
  };
}

function threadChannel(latencyMs: number): Channel {
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { artistCriticServers: true, latencyMs },
  });
  return {
    next: () =>
      new Promise((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      }),
    send: (message) => worker.postMessage(message),
    end: async () => {
      await worker.terminate();
    },
  };
}

function processChannel(latencyMs: number): Channel {
  const child = fork(new URL(import.meta.url), [], {
    env: { ...process.env, BENCH_ARTIST_CRITIC_SERVERS: String(latencyMs) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    next: () =>
      new Promise((resolve, reject) => {
        child.once('message', resolve);
        child.once('error', reject);
      }),
    send: (message) => child.send(message as string),
    end: async () => {
      child.disconnect();
      await exited;
    },
  };
}

if (!isMainThread && workerData?.artistCriticServers === true && parentPort) {
  const port = parentPort;
  const servers = await serve(Number(workerData.latencyMs));
  port.on('message', async () => port.postMessage(await servers.close()));
  port.postMessage({ openaiUrl: servers.openaiUrl, hfUrl: servers.hfUrl });
} else if (isMainThread && process.env.BENCH_ARTIST_CRITIC_SERVERS && process.send) {
  const servers = await serve(Number(process.env.BENCH_ARTIST_CRITIC_SERVERS));
  process.on('message', async () => {
    process.send?.(await servers.close());
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ openaiUrl: servers.openaiUrl, hfUrl: servers.hfUrl });
}
