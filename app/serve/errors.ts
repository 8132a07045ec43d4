/**
 * The one way a request is refused: a status and a message, with the request field it is about.
 * The server answers it as `{ error: { message, field } }`; any other error is a 500 whose body
 * says nothing of its cause (no stack, no path).
 */
export class HttpError extends Error {
  readonly status: number;
  readonly field: string | undefined;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    message: string,
    field?: string,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = status;
    this.field = field;
    this.headers = headers;
  }
}
