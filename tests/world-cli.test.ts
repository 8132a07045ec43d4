/**
 * `society world check` and `society world show` from the command line: a good world gets a
 * summary, a bad one a line per problem naming its path, and show prints what each agent sees
 * and can do.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { smallWorld } from '../app/environments/textworld/world.test-helper.ts';
import { society, societyHere } from './support/cli.ts';

const IROLLAN = 'app/environments/textworld/worlds/irollan-valley.world.json';
const dir = mkdtempSync(join(tmpdir(), 'society-world-'));

function worldFile(name: string, content: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('society world check', () => {
  it('accepts the Irollan Valley with a one-line summary', async () => {
    const result = await society(['world', 'check', IROLLAN]);
    expect(result).toEqual({
      code: 0,
      stdout: `${IROLLAN}: valid world "Irollan Valley" (9 areas, 37 furniture, 32 items, 6 agents, 0 script entries)\n`,
      stderr: '',
    });
  });

  it('refuses a bad world with exit 2 and one line per problem, naming the path', async () => {
    const spec = smallWorld();
    spec.agents[1]!.at = 'libary';
    spec.items.push({ id: 'toy 1', at: 'shelf 1' });
    spec.script = [{ step: 1, agent: 'A', action: 'take toy 9 from table 1' }];
    const file = worldFile('bad.world.json', spec);
    const result = await society(['world', 'check', file]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      `${file}: items[4].id: item "toy 1" is listed in two places (also items[1].id)`,
      `${file}: agents[1].at: there is no area "libary" (areas: yard, kitchen, den)`,
    ]);
    // Once the references hold, the script is read against them.
    spec.agents[1]!.at = 'yard';
    spec.items.pop();
    const second = await societyHere(['world', 'check', worldFile('script.world.json', spec)]);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain('script[0].action: there is no item "toy 9"\n');
  });

  it.each([
    ['a missing file', join(dir, 'nowhere.world.json'), 'society: cannot read'],
    ['a file that is not JSON', 'not json', '(world): not valid JSON'],
    ['JSON that is not a world', '[1, 2]', '(world): a world must be a JSON object'],
  ])('refuses %s in one line, exit 2', async (_what, content, message) => {
    const file = content.includes('nowhere') ? content : worldFile('odd.world.json', content);
    const result = await societyHere(['world', 'check', file]);
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(message);
  });

  it('warns of an area nobody can reach, and still exits 0', async () => {
    const spec = smallWorld();
    spec.areas.push({ id: 'attic', kind: 'public', doors: [], furniture: [] });
    const file = worldFile('attic.world.json', spec);
    const result = await societyHere(['world', 'check', file]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`${file}: warning: areas[3]: no agent can reach "attic"\n`);
  });
});

describe('society world show', () => {
  it("prints every agent's observation and actions for a built-in world", async () => {
    const result = await society(['world', 'show', 'irollan-valley']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Irollan Valley: 9 areas, 32 items, 6 agents \(step 0\)\n/);
    for (const agent of ['AY', 'SG', 'MD', 'WL', 'LL', 'WM'])
      expect(result.stdout).toContain(`You are in ${agent}'s home (your home).`);
    expect(result.stdout).toContain('Actions (6):\n  go to courtyard\n');
  });

  it('prints one agent as JSON for a world file', async () => {
    const file = worldFile('small.world.json', smallWorld());
    const result = await societyHere(['world', 'show', file, '--agent', 'B', '--json']);
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.agents).toHaveLength(1);
    expect(out.agents[0]).toMatchObject({
      agent: 'B',
      observation: { area: { id: 'kitchen' }, people: [{ id: 'A' }] },
      actions: expect.arrayContaining(['chat with A', 'take toy 1 from table 1', 'rest']),
    });
    expect(out.agents[0].text).toContain('With you is A (doing nothing in particular).');
  });

  it('refuses an unknown agent or world in one line, exit 2', async () => {
    const agent = await societyHere(['world', 'show', 'irollan-valley', '--agent', 'ZZ']);
    expect(agent.code).toBe(2);
    expect(agent.stderr).toBe(
      'society: no agent "ZZ" in irollan-valley (agents: AY, SG, MD, WL, LL, WM)\n',
    );
    const world = await societyHere(['world', 'show', 'atlantis']);
    expect(world.code).toBe(2);
    expect(world.stderr).toContain('the built-in worlds are: irollan-valley');
  });
});
