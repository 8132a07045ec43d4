/**
 * The coin fixture in the CLI: `society run` (in this process) with the fixture node types
 * beside the built-in ones, against a local OpenAI-compatible server that counts requests by
 * who sent them. The untaken side's agent sends none, whichever side the seed shows; the toss
 * is the run's `report` event of kind `flip`, which `society show` prints.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { societyHere } from '../../../support/cli.ts';
import { agent, edge, graph, input, node, output } from '../../../support/graphs.ts';
import { type StubOpenAI, startStubOpenAI } from '../../../support/stub-openai.ts';

// The CLI loads the built-in node types; here it also gets the fixture ones, as the studio does
// in the end-to-end tests (tests/e2e/fixture-nodes.ts).
vi.mock('../../../../app/node-sdk/registry.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../../app/node-sdk/registry.ts')>();
  const fixtures = new URL('../', import.meta.url).pathname;
  return {
    ...original,
    loadNodeRegistry: async (dir?: string) => {
      if (dir !== undefined) return original.loadNodeRegistry(dir);
      const parts = [await original.loadNodeRegistry(), await original.loadNodeRegistry(fixtures)];
      const specs = new Map(parts.flatMap((r) => [...r.specs]));
      const ownerOf = (type: string) => parts.find((r) => r.specs.has(type)) ?? parts[0]!;
      return {
        specs,
        get: (type: string) => specs.get(type),
        executor: (type: string) => ownerOf(type).executor(type),
        loopRuntime: (type: string) => ownerOf(type).loopRuntime(type),
      };
    },
  };
});

const dir = mkdtempSync(join(tmpdir(), 'coin-'));
let stub: StubOpenAI;
/** Who asked: the first word of each prompt (`heads` or `tails`). */
const askedBy = () =>
  stub.requests.map((body) => String(body.messages.at(-1).content).split(':')[0]);

beforeAll(async () => {
  stub = await startStubOpenAI({ respond: () => ({ text: 'called it' }) });
});
afterAll(async () => {
  await stub.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A coin whose sides each lead to an agent; a merge hands on the one that ran. */
function coinToss(seed: number): string {
  const file = join(dir, `coin-${seed}.society.json`);
  const doc = graph(
    [
      input('q'),
      node('coin', 'coin', {}),
      agent('heads', 'heads: {{ t }}'),
      agent('tails', 'tails: {{ t }}'),
      node('join', 'merge', { inputs: 2, mode: 'first' }),
      output('answer'),
      output('side'),
    ],
    [
      edge('q.value', 'coin.value'),
      edge('coin.heads', 'heads.t'),
      edge('coin.tails', 'tails.t'),
      edge('heads.text', 'join.a'),
      edge('tails.text', 'join.b'),
      edge('join.value', 'answer.value'),
      edge('join.from', 'side.value'),
    ],
    {
      models: { m: { provider: 'openai', model: 'gpt-test' } },
      settings: { seed },
    },
  );
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

const db = join(dir, 'runs.db');

async function toss(seed: number) {
  const before = stub.requests.length;
  const result = await societyHere([
    'run',
    coinToss(seed),
    '--provider',
    `openai=${stub.url}`,
    '--input',
    'q=which way?',
    '--db',
    db,
    '--json',
  ]);
  expect(result.code, result.stderr).toBe(0);
  return { out: JSON.parse(result.stdout), asked: askedBy().slice(before), stderr: result.stderr };
}

describe('the coin fixture node type', () => {
  it('sends no request for the side the seed did not show, for two seeds that flip differently', async () => {
    const first = await toss(1);
    const second = await toss(2);
    const shown = [first, second].map(({ asked }) => asked);
    // Each run asked exactly one agent: the side the coin showed.
    expect(shown.map((a) => a.length)).toEqual([1, 1]);
    expect(new Set(shown.flat())).toEqual(new Set(['heads', 'tails']));
    for (const { out, asked, stderr } of [first, second]) {
      const side = asked[0]!;
      const other = side === 'heads' ? 'tails' : 'heads';
      expect(out.outputs.answer).toBe('called it');
      expect(stderr).toContain(
        `${other} skipped: coin.${other} not taken (the coin showed ${side})`,
      );
    }
    // The same seed shows the same side.
    expect((await toss(1)).asked).toEqual(first.asked);
  });
});

describe("the coin's report", () => {
  it('is a flip event in society show --json, naming the side its agent was asked for', async () => {
    const { out, asked, stderr } = await toss(2);
    const shown = await societyHere(['show', out.runId, '--json', '--db', db]);
    expect(shown.code, shown.stderr).toBe(0);
    const reports = JSON.parse(shown.stdout).events.filter(
      (e: { type: string }) => e.type === 'report',
    );
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ node: 'coin', instance: 'coin', kind: 'flip' });
    expect(reports[0].data.side).toBe(asked[0]);
    expect(reports[0].data.draw).toBeGreaterThanOrEqual(0);
    expect(reports[0].data.draw).toBeLessThan(1);
    // The terminal says it as the run goes and when the run is shown.
    expect(stderr).toContain(`coin: flip {"side":"${asked[0]}"`);
    const text = await societyHere(['show', out.runId, '--db', db]);
    expect(text.stdout).toContain(`coin reported flip: {"side":"${asked[0]}","draw":`);
  });
});
