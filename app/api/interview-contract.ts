/**
 * The interview half of the API contract (spread into app/api/contract.ts): a question put to one
 * member of a run in its own context at a call, answered by the member's model profile through
 * the backend's providers (the page never sees a key), and kept as a side call apart from the run.
 */
import { z } from 'zod';

/** One side call (app/store/tables/interviews.ts `InterviewRecord`). */
const Interview = z.object({
  id: z.number(),
  runId: z.string(),
  /** The instance asked (`member#2@r3`). */
  instance: z.string(),
  /** The call whose context the question was asked in. */
  callId: z.string(),
  atSeq: z.number(),
  question: z.string(),
  answer: z.string(),
  profile: z.string(),
  provider: z.string(),
  model: z.string(),
  /** The answer was made up by the simulated provider. */
  simulated: z.boolean(),
  promptTokens: z.number(),
  completionTokens: z.number(),
  askedAt: z.number(),
});
export type ApiInterview = z.infer<typeof Interview>;

export const interviewContract = {
  /**
   * Asks `instance` (`member#2@r3`: its call in that round; `member#2`: its latest) a question in
   * its context then, as `society interview` does, of a running (held) or a stored run. A run
   * answered by the simulator or a cassette is interviewed with the simulator, labelled.
   */
  'run.interview': {
    params: z.strictObject({
      runId: z.string().min(1).max(200),
      instance: z.string().min(1).max(200),
      question: z.string().trim().min(1, 'write a question').max(20_000),
    }),
    result: Interview,
  },
  /** A run's side calls (questions put to its members), oldest first. */
  'run.interviews': {
    params: z.object({ runId: z.string().min(1).max(200) }),
    result: z.array(Interview),
  },
};
