/**
 * Sub-societies by reference: a library graph laid out in place of the node standing for it,
 * replicated and nested, seen by validation, runs, estimates, the debugger, fork, diff and export.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileGraph } from '../app/compiler/index.ts';
import { formatProblem } from '../app/schema/problems.ts';
import { societyHere } from './support/cli.ts';
import { edge, input, node, output, registry } from './support/graphs.ts';
import { subsocietyDocument } from './support/subsociety.ts';

const dir = mkdtempSync(join(tmpdir(), 'society-subsoc-'));

function save(name: string, doc: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
  return file;
}

async function problemLines(doc: unknown): Promise<string[]> {
  const result = await compileGraph(doc, registry);
  return result.ok ? [] : result.problems.map(formatProblem);
}

describe('a library graph is laid out in place of the node standing for it', () => {
  it('copies the members with ids <node>/<member>, nested, and rewires the ports', async () => {
    const result = await compileGraph(subsocietyDocument(), registry);
    if (!result.ok) expect.fail(result.problems.map(formatProblem).join('\n'));
    const scopes = Object.fromEntries([...result.plan.nodes.values()].map((n) => [n.id, n.scope]));
    expect(scopes).toEqual({
      question: '$root',
      judge: '$root',
      'judge/agent1': 'judge',
      'judge/agent2': 'judge',
      'judge/check': 'judge',
      'judge/check/agent1': 'judge/check',
      summary: '$root',
      answer: '$root',
    });
    const wires = result.plan.doc.edges.map(
      (e) => `${e.source}.${e.sourceHandle} → ${e.target}.${e.targetHandle}`,
    );
    expect(wires.sort()).toEqual(
      [
        'question.value → judge/agent1.question',
        'judge/agent1.text → judge/agent2.draft',
        'judge/agent2.text → judge/check/agent1.claim',
        'judge/check/agent1.text → summary.verdicts',
        'summary.text → answer.value',
      ].sort(),
    );
    // What leaves the replicated sub-society is a list, as from a replicated group.
    expect(result.plan.nodes.get('summary')?.inputs.verdicts?.[0]?.modality).toBe('list<text>');
    // The document as written keeps its library; only the plan is laid out.
    expect(Object.keys(result.doc.graphs ?? {})).toEqual(['panel', 'checker']);
    expect(result.plan.doc.graphs).toBeUndefined();
  });

  it('`society validate` accepts it', async () => {
    const file = save('panel.society.json', subsocietyDocument());
    const out = await societyHere(['validate', file]);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('valid (8 nodes, 5 edges)');
  });

  it('refuses a library that contains itself, naming the chain, one line per problem', async () => {
    const doc = subsocietyDocument();
    doc.graphs!.self = {
      nodes: [input('x'), node('again', 'society', { graph: 'self' }), output('y')],
      edges: [edge('x.value', 'again.x'), edge('again.y', 'y.value')],
    };
    doc.graphs!.a = { nodes: [node('b', 'society', { graph: 'b' })], edges: [] };
    doc.graphs!.b = { nodes: [node('a', 'society', { graph: 'a' })], edges: [] };
    const out = await societyHere(['validate', save('cycle.society.json', doc)]);
    expect(out.code).toBe(2);
    const lines = out.stdout.trim().split('\n');
    expect(lines).toEqual([
      expect.stringContaining(
        'graphs.self.nodes[1].data: sub-societies refer to each other in a cycle: graphs.self → graphs.self',
      ),
      expect.stringContaining(
        'graphs.a.nodes[0].data: sub-societies refer to each other in a cycle: graphs.a → graphs.b → graphs.a',
      ),
    ]);
  });

  it('names a port the graph lacks, an unknown graph, and problems inside the library', async () => {
    const doc = subsocietyDocument();
    doc.edges.push(edge('question.value', 'judge.topic'));
    doc.nodes.push(node('other', 'society', { graph: 'nowhere' }));
    doc.graphs!.checker!.nodes[1]!.data.model = 'missing';
    expect(await problemLines(doc)).toEqual([
      'node "other" (nodes[4].data): stands for graph "nowhere", which the document\'s library does not hold (graphs: panel, checker)',
      'node "judge" (edges[3].targetHandle): edge "question.value->judge.topic" ends at input "topic", but graph "panel" has no input node named "topic" (inputs: question)',
      'node "judge/check/agent1" (graphs.checker.nodes[1].data.model): model profile "missing" is not defined in "models" (defined: m)',
    ]);
  });

  it('needs every input of a sub-society connected', async () => {
    const doc = subsocietyDocument();
    doc.edges.splice(0, 1);
    expect(await problemLines(doc)).toContain(
      'node "judge" (nodes[1]): input "question" of graph "panel" is not connected',
    );
  });

  it('binds parameters inside library graphs and says where a reference is unknown', async () => {
    const doc = subsocietyDocument();
    doc.params = { tone: { type: 'text', default: 'dry' } };
    doc.graphs!.checker!.nodes[1]!.data.role = { $param: 'tone' };
    const result = await compileGraph(doc, registry);
    if (!result.ok) expect.fail(result.problems.map(formatProblem).join('\n'));
    expect(result.plan.nodes.get('judge/check/agent1')?.data.role).toBe('dry');
    doc.graphs!.checker!.nodes[1]!.data.role = { $param: 'mood' };
    expect(await problemLines(doc)).toEqual([
      'node "agent1" (graphs.checker.nodes[1].data.role): no parameter "mood" (parameters: tone)',
    ]);
  });
});
