/**
 * Replies for the stub OpenAI server that go wrong the way real servers and proxies do: an HTML
 * error page, JSON cut short, an event stream that breaks off, a connection reset, a body far
 * larger than any answer, a server that never answers.
 */
import type { ServerResponse } from 'node:http';
import type { StubFaultReply, StubRawReply } from './stub-openai.ts';

/** A proxy's error page, sent with the status a proxy would use (200 for a captive portal). */
export function htmlPage(status = 200): StubRawReply {
  return {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body: '<!DOCTYPE html>\n<html><head><title>Gateway</title></head>\n<body><h1>Upstream unavailable</h1></body></html>\n',
  };
}

/** A completion whose JSON stops half-way. */
export function brokenJson(): StubRawReply {
  return {
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: '{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assis',
  };
}

/** One chunk of a chat completion stream, as a server-sent event. */
function streamChunk(content: string, finishReason: string | null = null): string {
  const chunk = {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'stub-model',
    choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: finishReason }],
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** An event stream that sends a word, then half an event, then drops the connection. */
export function cutStream(): StubFaultReply {
  return {
    fault: (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(streamChunk('Hello'));
      res.write('data: {"id":"chatcmpl-1","object":"chat.comp');
      setTimeout(() => res.socket?.destroy(), 20);
    },
  };
}

/** An event stream whose second event is cut short, the server then ending it cleanly. */
export function garbledStream(): StubFaultReply {
  return {
    fault: (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(streamChunk('Hello'));
      res.end('data: {"id":"chatcmpl-1","object":"chat.comp\n\n');
    },
  };
}

/** An event stream that ends cleanly part-way: no finish reason, no [DONE]. */
export function unfinishedStream(): StubFaultReply {
  return {
    fault: (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(streamChunk('Hel'));
    },
  };
}

/** The connection closes before a byte of the answer is sent. */
export function resetConnection(): StubFaultReply {
  return { fault: (res) => res.socket?.destroy() };
}

/** A server that takes the request and never answers. */
export function hang(): StubFaultReply {
  return { fault: () => {} };
}

/**
 * A body of `mebibytes` MiB (200 by default), sent as fast as the client reads it: one JSON
 * completion with a huge text, or an event stream of 1 MiB deltas. `sent()` tells how much
 * actually went out before the client hung up.
 */
export function hugeAnswer(
  stream: boolean,
  mebibytes = 200,
): StubFaultReply & { sent: () => number } {
  let sent = 0;
  const block = 'x'.repeat(1024 * 1024);
  return {
    sent: () => sent,
    fault: (res: ServerResponse) => {
      res.writeHead(200, {
        'content-type': stream ? 'text/event-stream' : 'application/json',
      });
      if (!stream)
        res.write(
          '{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"',
        );
      const pump = () => {
        while (sent < mebibytes && !res.destroyed) {
          sent++;
          if (!res.write(stream ? streamChunk(block) : block)) {
            res.once('drain', pump);
            return;
          }
        }
        if (res.destroyed) return;
        res.end(
          stream
            ? `${streamChunk('', 'stop')}data: [DONE]\n\n`
            : '"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}',
        );
      };
      pump();
    },
  };
}
