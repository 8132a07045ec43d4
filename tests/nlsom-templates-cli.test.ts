/**
 * Every NLSOM template as a newcomer meets it in the terminal: `society run FILE --simulate` and
 * `society run FILE --replay CASSETTE`, with no --input (the template's examples fill them) and
 * no key, both succeed, the replay makes the calls its cassette holds, and simulated answers say
 * so.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { societyInProcess } from './support/cli.ts';

const bases = readdirSync(new URL('../templates/', import.meta.url))
  .filter((f) => f.startsWith('nlsom-') && f.endsWith('.society.json'))
  .map((f) => f.slice(0, -'.society.json'.length))
  .sort();

interface RunJson {
  status: string;
  usage: { calls: number; expertCalls?: number };
  outputs: Record<string, unknown>;
}

async function runJson(args: string[]): Promise<RunJson> {
  const { code, stdout, stderr } = await societyInProcess([...args, '--json', '-q']);
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as RunJson;
}

describe('the NLSOM templates in the terminal', () => {
  it('are all there', () => {
    expect(bases).toEqual(expect.arrayContaining(['nlsom-artist-critic', 'nlsom-vqa']));
  });

  for (const base of bases) {
    it(`${base} runs simulated and from its cassette with no --input`, async () => {
      const file = `templates/${base}.society.json`;
      const simulated = await runJson(['run', file, '--simulate']);
      expect(simulated.status).toBe('succeeded');
      expect(simulated.usage.calls + (simulated.usage.expertCalls ?? 0)).toBeGreaterThan(0);
      const said = JSON.stringify(simulated.outputs);
      // A template with no language model (the 3D baseline arm) says so in its metric's report.
      expect(said).toMatch(simulated.usage.calls > 0 ? /\[simulated\]/ : /"simulated":true/);

      const replayed = await runJson(['run', file, '--replay', `templates/${base}.cassette.json`]);
      expect(replayed.status).toBe('succeeded');
      // The cassette was recorded from the simulator with the same examples and seed.
      expect(replayed.usage.calls).toBe(simulated.usage.calls);
      expect(replayed.usage.expertCalls ?? 0).toBe(simulated.usage.expertCalls ?? 0);
      expect(JSON.stringify(replayed.outputs)).toBe(said);
      // Two whole runs in child processes (the Artist–Critic makes 259 calls in each): about
      // 4 s on an idle machine, so a loaded one stays far from this.
    }, 60_000);
  }
});
