import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
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
import { formatProblem } from '../schema/problems.ts';
import { analyzeGraph } from './analyze.ts';
import { scheduledNodes } from './machine.ts';

const TEMPLATES = new URL('../../templates/', import.meta.url);

/** A question → agent → answer chain, the smallest useful society. */
const chain = () =>
  graph(
    [input('q'), agent('a', 'Answer: {{ q }}'), output('answer')],
    [edge('q.value', 'a.q'), edge('a.text', 'answer.value')],
  );

/** Problems as the CLI prints them, one line each. */
async function lines(doc: unknown): Promise<string[]> {
  return (await problems(doc)).map(formatProblem);
}

describe('compiler errors name the node or the JSON path', () => {
  it('unknown node type', async () => {
    const doc = chain();
    doc.nodes[1] = node('a', 'oracle', {});
    const found = await problems(doc);
    expect(found).toContainEqual({
      path: 'nodes[1].type',
      node: 'a',
      message: expect.stringMatching(/^unknown node type "oracle" \(known types: .*agent/),
    });
  });

  it('an edge to a node that does not exist', async () => {
    const doc = chain();
    doc.edges.push(edge('a.text', 'ghost.value'));
    expect(await problems(doc)).toEqual([
      {
        path: 'edges[2].target',
        message: 'edge "a.text->ghost.value" ends at node "ghost", which does not exist',
      },
    ]);
  });

  it('an edge from a node that does not exist', async () => {
    const doc = chain();
    doc.edges[0] = edge('nobody.value', 'a.q');
    expect(await lines(doc)).toContain(
      'edges[0].source: edge "nobody.value->a.q" starts at node "nobody", which does not exist',
    );
  });

  it('a port that does not exist', async () => {
    const doc = chain();
    doc.edges[0] = edge('q.value', 'a.question');
    doc.edges.push(edge('a.answer', 'answer.value'));
    const found = await problems(doc);
    expect(found).toContainEqual({
      path: 'edges[0].targetHandle',
      node: 'a',
      message: 'agent "a" has no input "question" (inputs: q, tools)',
    });
    expect(found).toContainEqual({
      path: 'edges[2].sourceHandle',
      node: 'a',
      message: 'agent "a" has no output "answer" (outputs: text)',
    });
  });

  it('a cycle outside a loop', async () => {
    const doc = graph(
      [agent('a', '{{ x }}'), agent('b', '{{ y }}')],
      [edge('a.text', 'b.y'), edge('b.text', 'a.x')],
    );
    const [problem, ...rest] = await problems(doc);
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({ path: 'nodes[0]', node: 'a' });
    expect(problem?.message).toMatch(
      /^cycle a → b → a: cycles are allowed only inside a mindstorm/,
    );
  });

  const stormCycle = (previousRound: boolean) =>
    graph(
      [
        node('storm', 'mindstorm', { maxRounds: 2 }),
        agent('asker', 'Ask about {{ last }}', {}, { parentId: 'storm' }),
        agent('teller', 'Answer {{ question }}', {}, { parentId: 'storm' }),
      ],
      [
        edge('asker.text', 'teller.question'),
        edge('teller.text', 'asker.last', previousRound ? { previousRound: true } : undefined),
      ],
    );

  it('a cycle inside a mindstorm without a previousRound edge', async () => {
    const [problem] = await problems(stormCycle(false));
    expect(problem?.node).toBe('asker');
    expect(problem?.message).toMatch(
      /^cycle asker → teller → asker inside mindstorm "storm": mark one of its edges "previousRound"/,
    );
  });

  it('accepts the same cycle through a previousRound edge', async () => {
    await compile(stormCycle(true));
  });

  it('a previousRound edge outside a mindstorm', async () => {
    const doc = chain();
    doc.edges[0] = edge('q.value', 'a.q', { previousRound: true });
    expect(await problems(doc)).toContainEqual({
      path: 'edges[0].data.previousRound',
      message: expect.stringContaining('needs both ends inside the same mindstorm'),
    });
  });

  it('an image output into a text slot, naming both ports', async () => {
    const doc = chain();
    doc.nodes[0] = input('q', { modality: 'image' });
    expect(await problems(doc)).toEqual([
      {
        path: 'edges[0]',
        node: 'a',
        message: 'modality mismatch: q.value gives image but a.q takes text',
      },
    ]);
  });

  it("a replicated agent's list<text> into a text slot", async () => {
    const doc = graph(
      [
        input('q'),
        agent('many', '{{ q }}', { replicate: { items: [1, 2, 3] } }),
        agent('one', 'Pick from {{ answers }}'),
      ],
      [edge('q.value', 'many.q'), edge('many.text', 'one.answers')],
    );
    expect(await lines(doc)).toEqual([
      'node "one" (edges[1]): modality mismatch: many.text gives list<text> but one.answers takes text',
    ]);
    doc.nodes[2]!.data.slots = { answers: 'list<text>' };
    await compile(doc);
  });

  it('a missing required input', async () => {
    const doc = chain();
    doc.edges.shift();
    expect(await problems(doc)).toEqual([
      { path: 'nodes[1]', node: 'a', message: 'required input "q" (text) is not connected' },
    ]);
  });

  it('an undefined model profile', async () => {
    const doc = chain();
    doc.nodes[1]!.data.model = 'gpt-9';
    expect(await problems(doc)).toEqual([
      {
        path: 'nodes[1].data.model',
        node: 'a',
        message: 'model profile "gpt-9" is not defined in "models" (defined: m)',
      },
    ]);
  });

  it('an undefined model profile through a {{ profile }} template on a replicated node', async () => {
    const doc = graph(
      [
        input('q'),
        agent('a', '{{ q }}', {
          model: '{{ profile }}',
          replicate: { items: ['m', 'vlm-2'], as: 'profile' },
        }),
      ],
      [edge('q.value', 'a.q')],
    );
    expect(await lines(doc)).toEqual([
      'node "a" (nodes[1].data.model): model profile "vlm-2" is not defined in "models" (defined: m)',
    ]);
  });

  it('an undefined model profile through the `as` name of an enclosing replicated group', async () => {
    const doc = graph([
      node('team', 'group', { replicate: { items: ['m', 'gpt-x'], as: 'profile' } }),
      agent('a', 'Hi', { model: '{{ profile }}' }, { parentId: 'team' }),
    ]);
    expect(await lines(doc)).toEqual([
      'node "a" (nodes[1].data.model): model profile "gpt-x" is not defined in "models" (defined: m)',
    ]);
  });

  it('a slow machine that spends the reading allowance never turns {{ profile }} into a false problem', async () => {
    // Each clock reading jumps 300 ms: every render is past the document's allowance.
    let now = 0;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => (now += 300));
    try {
      const doc = graph(
        [
          input('q'),
          agent('a', '{{ q }}', {
            model: '{{ profile }}',
            replicate: { items: ['m'], as: 'profile' },
          }),
        ],
        [edge('q.value', 'a.q')],
      );
      const { plan } = await compile(doc);
      expect(plan.nodes.get('a')?.id).toBe('a');
    } finally {
      clock.mockRestore();
    }
  });

  it("does not turn an enclosing group's `as` name into an input port", async () => {
    const doc = graph([
      node('team', 'group', { replicate: { items: ['cubism', 'pop art'], as: 'style' } }),
      agent(
        'artist',
        'Paint in {{ style }} as artist {{ replica.index }}',
        {},
        { parentId: 'team' },
      ),
    ]);
    const { plan } = await compile(doc);
    // Only its tools port, which takes nodes offered as tools, not values.
    expect(plan.nodes.get('artist')?.ports.inputs.map((p) => p.name)).toEqual(['tools']);
  });

  it('a bad Liquid template', async () => {
    const doc = chain();
    doc.nodes[1]!.data.prompt = 'Answer {{ q ';
    const found = await problems(doc);
    expect(found).toContainEqual({
      path: 'nodes[1].data.prompt',
      node: 'a',
      message: expect.stringMatching(/^template error: /),
    });
  });

  it('a mindstorm with rights but no members', async () => {
    const doc = graph([
      node('storm', 'mindstorm', { rights: { rtk: true } }),
      agent('a', 'Think.', {}, { parentId: 'storm' }),
    ]);
    expect(await problems(doc)).toEqual([
      {
        path: 'nodes[0].data.members',
        node: 'storm',
        message: 'rights apply to members: list the member node ids',
      },
    ]);
  });

  it('two edges into a single port', async () => {
    const doc = graph(
      [input('q'), input('r'), agent('a', '{{ q }}')],
      [edge('q.value', 'a.q'), edge('r.value', 'a.q')],
    );
    expect(await problems(doc)).toEqual([
      {
        path: 'nodes[2]',
        node: 'a',
        message: 'input "q" takes one edge but has 2 (q.value->a.q, r.value->a.q)',
      },
    ]);
  });

  it('data that does not fit the node type', async () => {
    const doc = chain();
    doc.nodes[1]!.data.temperature = 7;
    expect(await problems(doc)).toContainEqual({
      path: 'nodes[1].data.temperature',
      node: 'a',
      message: expect.any(String),
    });
  });

  it('a parent that does not exist or is not a container', async () => {
    const doc = chain();
    doc.nodes[1]!.parentId = 'nowhere';
    doc.nodes[2]!.parentId = 'q';
    expect(await lines(doc)).toEqual([
      'node "a" (nodes[1].parentId): parent "nowhere" does not exist',
      'node "answer" (nodes[2].parentId): parent "q" is a input, not a group or mindstorm',
    ]);
  });

  it('reports every problem at once, not just the first', async () => {
    const doc = chain();
    doc.nodes[1]!.data.model = 'nope';
    doc.edges.push(edge('a.text', 'ghost.value'));
    expect(await problems(doc)).toHaveLength(2);
  });

  it('reports document problems before graph problems', async () => {
    expect(await problems('{ not json')).toEqual([
      { path: '(document)', message: expect.stringMatching(/not valid JSON/) },
    ]);
  });
});

describe('templates', () => {
  const files = readdirSync(TEMPLATES).filter((f) => f.endsWith('.society.json'));

  it('ships at least the VQA template', () => {
    expect(files).toContain('nlsom-vqa.society.json');
  });

  it.each(files)('%s compiles with no problems', async (file) => {
    const text = readFileSync(new URL(file, TEMPLATES), 'utf8');
    await compile(text);
  });
});

describe('compiled machine', () => {
  it('is plain JSON, so `society inspect` prints exactly what runs', async () => {
    const text = readFileSync(new URL('nlsom-vqa.society.json', TEMPLATES), 'utf8');
    const { machines } = await compile(text);
    expect(JSON.parse(JSON.stringify(machines))).toStrictEqual(machines);
  });

  it('schedules every top-level node from the root machine', async () => {
    const text = readFileSync(new URL('nlsom-vqa.society.json', TEMPLATES), 'utf8');
    const { machines, doc } = await compile(text);
    const table = scheduledNodes(machines.root);
    const topLevel = doc.nodes.filter((n) => !n.parentId).map((n) => n.id);
    expect(Object.keys(table)).toEqual(topLevel);
    expect(table.storm).toEqual({ run: 'loop:storm', needs: ['image', 'question'] });
    expect(machines.children['loop:storm']?.states.round.invoke.src).toBe('scope:storm:round');
    expect(Object.keys(scheduledNodes(machines.children['scope:storm:round']!))).toEqual([
      'organizer',
      'member',
    ]);
  });

  it('makes a node wait for exactly the nodes it reads from', async () => {
    const doc = graph(
      [input('q'), agent('a', '{{ q }}'), agent('b', '{{ q }}'), agent('c', '{{ x }} {{ y }}')],
      [
        edge('q.value', 'a.q'),
        edge('q.value', 'b.q'),
        edge('a.text', 'c.x'),
        edge('b.text', 'c.y'),
      ],
    );
    const table = scheduledNodes((await compile(doc)).machines.root);
    expect(table.q).toEqual({ run: 'task', needs: [] });
    expect(table.a).toEqual({ run: 'task', needs: ['q'] });
    expect(table.c?.needs).toEqual(['a', 'b']);
  });

  it('runs a replicated node as one task per item', async () => {
    const doc = graph(
      [input('q'), agent('a', '{{ q }}', { replicate: { items: ['x', 'y', 'z'] } })],
      [edge('q.value', 'a.q')],
    );
    expect(scheduledNodes((await compile(doc)).machines.root).a).toEqual({
      run: 'task',
      needs: ['q'],
      replicas: 3,
    });
  });

  it('analyzes a parsed document directly', async () => {
    const result = analyzeGraph(chain(), registry);
    expect(result.ok).toBe(true);
    if (result.ok) expect([...result.plan.nodes.keys()]).toEqual(['q', 'a', 'answer']);
  });
});
