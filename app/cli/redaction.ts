/**
 * The `society` process's one redactor. It learns every key value the process could send — the
 * fixed key variables, every variable named like a credential, stored providers' key variables
 * and `--provider ...,key=VAR` — and every path out of the process passes through it: the run
 * store (its writes), events files, cassettes, exports, and the terminal (stdout and stderr are
 * scrubbed as they are written, so no printing or error path can forget).
 */
import type { ProfileOverride } from '../providers/profiles.ts';
import { Redactor, secretsIn } from '../providers/secrets.ts';
import type { ProviderProfile } from '../providers/types.ts';

export const processRedactor = new Redactor(secretsIn(process.env));

/** Learns the keys held by the variables these providers read theirs from. */
export function learnProviderKeys(
  providers: Iterable<Pick<ProviderProfile, 'apiKeyEnv'> | ProfileOverride>,
  env: NodeJS.ProcessEnv = process.env,
): void {
  const variables: string[] = [];
  for (const provider of providers) if (provider.apiKeyEnv) variables.push(provider.apiKeyEnv);
  processRedactor.add(secretsIn(env, variables));
}

type Write = NodeJS.WriteStream['write'];

/**
 * Scrubs everything written to `stream` with the process's redactor until the returned function
 * is called. Text and byte chunks alike; a chunk without a key is passed on untouched.
 */
export function redactStream(stream: NodeJS.WriteStream): () => void {
  const original = stream.write;
  const write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
    let clean = chunk;
    if (typeof chunk === 'string') clean = processRedactor.text(chunk);
    else if (chunk instanceof Uint8Array) {
      const text = Buffer.from(chunk).toString('utf8');
      if (processRedactor.finds(text)) clean = processRedactor.text(text);
    }
    return (original as (...args: unknown[]) => boolean).call(this, clean, ...rest);
  } as Write;
  stream.write = write;
  return () => {
    if (stream.write === write) stream.write = original;
  };
}
