/**
 * `society interview RUN MEMBER@ROUND "QUESTION"`: asks a member of a stored run a question in
 * its context at that point, through the provider its calls used, and records the question and
 * answer as a side call of the run (never an event or a call of the run itself).
 * `society interview RUN --list` prints the run's interviews.
 */
import { compileGraph } from '../../../compiler/index.ts';
import { loadNodeRegistry } from '../../../node-sdk/registry.ts';
import { answersSimulated } from '../../../runs/continue.ts';
import {
  describeInterview,
  InterviewError,
  interview,
  parseInterviewTarget,
} from '../../../runs/interview.ts';
import { terminalText } from '../../../terminal/terminal-text.ts';
import { problemsExit } from '../../document-file.ts';
import { EXIT, UsageError } from '../../errors.ts';
import { parseProviders } from '../../provider-flags.ts';
import { findRun, openStore, storedOverrides } from '../../run-store.ts';

export interface InterviewFlags {
  list?: boolean;
  simulate?: boolean;
  provider: string[];
  json?: boolean;
  db?: string;
}

/** Asks, or lists, a run's interviews. Resolves to the exit code. */
export async function interviewCommand(
  id: string,
  member: string | undefined,
  question: string | undefined,
  flags: InterviewFlags,
): Promise<number> {
  if (!flags.list && (!member || !question?.trim()))
    throw new UsageError(
      'interview takes a member and a question, e.g. society interview RUN member#2@r3 "why?" (or --list)',
    );
  const overrides = parseProviders(flags.provider ?? []);
  const store = openStore(flags.db);
  try {
    const run = findRun(store, id);
    if (flags.list) {
      const records = store.interviews.ofRun(run.id);
      if (flags.json) process.stdout.write(`${JSON.stringify(records)}\n`);
      else if (records.length === 0) process.stdout.write(`run ${run.id} has no interviews\n`);
      else process.stdout.write(`${terminalText(records.map(describeInterview).join('\n\n'))}\n`);
      return EXIT.ok;
    }
    const compiled = await compileGraph(run.documentText, await loadNodeRegistry());
    if (!compiled.ok) throw problemsExit(`run ${run.id}`, compiled.problems);
    const target = parseInterviewTarget(member ?? '');
    const blob = (hash: string) => store.getBlob(hash);
    let record: Awaited<ReturnType<typeof interview>>;
    try {
      record = await interview(
        { runId: run.id, events: store.events(run.id), doc: compiled.doc, store, blob },
        target.member,
        target.at,
        question ?? '',
        {
          // A run answered by the simulator (or a cassette) is interviewed the same way.
          simulate: answersSimulated(run, flags.simulate === true) || run.mode === 'replay',
          providerOverrides: { ...storedOverrides(store), ...overrides },
        },
      );
    } catch (error) {
      if (error instanceof InterviewError) throw new UsageError(error.message);
      throw error;
    }
    process.stdout.write(
      flags.json ? `${JSON.stringify(record)}\n` : `${terminalText(describeInterview(record))}\n`,
    );
    return EXIT.ok;
  } finally {
    store.close();
  }
}
