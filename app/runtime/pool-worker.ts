/**
 * A worker thread of the pool (thread-pool.ts): does what it is sent, one job at a time, and
 * answers with the value or the error. A job renders a template, or runs a node's pure task
 * (compute.ts), imported from the module that defines it. It holds no state between jobs but
 * the template module's cache of parsed templates and the task modules it has imported.
 */
import { parentPort } from 'node:worker_threads';
import { isComputeTask } from '../node-sdk/compute.ts';
import {
  renderTemplate,
  TemplateError,
  TemplateLimitError,
  type TemplateLimits,
} from '../node-sdk/template.ts';
import type { PoolFailure, PoolReply, PoolRequest } from './thread-pool.ts';

const port = parentPort;
if (!port) throw new Error('pool-worker.ts runs as a worker thread');

port.on('message', async (message: PoolRequest & { id: number }) => {
  let reply: PoolReply;
  try {
    reply = { id: message.id, value: await run(message) };
  } catch (error) {
    reply = { id: message.id, error: describe(error) };
  }
  port.postMessage(reply);
});
port.postMessage({ ready: true });

async function run(request: PoolRequest): Promise<unknown> {
  if (request.kind === 'render') {
    return renderTemplate(request.template, request.vars, request.limits as TemplateLimits);
  }
  // Tasks come from the engine's own node folders, never from a document: only local modules.
  if (!request.module.startsWith('file:')) throw new Error('a task module is a local file');
  const task = ((await import(request.module)) as Record<string, unknown>)[request.name];
  if (!isComputeTask(task)) throw new Error(`no task "${request.name}" in its module`);
  return task.run(request.input);
}

function describe(error: unknown): PoolFailure {
  if (error instanceof TemplateLimitError) {
    return { message: error.message, limit: error.limit, value: error.value, what: error.what };
  }
  if (error instanceof TemplateError) return { message: error.message };
  // A task's own failure is about its input (the document); anything else is a bug of ours:
  // the message, never a stack.
  return { message: error instanceof Error ? error.message : String(error), internal: true };
}
