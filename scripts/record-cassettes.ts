/**
 * `npm run cassettes [BASE…]`: records every template's cassette again (or the named ones) from
 * the simulated provider, with the example inputs each template carries. Deterministic: the
 * simulator answers from the request and the document's seed, so running it twice writes the
 * same files. A template that calls no model (the greedy kitchen) gets an empty cassette, so
 * every template replays the same way.
 */
import { statSync } from 'node:fs';
import { Cassette } from '../app/providers/cassette.ts';
import { cassettePath, runTemplate, templateBases } from './template-runs.ts';

const wanted = process.argv.slice(2);
const bases = templateBases().filter((base) => wanted.length === 0 || wanted.includes(base));
const unknown = wanted.filter((base) => !bases.includes(base));
if (unknown.length > 0) {
  process.stderr.write(
    `no template ${unknown.join(', ')} (templates: ${templateBases().join(', ')})\n`,
  );
  process.exit(2);
}

let failed = 0;
for (const base of bases) {
  const cassette = new Cassette();
  const result = await runTemplate(base, cassette, 'record');
  if (result.status !== 'succeeded') {
    failed++;
    process.stderr.write(
      `${base}: ${result.status}: ${result.error ?? ''} (cassette not written)\n`,
    );
    continue;
  }
  const file = cassettePath(base);
  await cassette.save(file);
  const { calls, expertCalls } = result.usage;
  process.stderr.write(
    `${base}: ${calls} model calls, ${expertCalls ?? 0} expert calls, ${Object.keys(cassette.answers()).length} answers of a person → ${file} (${Math.round(statSync(file).size / 1024)} KB)\n`,
  );
}
process.exit(failed > 0 ? 1 : 0);
