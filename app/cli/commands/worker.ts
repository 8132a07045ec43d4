/**
 * `society worker --queue redis://HOST:PORT`: runs eval jobs queued by `society eval --queue`
 * and served runs handed over by `society serve --queue` until stopped (Ctrl-C or SIGTERM: running jobs finish first; a second signal stops at once,
 * and those jobs are taken over by another worker). One line per job it runs.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectRedis, parseQueueUrl, queueTimings } from '../../eval/queue/connection.ts';
import { formatRate, parseRates } from '../../eval/queue/rate-limit.ts';
import { loadQueueSecret } from '../../eval/queue/trust.ts';
import { EXIT, UsageError } from '../errors.ts';
import { parseProviders } from '../provider-flags.ts';
import { processRedactor } from '../redaction.ts';
import { openStore, storedOverrides } from '../run-store.ts';

export interface WorkerFlags {
  queue: string;
  concurrency?: string;
  db?: string;
  rate: string[];
  /** `--provider NAME=URL[,key=VAR]`: profiles of this worker, over its store's. */
  provider?: string[];
  queueSecretFile?: string;
}

/** Runs jobs until a signal; resolves to the exit code. */
export async function workerCommand(flags: WorkerFlags): Promise<number> {
  const concurrency = Number(flags.concurrency ?? 4);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new UsageError('--concurrency must be a whole number ≥ 1');
  let address: ReturnType<typeof parseQueueUrl>;
  let rates: ReturnType<typeof parseRates>;
  let secret: string;
  try {
    address = parseQueueUrl(flags.queue);
    rates = parseRates(flags.rate);
    secret = loadQueueSecret(flags.queueSecretFile);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  processRedactor.add([secret]);
  // Learns each profile's key variable now, before any job: the redactor must know every key
  // a run here may send.
  const given = parseProviders(flags.provider ?? []);
  // Checked first, before anything heavy loads: a wrong address is one line at once.
  let redis: Awaited<ReturnType<typeof connectRedis>>;
  try {
    redis = await connectRedis(address);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  // Without --db the runs go to a store of this process's own, removed when it stops: the
  // coordinator keeps them. In memory-backed /dev/shm where there is one: its syncs cost nothing.
  const scratch = flags.db
    ? undefined
    : mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'society-worker-'));
  const store = openStore(flags.db ?? join(scratch!, 'runs.db'));
  const { startEvalWorker } = await import('../../eval/queue/worker.ts');
  try {
    // The worker's own profiles: its store's, and those it was started with.
    const providerOverrides = { ...storedOverrides(store), ...given };
    let worker: Awaited<ReturnType<typeof startEvalWorker>>;
    try {
      worker = await startEvalWorker({
        address,
        redis,
        concurrency,
        store,
        providerOverrides,
        secret,
        rates,
        log: (line) => process.stdout.write(`${line}\n`),
      });
    } catch (error) {
      redis.disconnect();
      throw new UsageError((error as Error).message);
    }
    const { lockMs, stalledCheckMs } = queueTimings();
    const limits = Object.entries(rates).map(([p, r]) => `${p} ${formatRate(r)}`);
    const profiles = Object.keys(providerOverrides);
    process.stderr.write(
      `worker ${worker.name}: taking eval jobs and served runs from ${address.shown}, ${concurrency} of each at a time${limits.length ? ` · rate ${limits.join(', ')}` : ''}${profiles.length ? ` · own profiles ${profiles.join(', ')}` : ''} · a stopped worker's job is taken over within ${Math.round((lockMs + stalledCheckMs) / 1000)} s · Ctrl-C stops\n`,
    );
    await new Promise<void>((resolve) => {
      let signals = 0;
      const stop = () => {
        signals++;
        if (signals === 1) {
          const running = worker.running();
          process.stderr.write(
            `\nworker: stopping${running ? `; ${running} running job${running === 1 ? '' : 's'} finish first (again to stop now: another worker takes them over)` : ''}\n`,
          );
          worker.close().then(resolve, resolve);
        } else worker.close(true).then(resolve, resolve);
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    return EXIT.ok;
  } finally {
    store.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}
