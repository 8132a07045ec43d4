/**
 * A worker thread of the template pool (template-pool.ts): renders what it is sent, one render
 * at a time, and answers with the text or the error. It holds no state between renders but the
 * template module's cache of parsed templates.
 */
import { parentPort } from 'node:worker_threads';
import {
  renderTemplate,
  TemplateError,
  TemplateLimitError,
  type TemplateLimits,
} from '../node-sdk/template.ts';
import type { RenderReply } from './template-pool.ts';

interface RenderRequest {
  id: number;
  template: string;
  vars: Record<string, unknown>;
  limits: TemplateLimits;
}

const port = parentPort;
if (!port) throw new Error('template-worker.ts runs as a worker thread');

port.on('message', ({ id, template, vars, limits }: RenderRequest) => {
  let reply: RenderReply;
  try {
    reply = { id, text: renderTemplate(template, vars, limits) };
  } catch (error) {
    reply = { id, error: describe(error) };
  }
  port.postMessage(reply);
});
port.postMessage({ ready: true });

function describe(error: unknown): NonNullable<RenderReply['error']> {
  if (error instanceof TemplateLimitError) {
    return { message: error.message, limit: error.limit, value: error.value, what: error.what };
  }
  if (error instanceof TemplateError) return { message: error.message };
  // Not the template's fault (a bug of ours): the message, never a stack.
  return { message: error instanceof Error ? error.message : String(error), internal: true };
}
