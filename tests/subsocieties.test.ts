/**
 * Sub-societies by reference: a library graph laid out in place of the node standing for it,
 * replicated and nested, seen by validation, runs, estimates, the debugger, fork, diff and export.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachStepper } from '../app/cli/stepper.ts';
import { compileGraph } from '../app/compiler/index.ts';
import type { GraphDocument } from '../app/schema/document.ts';
import { parseDocument } from '../app/schema/parse.ts';
import { formatProblem } from '../app/schema/problems.ts';
import { societyHere } from './support/cli.ts';
import { agent, edge, input, node, output, registry, start } from './support/graphs.ts';
import { type StubOpenAI, startStubOpenAI } from './support/stub-openai.ts';
import { PANEL_CALLS, STYLES, subsocietyDocument } from './support/subsociety.ts';

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

  it('takes no members but its graph’s', async () => {
    const doc = subsocietyDocument();
    doc.nodes[2]!.parentId = 'judge';
    expect(await problemLines(doc)).toContain(
      'node "summary" (nodes[2].parentId): parent "judge" is a sub-society, whose members come from its graph',
    );
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

describe('a library stays as written', () => {
  it('reads and saves a document with a library byte for byte', async () => {
    for (const text of [
      `${JSON.stringify(subsocietyDocument(), null, 2)}\n`,
      readFileSync('templates/nlsom-artist-critic.society.json', 'utf8'),
    ]) {
      const parsed = parseDocument(text, { nodes: registry });
      if (!parsed.ok) expect.fail(parsed.problems.map(formatProblem).join('\n'));
      expect(`${JSON.stringify(parsed.doc, null, 2)}\n`).toBe(text);
    }
  });

  it('refuses a library that would lay out past the bound, in one line', async () => {
    // Ten of the next graph in each of five graphs: 10^5 copies of the last one's node.
    const doc = subsocietyDocument();
    for (let level = 0; level < 5; level++) {
      doc.graphs![`l${level}`] = {
        nodes:
          level === 4
            ? [agent('a', 'Hello')]
            : Array.from({ length: 10 }, (_, i) =>
                node(`s${i}`, 'society', { graph: `l${level + 1}` }),
              ),
        edges: [],
      };
    }
    doc.nodes.push(node('huge', 'society', { graph: 'l0' }));
    const lines = await problemLines(doc);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^graphs\.l\d\.nodes\[\d\]: the document lays out to more than 10,000 nodes once its sub-societies are copied in/,
    );
  });
});

describe('a run sees into its sub-societies', () => {
  let stub: StubOpenAI;
  let db: string;
  let file: string;
  beforeAll(async () => {
    stub = await startStubOpenAI({
      respond: (body) => ({ text: `said: ${JSON.stringify(body.messages).length}` }),
    });
    db = join(dir, 'runs.db');
    file = save('panel-run.society.json', subsocietyDocument());
  });
  afterAll(() => stub.close());
  const common = () => ['--db', db, '--provider', `openai=${stub.url}`, '-q'];
  const json = async (args: string[]) => {
    const out = await societyHere(args);
    expect(out.code, out.stderr).toBe(0);
    return JSON.parse(out.stdout);
  };
  let runId: string;
  let outputs: unknown;

  it('sends the inner calls once per copy, and the estimate counts them', async () => {
    const estimate = await json(['run', file, '--estimate', '--json', ...common()]);
    const calls = PANEL_CALLS * STYLES.length + 1;
    expect(estimate.total.calls).toBe(calls);
    const inner = estimate.nodes.find((n: { id: string }) => n.id === 'judge/check/agent1');
    expect(inner?.calls).toBe(STYLES.length);

    const before = stub.count();
    const run = await json(['run', file, '--json', ...common()]);
    expect(run.status).toBe('succeeded');
    expect(stub.count() - before).toBe(calls);
    expect(Object.keys(run.outputs)).toEqual(['answer']);
    runId = run.runId;
    outputs = run.outputs;
    const sent = stub.requests.slice(before).map((r) => JSON.stringify(r.messages));
    expect(sent.filter((m) => m.includes('In a warm voice'))).toHaveLength(1);
  });

  it('names inner instances by their place: judge#1/agent1, judge#1/check/agent1', async () => {
    const shown = await json(['show', runId, '--json', '--db', db]);
    const instances = new Set(
      (shown.events as Array<{ type: string; instance?: string }>)
        .filter((e) => e.type === 'model.response')
        .map((e) => e.instance),
    );
    expect([...instances].sort()).toEqual(
      [
        ...STYLES.flatMap((_, i) => [
          `judge#${i}/agent1`,
          `judge#${i}/agent2`,
          `judge#${i}/check/agent1`,
        ]),
        'summary',
      ].sort(),
    );
    const text = await societyHere(['show', runId, '--db', db]);
    expect(text.stdout).toContain('judge#1/check/agent1');
  });

  it('forks from a message inside the sub-society, and diff sees the inner nodes', async () => {
    const before = stub.count();
    const fork = await json([
      'fork',
      runId,
      '--edit',
      'judge#1/agent2=The bridge is fine.',
      '--json',
      ...common(),
    ]);
    expect(fork.status).toBe('succeeded');
    // Only what reads the edit asks again: copy 1's checker and the summary.
    expect(stub.count() - before).toBe(2);
    expect(JSON.stringify(stub.requests.at(-2)?.messages)).toContain('The bridge is fine.');
    const diff = await societyHere(['diff', runId, fork.runId, '--db', db]);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain('judge#1/agent2');
    expect(diff.stdout).toContain('judge#1/check/agent1');
    expect(diff.stdout).not.toContain('judge#0/agent2');
  });

  it('exports and imports the run with its document and library intact', async () => {
    const exported = join(dir, 'panel-run.json');
    const out = await societyHere(['export', runId, '-o', exported, '--db', db]);
    expect(out.code, out.stderr).toBe(0);
    const bundle = JSON.parse(readFileSync(exported, 'utf8'));
    const text = readFileSync(file, 'utf8');
    expect(bundle.run.documentText).toBe(text);
    const replayed = await json(['replay', exported, '--json', '--db', db]);
    expect(replayed.outputs).toEqual(outputs);
  });

  it('breaks on an inner node in the terminal debugger and prints what it was sent', async () => {
    const run = await start(subsocietyDocument(), {
      simulate: true,
      inputs: { question: 'Is the bridge safe?' },
      breakpoints: [{ node: 'judge/check/agent1' }],
    });
    const out = new PassThrough();
    let said = '';
    out.on('data', (d) => {
      said += d;
    });
    attachStepper(run, out, Readable.from(['p\nc\nc\nc\n']));
    expect((await run.result).status).toBe('succeeded');
    // Each copy holds there in turn, named by its place.
    for (const i of [0, 2])
      expect(said).toContain(`⏸ breakpoint: before node judge#${i}/check/agent1 starts`);
    expect(said).toContain('breakpoints: node:judge/check/agent1');
  });
});

describe('the Artist–Critic template with its artist as a sub-society', () => {
  const TEMPLATE = 'templates/nlsom-artist-critic.society.json';
  const CASSETTE = 'templates/nlsom-artist-critic.cassette.json';

  /** Replays `file` from the template's cassette: the run's result and what it asked. */
  async function replay(file: string) {
    const events = join(dir, `${Math.random().toString(36).slice(2)}.ndjson`);
    const db = join(dir, 'templates.db');
    const out = await societyHere([
      ...['run', file, '--replay', CASSETTE, '--json', '-q', '--db', db, '--events', events],
    ]);
    expect(out.code, out.stderr).toBe(0);
    const requests = readFileSync(events, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((e) => e.type === 'model.request' || e.type === 'expert.request')
      .map(({ callId: _c, node: _n, runId: _r, seq: _s, time: _t, ...rest }) => rest);
    return { result: JSON.parse(out.stdout), requests };
  }

  it('replays its committed cassette: the same 260 calls, each one recorded, the same outputs', async () => {
    const doc = JSON.parse(readFileSync(TEMPLATE, 'utf8')) as GraphDocument;
    expect(doc.nodes.find((n) => n.id === 'artists')?.data.graph).toBe('artist');
    const cassette = JSON.parse(readFileSync(CASSETTE, 'utf8'));
    const { result, requests } = await replay(TEMPLATE);
    expect(result.usage.calls + result.usage.expertCalls).toBe(260);
    // Every request differs from the others and the replay found each in the cassette, which was
    // recorded from the society written with a plain group: the same calls on the wire.
    const distinct = new Set(requests.map((r) => JSON.stringify(r.messages ?? r.inputs)));
    expect(distinct.size).toBe(260);
    expect(cassette.entries.length + cassette.experts.length).toBe(260);
    // Under the same instance ids as before.
    expect(requests[0].instance).toBe('artists#0/mission@init');
    expect(
      requests.filter((r) => /^artists#25\/(mission|questioner|answerer|leader)@/.test(r.instance)),
    ).toHaveLength(8);
    expect(result.outputs.proposal).toBe(
      '[simulated] On balance, gathering more evidence should come first, given "What would change if we".',
    );
  });
});
