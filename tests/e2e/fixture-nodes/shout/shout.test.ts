import { describe, expect, it } from 'vitest';
import { compileGraph } from '../../../../app/compiler/index.ts';
import { formatProblem } from '../../../../app/schema/problems.ts';
import { registryWithFixtures } from '../../fixture-nodes.ts';

const shout = (data: Record<string, unknown>, version?: number) => ({
  version: 1,
  name: 'shout',
  nodes: [
    { id: 'past', type: 'shout', ...(version ? { version } : {}), position: { x: 0, y: 0 }, data },
  ],
  edges: [],
});

describe('the shout fixture node type', () => {
  it('compiles a document with its old data migrated, as the CLI and the studio read one', async () => {
    const compiled = await compileGraph(
      shout({ text: 'old', loud: true }),
      await registryWithFixtures(),
    );
    if (!compiled.ok) expect.fail(compiled.problems.map(formatProblem).join('\n'));
    expect(compiled.doc.nodes[0]).toMatchObject({
      version: 2,
      data: { template: 'old', marks: 3 },
    });
    expect(compiled.plan.nodes.get('past')?.data).toMatchObject({ template: 'old', marks: 3 });
  });

  it('refuses old data its migration cannot read, naming the node', async () => {
    const compiled = await compileGraph(shout({ loud: true }), await registryWithFixtures());
    expect(compiled.ok ? [] : compiled.problems.map(formatProblem)).toEqual([
      'node "past" (nodes[0].version): migrating its data from version 1 to 2 failed: "text" must be a string',
    ]);
  });
});
