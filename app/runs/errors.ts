/** How the run-record library says no. */

/**
 * A stored run cannot be used as asked: an instance it does not have, a fork point out of
 * range, images the store lacks. The message is one line for the person who asked; the CLI
 * prints it and exits 2, the API answers it as a refusal.
 */
export class RunsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunsError';
  }
}
