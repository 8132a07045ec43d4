/**
 * The compiler's part of nodes wired into tool ports: the graph each offer is laid out as, the
 * receiving node's data offering it, the document left as written, offers inside library graphs
 * named by their graph, and problems found after the rewrite located in the document as written.
 */
import { describe, expect, it } from 'vitest';
import {
  agent,
  compile,
  edge,
  graph,
  input,
  node,
  output,
  problems,
  registry,
} from '../../tests/support/graphs.ts';
import type { GraphDocument } from '../schema/document.ts';
import { wireTools } from './wired-tools.ts';

/** q → a → answer, with `translate` (an expert) wired into a's tools port. */
function offered(): GraphDocument {
  return graph(
    [
      input('q'),
      agent('a', '{{ q }}'),
      node('translate', 'expert', { module: 'machine-translation' }),
      output('answer'),
    ],
    [edge('q.value', 'a.q'), edge('translate.text', 'a.tools'), edge('a.text', 'answer.value')],
  );
}

describe('a node wired into a tools port', () => {
  it('is laid out as a graph of its own, offered to the agent; the document keeps the wire', async () => {
    const doc = offered();
    const wired = wireTools(doc, registry);
    expect(wired.problems).toEqual([]);
    const laid = wired.doc.graphs?.translate;
    expect(laid?.nodes.map((n) => `${n.id}:${n.type}`)).toEqual([
      'translate:expert',
      'input_text:input',
      'output_text:output',
    ]);
    expect(laid?.nodes[1]?.data).toEqual({ name: 'text', modality: 'text' });
    expect(
      laid?.edges.map((e) => `${e.source}.${e.sourceHandle}→${e.target}.${e.targetHandle}`),
    ).toEqual(['input_text.value→translate.text', 'translate.text→output_text.value']);
    // The flow runs without it; the agent is offered it as a graph tool.
    expect(wired.doc.nodes.map((n) => n.id)).toEqual(['q', 'a', 'answer']);
    expect(wired.doc.nodes[1]?.data.tools).toEqual([
      {
        graph: 'translate',
        name: 'translate',
        description:
          'Translates English text into German. Expert model "translate": machine-translation.',
      },
    ]);
    const compiled = await compile(doc);
    expect(compiled.doc).toBe(compiled.source);
    expect(compiled.doc.edges).toHaveLength(3);
    expect(compiled.doc.nodes[1]?.data.tools).toBeUndefined();
    expect([...(compiled.plan.toolPlans?.keys() ?? [])]).toEqual(['translate']);
  });

  it('inside a library graph, is named by that graph, and problems point at the document as written', async () => {
    const inner = offered();
    const doc: GraphDocument = {
      ...graph(
        [input('q'), node('s', 'society', { graph: 'inner' }), output('answer')],
        [edge('q.value', 's.q'), edge('s.answer', 'answer.value')],
      ),
      graphs: { inner: { nodes: inner.nodes, edges: inner.edges } },
    };
    const { plan } = await compile(doc);
    expect(plan.nodes.get('s/a')?.data.tools).toMatchObject([{ graph: 'inner__translate' }]);
    expect(plan.nodes.has('s/translate')).toBe(false);
    // The answer's index moves once the offered node is taken out: the problem's does not.
    const broken = offered();
    broken.nodes[3] = output('answer', { name: 7 });
    expect(await problems(broken)).toMatchObject([{ path: 'nodes[3].data.name', node: 'answer' }]);
  });
});
