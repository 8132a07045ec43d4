/**
 * What lets a worker trust a job and a coordinator trust a result: a secret shared by the
 * coordinator and its workers (`SOCIETY_QUEUE_SECRET`, or the file `--queue-secret-file` names)
 * and an HMAC-SHA256 over each payload in a canonical form. Redis is a shared place anyone with
 * its password can write to; without the secret, what they write is refused, never run.
 *
 * There is no default secret and none is made up: a worker without one would have to run
 * whatever Redis holds, and one made up on the spot would have to be copied to every machine
 * anyway. So `--queue` without a secret is refused, saying how to make one.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';

/** The environment variable holding the queue's shared secret. */
export const SECRET_ENV = 'SOCIETY_QUEUE_SECRET';
/** Shorter secrets are refused: they could be guessed. */
export const MIN_SECRET_LENGTH = 16;

/** How to make a secret, for messages. */
export const MAKE_SECRET = 'openssl rand -hex 32 > queue.secret';

/**
 * The queue's secret: the contents of `file` (trailing whitespace dropped) when given, else
 * `SOCIETY_QUEUE_SECRET`. Throws one line naming what to do; never says the secret.
 */
export function loadQueueSecret(
  file: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string {
  let secret: string | undefined;
  let from: string;
  if (file !== undefined) {
    from = `--queue-secret-file ${file}`;
    try {
      if (!statSync(file).isFile()) throw new Error('not a file');
      secret = readFileSync(file, 'utf8').trim();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new Error(`${from}: cannot read it (${code ?? (error as Error).message})`);
    }
  } else {
    from = SECRET_ENV;
    secret = env[SECRET_ENV]?.trim();
    if (!secret)
      throw new Error(
        `--queue needs the secret the coordinator and its workers share: set ${SECRET_ENV} or give --queue-secret-file FILE, the same everywhere (make one with: ${MAKE_SECRET})`,
      );
  }
  if (secret.length < MIN_SECRET_LENGTH)
    throw new Error(
      `${from}: the queue secret is shorter than ${MIN_SECRET_LENGTH} characters (make one with: ${MAKE_SECRET})`,
    );
  return secret;
}

/**
 * JSON with every object's keys in order, so the same payload signs the same on any machine
 * whatever order its fields were written in. `undefined` fields are left out, as JSON does.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const fields = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${fields.join(',')}}`;
}

/** The field a signed payload carries its signature in. */
export const SIGNATURE_FIELD = 'sig';

/**
 * `payload` with its signature added. `purpose` ('job', 'result') is signed in too, so a
 * result can never pass for a job, nor a job for a result.
 */
export function sign<T extends object>(
  payload: T,
  secret: string,
  purpose: string,
): T & { sig: string } {
  return { ...payload, [SIGNATURE_FIELD]: mac(payload, secret, purpose) } as T & { sig: string };
}

/**
 * Checks `data`'s signature in constant time. Returns why it is refused, or undefined when
 * the signature is good.
 */
export function signatureProblem(
  data: unknown,
  secret: string,
  purpose: string,
): string | undefined {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return 'not a signed payload';
  const { [SIGNATURE_FIELD]: given, ...payload } = data as Record<string, unknown>;
  if (typeof given !== 'string' || given === '')
    return `unsigned (no ${SIGNATURE_FIELD}: it was not queued with this queue's secret)`;
  const expected = Buffer.from(mac(payload, secret, purpose), 'hex');
  const actual = Buffer.from(given, 'hex');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected))
    return "mis-signed (its signature does not match this queue's secret and its contents)";
  return undefined;
}

function mac(payload: object, secret: string, purpose: string): string {
  return createHmac('sha256', secret)
    .update(`society-queue/${purpose}/v1\n`)
    .update(canonicalJson(payload))
    .digest('hex');
}
