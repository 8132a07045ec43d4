/**
 * Every shipped template sends the same requests as its golden file says (tests/wire/README.md).
 *
 * Each template runs with its example inputs, its model calls sent by the real OpenAI-compatible
 * provider to a local server that answers from the template's cassette; what the server received
 * is compared, as a multiset (runs are concurrent, so order is not compared but counts are), with
 * tests/wire/<template>.wire.json. Expert calls (Hugging Face models, local operations) are
 * compared one layer up, as the request the engine hands to the expert provider: the Hugging Face
 * protocol does not say which task a request is, so a server cannot pick its recorded answer
 * (see scripts/wire-capture.ts). A difference fails naming the template and each request that
 * appeared or disappeared, with the start of its body and its last message.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  captureTemplate,
  GOLDEN_DIR,
  goldenPath,
  templateNames,
  type WireCapture,
  type WireRequest,
} from '../../scripts/wire-capture.ts';

const regenerate = (base: string) => `npm run wire:capture -- ${base}`;

/** Three lines per request, as a diff shows it: what, the body's start, its last message. */
function describeRequest(sign: string, request: WireRequest, times: number): string {
  const oneLine = (text: string) => text.replace(/\n/g, '⏎');
  return [
    `  ${sign} ${times}× ${request.endpoint} ${request.model} ${request.sha256.slice(0, 12)}`,
    `      body: ${oneLine(request.preview)}`,
    `      last: ${oneLine(request.last)}`,
  ].join('\n');
}

/** Shown at most, so a change that alters hundreds of calls still reads. */
const SHOWN = 12;

/**
 * What appeared (+) and disappeared (-) between the golden and this run, new requests first
 * (a changed request is usually the one the cassette misses), or '' if nothing.
 */
function wireDiff(golden: WireRequest[], now: WireRequest[]): string {
  const key = (r: WireRequest) => `${r.endpoint}\n${r.sha256}`;
  const before = new Map(golden.map((r) => [key(r), r]));
  const after = new Map(now.map((r) => [key(r), r]));
  const lines: string[] = [];
  for (const [k, r] of after) {
    const extra = r.count - (before.get(k)?.count ?? 0);
    if (extra > 0) lines.push(describeRequest('+', r, extra));
  }
  for (const [k, r] of before) {
    const missing = r.count - (after.get(k)?.count ?? 0);
    if (missing > 0) lines.push(describeRequest('-', r, missing));
  }
  const more = lines.length > SHOWN ? `\n  … and ${lines.length - SHOWN} more` : '';
  return lines.slice(0, SHOWN).join('\n') + more;
}

const total = (requests: WireRequest[]) => requests.reduce((sum, r) => sum + r.count, 0);

describe('every shipped template on the wire', () => {
  const bases = templateNames();

  it('has a golden file for each template and no golden without one', () => {
    const missing = bases.filter((base) => !existsSync(goldenPath(base)));
    expect(
      missing.map((base) => `${base}: no golden file; make it with \`${regenerate(base)}\``),
    ).toEqual([]);
    const stale = readdirSync(GOLDEN_DIR)
      .filter((file) => file.endsWith('.wire.json'))
      .map((file) => file.slice(0, -'.wire.json'.length))
      .filter((base) => !bases.includes(base));
    expect(stale.map((base) => `tests/wire/${base}.wire.json: no such template`)).toEqual([]);
  });

  it.each(bases)(
    '%s sends the requests its golden file lists',
    async (base) => {
      const file = goldenPath(base);
      if (!existsSync(file)) {
        throw new Error(
          `${base}: no golden file tests/wire/${base}.wire.json; make it with \`${regenerate(base)}\``,
        );
      }
      const golden = JSON.parse(readFileSync(file, 'utf8')) as WireCapture;
      const now = await captureTemplate(base);
      const diff = wireDiff(golden.requests, now.requests);
      if (diff || now.error || now.status !== 'succeeded') {
        // A changed request is not in the cassette either, so the run stops there: say why, and
        // show what it had sent by then against the golden.
        const stopped = now.error ? `; the run ${now.status}: ${now.error}` : '';
        throw new Error(
          `${base} sends other requests than tests/wire/${base}.wire.json (golden: ${total(golden.requests)}, now: ${total(now.requests)}${stopped}; + new, - gone):\n${diff}\n` +
            `If the change is intended, regenerate the golden with \`${regenerate(base)}\`${now.error ? ` after recording the cassette again (\`npm run cassettes -- ${base}\`)` : ''}.`,
        );
      }
      expect(total(now.requests)).toBe(total(golden.requests));
      // The 975-call valley takes about 1.5 s on an idle machine and 10 s on a loaded one.
    },
    30_000,
  );
});
