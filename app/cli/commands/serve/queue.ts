/**
 * `society serve --queue URL`: served runs go to `society worker` processes through Redis, the
 * workers evals use. The flags are checked before anything is opened, Redis is reached once at
 * start (one line and exit 2 when it cannot be), and a document that would put a key into Redis
 * is refused (at start, and when an edit brings one).
 */
import { parseQueueUrl, type QueueAddress } from '../../../eval/queue/connection.ts';
import { loadQueueSecret } from '../../../eval/queue/trust.ts';
import type { ServedSociety } from '../../../serve/catalog.ts';
import type { RunExecutor } from '../../../serve/runs.ts';
import type { RunStore } from '../../../store/index.ts';
import { terminalText } from '../../../terminal/terminal-text.ts';
import { UsageError } from '../../errors.ts';
import { KEY_ADVICE, keyShapedIn } from '../../key-shaped.ts';
import { processRedactor } from '../../redaction.ts';

/** What `--queue` and `--queue-secret-file` say, checked. */
export interface ServeQueue {
  address: QueueAddress;
  secret: string;
}

/** Reads the queue flags (a usage error names the flag); undefined without `--queue`. */
export function checkServeQueueFlags(flags: {
  queue?: string;
  queueSecretFile?: string;
  allowHost?: string[];
}): ServeQueue | undefined {
  if (flags.queue === undefined) {
    if (flags.queueSecretFile !== undefined)
      throw new UsageError('--queue-secret-file needs --queue');
    return undefined;
  }
  if (flags.allowHost?.length)
    throw new UsageError(
      '--allow-host applies to runs in this process: a worker contacts only the origins its own store allows (society hosts --allow ORIGIN --db WORKER_DB)',
    );
  try {
    const address = parseQueueUrl(flags.queue);
    const secret = loadQueueSecret(flags.queueSecretFile);
    processRedactor.add([secret]);
    return { address, secret };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** A served document is written into Redis with each run: one holding a key is refused. */
export function refuseKeyShapedSociety(society: ServedSociety): void {
  const holding = keyShapedIn(society.compiled.source);
  if (holding)
    throw new UsageError(
      `--queue: ${society.file} holds what looks like a key at ${holding}; its runs would carry it into Redis. ${KEY_ADVICE}`,
    );
}

/** The executor handing runs to the queue's workers; `cannot reach Redis at …` is exit 2. */
export async function servedQueueExecutor(
  queue: ServeQueue,
  store: RunStore,
  options: { simulate: boolean; profiles: string[] },
): Promise<RunExecutor> {
  if (options.profiles.length)
    process.stderr.write(
      `society: workers reach ${options.profiles.join(', ')} through their own profiles of that name: start each worker with the same --provider (society worker --provider NAME=URL[,key=VAR]); a worker without it refuses the run\n`,
    );
  // BullMQ loads only for a server with a queue.
  const { queuedExecutor } = await import('../../../serve/queued.ts');
  try {
    return await queuedExecutor({
      address: queue.address,
      store,
      secret: queue.secret,
      simulate: options.simulate,
      profiles: options.profiles,
      log: (line) => process.stderr.write(`society: ${terminalText(line)}\n`),
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
