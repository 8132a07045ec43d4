/** Errors the API reports to the page. */
import type { ApiProblem } from '../../app/api/contract.ts';
import type { RefusalReason } from '../../app/api/spending-contract.ts';

/**
 * A request the backend refuses or cannot do, with a message meant for the person using the
 * editor (and, for a document that does not compile, its problems). Any other error a handler
 * throws is a bug.
 */
export class ApiError extends Error {
  readonly problems: ApiProblem[] | undefined;
  /** Why a run was refused, when the page can offer a way forward (see RefusalReason). */
  readonly reason: RefusalReason | undefined;
  constructor(message: string, problems?: ApiProblem[], reason?: RefusalReason) {
    super(message);
    this.name = 'ApiError';
    this.problems = problems;
    this.reason = reason;
  }
}
