/** Errors the API reports to the page. */
import type { ApiProblem } from '../../app/api/contract.ts';

/**
 * A request the backend refuses or cannot do, with a message meant for the person using the
 * editor (and, for a document that does not compile, its problems). Any other error a handler
 * throws is a bug.
 */
export class ApiError extends Error {
  readonly problems: ApiProblem[] | undefined;
  constructor(message: string, problems?: ApiProblem[]) {
    super(message);
    this.name = 'ApiError';
    this.problems = problems;
  }
}
