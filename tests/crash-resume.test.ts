/**
 * Crash safety, end to end: `society run` is killed with SIGKILL at random moments while a
 * 100+-call society talks to an OpenAI-compatible server; each time `society resume` must
 * finish the run with no lost or duplicated event, the same outputs as an uninterrupted run,
 * and no second payment for a call the run had already made.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../app/node-sdk/random.ts';
import { eventIdentity } from '../app/runtime/engine.ts';
import { openRunStore } from '../app/store/index.ts';
import { society, societyHere } from './support/cli.ts';
import { stormCalls, stormSociety } from './support/storm.ts';
import { startStubOpenAI } from './support/stub-openai.ts';

const BIN = fileURLToPath(new URL('../bin/society.js', import.meta.url));
const ROUNDS = 10;
const MEMBERS = 10;
const CALLS = stormCalls({ rounds: ROUNDS, members: MEMBERS });

/** An organizer who reads the whole transcript, ten members, ten rounds, a leader. */
const doc = stormSociety({
  name: 'crash test society',
  rounds: ROUNDS,
  members: MEMBERS,
  settings: { concurrency: { default: 4 }, seed: 7 },
});

let stub: Awaited<ReturnType<typeof startStubOpenAI>>;
let dir: string;
let file: string;

beforeAll(async () => {
  // Answers depend only on the prompt, as a deterministic model's would.
  stub = await startStubOpenAI({
    latencyMs: 8,
    respond: (body) => {
      const text = JSON.stringify(body.messages);
      let h = 0;
      for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) >>> 0;
      return {
        text: `answer ${h.toString(36)}`,
        usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
      };
    },
  });
  // The kills are process crashes, not power cuts: what must survive is what SQLite committed
  // before the process died, which a memory-backed folder keeps as well as a disk. It spares
  // the test the disk's flushes (one per paid answer), a third of each run on a busy machine.
  dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'society-crash-'));
  file = join(dir, 'society.json');
  writeFileSync(file, JSON.stringify(doc));
});
afterAll(() => {
  stub.close();
  rmSync(dir, { recursive: true, force: true });
});

const args = (db: string) => ['--db', db, '--provider', `openai=${stub.url}`, '--json', '-q'];

function identitiesOf(db: string, runId: string) {
  const store = openRunStore(db);
  try {
    const events = store.events(runId);
    return {
      events,
      identities: events.map((e) => eventIdentity(e)).filter((x): x is string => !!x),
    };
  } finally {
    store.close();
  }
}

/**
 * Starts `society run` and SIGKILLs it once the stub has answered `calls` more requests (checked
 * every 2 ms, so the kill falls anywhere between two answers); resolves with how it ended.
 */
function runAndKill(db: string, calls: number): Promise<{ killed: boolean; code: number | null }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete env.OPENAI_API_KEY;
    const target = stub.count() + calls;
    const child = spawn(process.execPath, [BIN, 'run', file, '--input', 'topic=tea', ...args(db)], {
      env,
      stdio: 'ignore',
    });
    const timer = setInterval(() => {
      if (stub.count() >= target) child.kill('SIGKILL');
    }, 2);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearInterval(timer);
      resolve({ killed: signal === 'SIGKILL', code });
    });
  });
}

describe('a run killed at any moment', () => {
  it('resumes to the same result, 20 times, with no lost, duplicated or repaid call', {
    timeout: 240_000,
  }, async () => {
    // The uninterrupted run everything is compared with.
    const referenceDb = join(dir, 'reference.db');
    const started = Date.now();
    const reference = await society(['run', file, '--input', 'topic=tea', ...args(referenceDb)]);
    const duration = Date.now() - started;
    expect(reference.code).toBe(0);
    const expected = JSON.parse(reference.stdout);
    expect(expected.usage.calls).toBe(CALLS);
    expect(CALLS).toBeGreaterThanOrEqual(100);
    const referenceIds = new Set(identitiesOf(referenceDb, expected.runId).identities);

    const random = seededRandom('crash-resume');
    let killedMidRun = 0;
    let servedFromRecord = 0;
    // Kills that land before the run starts or after it ends prove nothing; the kill waits for
    // a number of answered calls rather than a time, so it falls mid-run however loaded the
    // machine is. The test keeps killing, up to 40 times, until 20 kills have landed mid-run.
    for (let i = 0; i < 40 && killedMidRun < 20; i++) {
      const db = join(dir, `crash-${i}.db`);
      // Anywhere from the first answer to the last.
      const after = 1 + Math.floor(random() * (CALLS - 1));
      const { killed } = await runAndKill(db, after);
      const store = openRunStore(db);
      const [run] = store.listRuns();
      store.markInterrupted();
      const interrupted = run ? store.getRun(run.id) : undefined;
      const answered = run
        ? store.callRecord(run.id).entries.reduce((n, e) => n + e.responses.length, 0)
        : 0;
      store.close();
      if (!run || !killed || interrupted?.status !== 'interrupted') continue; // killed before the run began, or after it ended
      killedMidRun++;
      expect(interrupted.status, `kill ${i} after ${after} calls`).toBe('interrupted');

      const before = stub.count();
      // Resumed through the same main in this process: the kill needs a process, the resume not.
      const resumed = await societyHere(['resume', run.id, ...args(db)]);
      expect(resumed.code, `kill ${i} after ${after} calls: ${resumed.stderr}`).toBe(0);
      const out = JSON.parse(resumed.stdout);
      expect(out.outputs, `kill ${i}`).toEqual(expected.outputs);
      // Calls the run had already made were served from its own record.
      expect(stub.count() - before, `kill ${i}: calls made again`).toBe(CALLS - answered);
      servedFromRecord += answered;

      const { events, identities } = identitiesOf(db, run.id);
      expect(
        events.map((e) => e.seq),
        `kill ${i}: sequence`,
      ).toEqual(events.map((_, k) => k + 1));
      expect(new Set(identities).size, `kill ${i}: duplicated events`).toBe(identities.length);
      expect(new Set(identities), `kill ${i}: lost events`).toEqual(referenceIds);
      expect(events.at(-1)?.type).toBe('run.finished');
    }
    console.info(
      `crash test: ${killedMidRun} kills landed mid-run; resumes served ${servedFromRecord} calls from the runs' records; reference run ${duration} ms`,
    );
    // Most kills must land while the run is going, or the test proves little.
    expect(killedMidRun).toBeGreaterThanOrEqual(12);
  });
});
