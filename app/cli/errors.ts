/**
 * How a `society` command ends early. Exit codes are stable (scripts rely on them): 0 success,
 * 1 the run failed, 2 invalid arguments or document. Errors are one readable line each.
 */

export const EXIT = { ok: 0, runFailed: 1, invalid: 2 } as const;

/** Raised to end the command with an exit code after printing `message`. */
export class Exit extends Error {
  readonly code: number;
  constructor(code: number, message = '') {
    super(message);
    this.code = code;
  }
}

/** A bad argument or unusable file: printed as `society: <message>`, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
