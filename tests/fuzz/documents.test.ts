/**
 * The document fuzzer: thousands of mutated documents, made deterministically from a seed,
 * each through compileGraph and, when it compiles, the cost estimator and the serializer. None
 * may throw, every problem must name a path in one line, and none may hang (the test timeout
 * would catch it). A failure names its seed, case and mutations, so it replays exactly.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileGraph } from '../../app/compiler/index.ts';
import { estimateRun } from '../../app/costs/estimate.ts';
import { DEFAULT_PRICES } from '../../app/costs/prices.ts';
import { serializeDocument } from '../../app/schema/parse.ts';
import { formatProblem } from '../../app/schema/problems.ts';
import { registry } from '../support/graphs.ts';
import { type FuzzCase, fuzzCase } from './mutate.ts';
import { seeded } from './random.ts';

const SEED = 0x50c1e7;
/** Batches of cases; each batch is its own test, so each stays far below the timeout. */
const BATCHES = 10;
const PER_BATCH = 1_000;

const TEMPLATES_DIR = new URL('../../templates/', import.meta.url);
const templates = readdirSync(TEMPLATES_DIR)
  .filter((name) => name.endsWith('.society.json'))
  .map((name) => JSON.parse(readFileSync(new URL(name, TEMPLATES_DIR), 'utf8')) as unknown);

/** How one case went: refused or compiled, and what went wrong if it misbehaved. */
async function check(c: FuzzCase): Promise<{ compiled: boolean; wrong?: string }> {
  let result: Awaited<ReturnType<typeof compileGraph>>;
  try {
    result = await compileGraph(c.input, registry);
  } catch (error) {
    return { compiled: false, wrong: `compileGraph threw: ${stackOf(error)}` };
  }
  if (!result.ok) {
    if (result.problems.length === 0) return { compiled: false, wrong: 'refused with no problem' };
    for (const p of result.problems) {
      const line = formatProblem(p);
      if (typeof p.path !== 'string' || p.path === '') {
        return { compiled: false, wrong: `problem without a path: ${line}` };
      }
      if (typeof p.message !== 'string' || p.message === '') {
        return { compiled: false, wrong: `problem without a message: ${line}` };
      }
      if (line.includes('\n'))
        return { compiled: false, wrong: `problem on several lines: ${line}` };
    }
    return { compiled: false };
  }
  try {
    estimateRun(result.plan, DEFAULT_PRICES, { inputs: {} });
  } catch (error) {
    return { compiled: true, wrong: `estimateRun threw: ${stackOf(error)}` };
  }
  try {
    serializeDocument(result.doc);
  } catch (error) {
    return { compiled: true, wrong: `serializeDocument threw: ${stackOf(error)}` };
  }
  return { compiled: true };
}

function stackOf(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

describe(`document fuzzer: ${BATCHES * PER_BATCH} mutated documents from seed ${SEED}`, () => {
  it('has templates to mutate', () => {
    expect(templates.length).toBeGreaterThan(5);
  });

  it('refuses inputs that are no document at all, each with a path', async () => {
    const deepList = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
    const inputs: unknown[] = [
      undefined,
      null,
      0,
      1n,
      '',
      'null',
      '[]',
      '{}',
      '"x"',
      '\u0000',
      deepList,
      `{"version":1,"x":${deepList}}`,
      Object.create(null),
      [],
    ];
    for (const input of inputs) {
      const outcome = await check({ input, steps: [] });
      expect(outcome).toEqual({ compiled: false });
    }
  });

  for (let batch = 0; batch < BATCHES; batch++) {
    it(`cases ${batch * PER_BATCH}–${(batch + 1) * PER_BATCH - 1}: no throw, every problem has a path`, async () => {
      const random = seeded(SEED + batch);
      const failures: string[] = [];
      let compiled = 0;
      for (let i = 0; i < PER_BATCH; i++) {
        const c = fuzzCase(templates, random);
        const outcome = await check(c);
        if (outcome.compiled) compiled++;
        if (outcome.wrong) {
          failures.push(`case ${batch * PER_BATCH + i} (${c.steps.join('; ')}): ${outcome.wrong}`);
        }
      }
      expect(failures.slice(0, 5)).toEqual([]);
      // The mutations reach past the parser: some documents still compile and are estimated.
      expect(compiled).toBeGreaterThan(0);
      expect(compiled).toBeLessThan(PER_BATCH);
    });
  }
});
