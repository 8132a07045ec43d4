/**
 * A failed run continues: the server starts refusing after a number of answers, the run fails
 * and its last line names `society resume RUN`; with the server healthy again, `society resume`
 * sends only the calls not yet answered (counted on the server) and ends with the outputs of an
 * unbroken run, in a new run that forks the failed one at the failure and whose log has no trace
 * of it. The summary line and `society runs --json` say what each run was and cost.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventIdentity } from '../app/runtime/engine.ts';
import type { RunEvent } from '../app/runtime/events.ts';
import { openRunStore } from '../app/store/index.ts';
import { societyHere } from './support/cli.ts';
import { stormCalls, stormSociety } from './support/storm.ts';
import { type StubOpenAI, startStubOpenAI, stubError } from './support/stub-openai.ts';

const ROUNDS = 2;
const MEMBERS = 2;
const CALLS = stormCalls({ rounds: ROUNDS, members: MEMBERS });

/** An organizer, two members over two rounds, and a leader who decides. */
const doc = stormSociety({
  name: 'resume after failure',
  rounds: ROUNDS,
  members: MEMBERS,
  settings: { concurrency: { default: 2 }, seed: 3, retry: { attempts: 1 } },
});

let stub: StubOpenAI;
/** The server refuses every request once it has answered this many (Infinity: healthy). */
let answerLimit = Number.POSITIVE_INFINITY;
let answered = 0;
let dir: string;
let file: string;

beforeAll(async () => {
  // Answers depend only on the prompt, as a deterministic model's would.
  stub = await startStubOpenAI({
    respond: (body) => {
      if (answered >= answerLimit)
        return stubError(401, 'Incorrect API key provided', { code: 'invalid_api_key' });
      answered++;
      const text = JSON.stringify(body.messages);
      let h = 0;
      for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) >>> 0;
      return {
        text: `answer ${h.toString(36)}`,
        usage: { prompt_tokens: 10, completion_tokens: 3 },
      };
    },
  });
  dir = mkdtempSync(join(tmpdir(), 'society-resume-failed-'));
  file = join(dir, 'society.json');
  writeFileSync(file, JSON.stringify(doc));
});
afterAll(async () => {
  await stub.close();
  rmSync(dir, { recursive: true, force: true });
});

const runArgs = (db: string) => [
  '--db',
  db,
  '--provider',
  `openai=${stub.url}`,
  '-q',
  '--input',
  'topic=tides',
];

function storedRun(db: string, id: string) {
  const store = openRunStore(db);
  try {
    return { run: store.getRun(id)!, events: store.events(id) };
  } finally {
    store.close();
  }
}

/** An unbroken run of the document: its outputs and its log, made once. */
let reference: Promise<{ outputs: Record<string, unknown>; events: RunEvent[] }> | undefined;
function unbrokenRun() {
  reference ??= (async () => {
    answerLimit = Number.POSITIVE_INFINITY;
    const db = join(dir, 'unbroken.db');
    const unbroken = await societyHere(['run', file, ...runArgs(db), '--json']);
    expect(unbroken.code, unbroken.stderr).toBe(0);
    const result = JSON.parse(unbroken.stdout) as {
      outputs: Record<string, unknown>;
      runId: string;
      cost: { usd: number; sentCalls: number };
    };
    expect(result.cost.sentCalls).toBe(CALLS);
    return { outputs: result.outputs, events: storedRun(db, result.runId).events };
  })();
  return reference;
}

describe('society resume of a failed run', () => {
  // Mid-loop (round 1 and the second organizer answered, round 2's members refused), and at
  // the last node (the leader refused).
  it.each([
    { limit: 4, at: 'member' },
    { limit: CALLS - 1, at: 'leader' },
  ])(
    'failed at $at after $limit answers: sends only the rest and ends as an unbroken run would',
    async ({ limit, at }) => {
      const { outputs: expectedOutputs, events: expected } = await unbrokenRun();
      const db = join(dir, `failing-${limit}.db`);
      answered = 0;
      answerLimit = limit;
      const failed = await societyHere(['run', file, ...runArgs(db)]);
      expect(failed.code).toBe(1);
      const lines = failed.stderr.trimEnd().split('\n');
      const summary = new RegExp(
        `^failed · run (\\w+) · live · ${limit} calls · ${limit * 13} tokens · \\$0\\.\\d{4}$`,
      );
      const [, failedId] = summary.exec(lines.at(-2) ?? '') ?? [undefined, ''];
      expect(failedId, failed.stderr).toMatch(/^[0-9a-f]{16}$/);
      expect(lines.at(-1)).toMatch(new RegExp(`^society: node "${at}".*Incorrect API key`));
      expect(
        lines.at(-1)?.endsWith(` — fix the cause, then: society resume ${failedId} --db ${db}`),
      ).toBe(true);

      // Healthy again: only what the record lacks goes over the wire.
      answerLimit = Number.POSITIVE_INFINITY;
      const before = stub.count();
      const resumed = await societyHere([
        'resume',
        failedId!,
        '--db',
        db,
        '--provider',
        `openai=${stub.url}`,
        '-q',
        '--json',
      ]);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(stub.count() - before).toBe(CALLS - limit);
      expect(resumed.stderr).toMatch(
        new RegExp(
          `^society: run \\w+ continues failed run ${failedId}; ${limit} answered calls come from its record, the rest are sent`,
        ),
      );
      const result = JSON.parse(resumed.stdout) as {
        status: string;
        runId: string;
        outputs: Record<string, unknown>;
        usage: { calls: number };
        cost: { sentCalls: number; recordedCalls: number };
      };
      expect(result.status).toBe('succeeded');
      expect(result.outputs).toEqual(expectedOutputs);
      expect(result.usage.calls).toBe(CALLS);
      expect(result.cost).toMatchObject({ sentCalls: CALLS - limit, recordedCalls: limit });

      // The failed run stays as it ended; the continuation forks it and its log is an unbroken one.
      expect(result.runId).not.toBe(failedId);
      const parent = storedRun(db, failedId!);
      expect(parent.run.status).toBe('failed');
      const child = storedRun(db, result.runId);
      expect(child.run.parentRunId).toBe(failedId);
      expect(child.events.some((e) => e.type === 'node.failed' || e.type === 'model.error')).toBe(
        false,
      );
      expect(child.events.map((e) => e.seq)).toEqual(child.events.map((_, i) => i + 1));
      const identities = child.events.map((e) => eventIdentity(e)).filter(Boolean);
      expect(new Set(identities).size).toBe(identities.length);
      expect(new Set(identities)).toEqual(
        new Set(expected.map((e) => eventIdentity(e)).filter(Boolean)),
      );

      // A succeeded run has nothing to continue; the terminal says which command runs it again.
      const again = await societyHere(['resume', result.runId, '--db', db]);
      expect(again.code).toBe(2);
      expect(again.stderr).toBe(
        `society: run ${result.runId} succeeded; there is nothing to continue (\`society fork ${result.runId} --at SEQ\` runs it again from a point)\n`,
      );

      // The listing as JSON: both runs, what each was and cost.
      const listed = await societyHere(['runs', '--db', db, '--json']);
      expect(listed.code).toBe(0);
      const runs = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
      expect(runs.map((r) => [r.id, r.status, r.mode, r.calls])).toEqual([
        [result.runId, 'succeeded', 'replay-then-live', CALLS],
        [failedId, 'failed', 'live', limit],
      ]);
      expect(runs[0]).toMatchObject({ document: 'resume after failure', parentRunId: failedId });
      for (const r of runs) {
        expect(typeof r.costUsd).toBe('number');
        expect(Date.parse(r.startedAt as string)).toBeGreaterThan(0);
        expect(Date.parse(r.endedAt as string)).toBeGreaterThanOrEqual(
          Date.parse(r.startedAt as string),
        );
      }
    },
  );
});
