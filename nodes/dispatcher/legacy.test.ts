/**
 * Documents from when the planner also dispatched (`type: "planner"`, `mode: "dispatch"`):
 * they read as dispatchers, validate, and replay their recorded calls exactly as the template
 * that now says `dispatcher` does. The fixture is the no-feedback template as it was then.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseDocument } from '../../app/schema/parse.ts';
import { societyHere, TEST_DB } from '../../tests/support/cli.ts';
import { registry } from '../../tests/support/graphs.ts';

const OLD = new URL('./fixtures/planner-dispatch.society.json', import.meta.url).pathname;
const NEW = new URL('../../templates/cuisineworld-no-feedback.society.json', import.meta.url)
  .pathname;
const CASSETTE = new URL('../../templates/cuisineworld-no-feedback.cassette.json', import.meta.url)
  .pathname;

describe('a document from when the planner dispatched', () => {
  it('reads as the dispatcher it is, with the data the template has today', () => {
    const old = parseDocument(readFileSync(OLD, 'utf8'), { nodes: registry });
    const today = parseDocument(readFileSync(NEW, 'utf8'), { nodes: registry });
    if (!old.ok || !today.ok) expect.fail('both documents read');
    expect(old.doc.nodes.find((n) => n.id === 'dispatcher')).toEqual(
      today.doc.nodes.find((n) => n.id === 'dispatcher'),
    );
    expect(old.migratedNodes).toEqual([
      { node: 'dispatcher', type: 'dispatcher', from: 1, to: 1, was: 'planner' },
    ]);
    expect(today.migratedNodes).toEqual([]);
  });

  it('validates, and replays the template’s cassette to the same metrics', async () => {
    expect((await societyHere(['validate', OLD])).code).toBe(0);
    const play = async (file: string) => {
      const result = await societyHere([
        'run',
        file,
        '--replay',
        CASSETTE,
        '--json',
        '--quiet',
        '--db',
        TEST_DB,
      ]);
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout).outputs;
    };
    const [old, today] = [await play(OLD), await play(NEW)];
    expect(old).toEqual(today);
    expect(old.metrics).toMatchObject({ level: 'level_3', steps: 60 });
  });

  it('takes a sweep’s ablation, which only a dispatcher holds', async () => {
    const args = ['--no-hints', '--simulate', '--alphas', '1', '--episodes', '1', '--steps', '2'];
    const result = await societyHere(['cuisineworld', 'sweep', OLD, ...args, '--db', TEST_DB]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/no-hints +1 +0 /);
  });

  it('keeps a plan’s data a planner’s, leaving behind what only dispatching used', () => {
    const doc = {
      version: 1,
      name: 'old plan',
      nodes: [
        {
          id: 'p',
          type: 'planner',
          position: { x: 0, y: 0 },
          data: { mode: 'plan', task: 'caption it', controller: 'model', seats: [] },
        },
      ],
      edges: [],
    };
    const read = parseDocument(doc, { nodes: registry });
    if (!read.ok) expect.fail('it reads');
    expect(read.doc.nodes[0]).toMatchObject({ type: 'planner', data: { task: 'caption it' } });
    expect(Object.keys(read.doc.nodes[0]!.data)).toEqual(['task']);
  });
});
