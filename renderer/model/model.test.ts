import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseDocument } from '../../app/schema/parse.ts';
import {
  AUTO_SIZE,
  copySelection,
  type FlowNode,
  fromDocument,
  initialData,
  newDocument,
  nextNodeId,
  pasteClip,
  toDocument,
} from './document.ts';
import { setDocumentParams } from './params.ts';
import { checkConnection, type NodeLike, portsOf } from './ports.ts';
import { registryTypes } from './registry.test-helper.ts';
import { applyEvents, startingRun } from './run.ts';
import { toolOwners } from './tool-wires.ts';

const template = (() => {
  const result = parseDocument(
    readFileSync(new URL('../../templates/nlsom-vqa.society.json', import.meta.url), 'utf8'),
  );
  if (!result.ok) throw new Error('template does not parse');
  return result.doc;
})();

// The template's replicate lists are parameters: the canvas reads them with their defaults, as
// the store sets them when a document is loaded.
setDocumentParams(template.params);
const canvas = fromDocument(template);
const byId = new Map(canvas.nodes.map((n) => [n.id, n]));

describe('registry', () => {
  it('finds every node folder', () => {
    expect(registryTypes()).toEqual(
      expect.arrayContaining(['agent', 'group', 'input', 'mindstorm', 'output', 'vote']),
    );
  });
});

describe('connections', () => {
  it('accepts a fitting edge and says why a wrong one does not fit', () => {
    const ok = checkConnection(
      { source: 'question', sourceHandle: 'value', target: 'leader', targetHandle: 'question' },
      byId,
      [],
    );
    expect(ok.ok).toBe(true);
    const bad = checkConnection(
      { source: 'image', sourceHandle: 'value', target: 'leader', targetHandle: 'question' },
      byId,
      [],
    );
    expect(bad).toEqual({ ok: false, reason: 'image does not fit text (leader.question)' });
  });

  it('delivers a list from a replicated node', () => {
    const bad = checkConnection(
      { source: 'member', sourceHandle: 'text', target: 'leader', targetHandle: 'notes' },
      byId,
      [],
    );
    expect(bad).toEqual({ ok: false, reason: 'list<text> does not fit text (leader.notes)' });
    // The organizer declares captions as list<text>: three describers fit.
    const fits = checkConnection(
      { source: 'describe', sourceHandle: 'text', target: 'organizer', targetHandle: 'captions' },
      byId,
      [],
    );
    expect(fits).toEqual({ ok: true, modality: 'list<text>' });
  });

  it('lets a multiple port take several edges, and a single one only one', () => {
    const edges = canvas.edges;
    const second = checkConnection(
      { source: 'question', sourceHandle: 'value', target: 'organizer', targetHandle: 'question' },
      byId,
      edges,
    );
    expect(second.ok).toBe(false);
    const toSummary = checkConnection(
      { source: 'member', sourceHandle: 'text', target: 'summary', targetHandle: 'text' },
      byId,
      edges,
    );
    expect(toSummary.ok).toBe(true);
  });

  it('gives an agent one input per prompt slot', () => {
    const ports = portsOf(byId.get('organizer')!, byId);
    expect(ports.inputs.map((p) => `${p.name}:${p.modality}`)).toEqual([
      'question:text',
      'captions:list<text>',
      'tools:tool',
    ]);
  });

  it('takes a node into an agent’s tools port, and refuses what cannot be offered, saying why', () => {
    const expert = { id: 'caption', type: 'expert', data: { module: 'image-captioning' } };
    const nodes = new Map<string, NodeLike>([...byId, ['caption', expert]]);
    const wire = {
      source: 'caption',
      sourceHandle: 'text',
      target: 'leader',
      targetHandle: 'tools',
    };
    expect(checkConnection(wire, nodes, [])).toMatchObject({ ok: true });
    expect(
      checkConnection({ ...wire, source: 'question', sourceHandle: 'value' }, nodes, []),
    ).toEqual({ ok: false, reason: 'a run input cannot be offered as a tool (leader.tools)' });
    // A node in the flow is not offered; a node offered takes no value from the flow.
    const fed = {
      id: 'f',
      source: 'image',
      sourceHandle: 'value',
      target: 'caption',
      targetHandle: 'image',
    };
    expect(checkConnection(wire, nodes, [fed])).toEqual({
      ok: false,
      reason:
        'caption is wired into the flow (image → caption): a node offered as a tool runs only when called',
    });
    const offered = { id: 't', ...wire };
    expect(
      checkConnection(
        { source: 'image', sourceHandle: 'value', target: 'caption', targetHandle: 'image' },
        nodes,
        [offered],
      ),
    ).toEqual({
      ok: false,
      reason:
        'caption is offered as a tool to leader: its inputs come from the calls and its result goes back to the caller',
    });
    expect(toolOwners('caption', nodes, [offered])).toEqual(['leader']);
  });
});

describe('documents', () => {
  it('gives back an unchanged document as it was, key order included', () => {
    expect(JSON.stringify(toDocument(canvas))).toBe(JSON.stringify(template));
  });

  it('saves a container size once someone sets it', () => {
    const resized = canvas.nodes.map((n) => {
      if (n.id !== 'storm') return n;
      const copy: Record<string, unknown> = { ...n };
      delete copy[AUTO_SIZE];
      return copy as unknown as FlowNode;
    });
    const storm = toDocument({ ...canvas, nodes: resized }).nodes.find(
      (n) => n.id === 'storm',
    ) as Record<string, unknown>;
    expect(typeof storm.width).toBe('number');
  });

  it('gives new nodes valid starting data', () => {
    const meta = fromDocument(newDocument()).meta;
    expect(initialData('agent', 'agent1', meta)).toMatchObject({
      prompt: '{{ question }}',
      model: 'default',
      parse: 'text',
    });
    expect(initialData('summarize', 'summarize1', meta)).toMatchObject({ model: 'default' });
    expect(initialData('input', 'input1', meta)).toMatchObject({
      name: 'input1',
      modality: 'text',
    });
    expect(nextNodeId('agent', new Set(['agent1', 'agent3']))).toBe('agent2');
  });

  it('copies a container with its members and renames references', () => {
    const selected = canvas.nodes.map((n) => (n.id === 'storm' ? { ...n, selected: true } : n));
    const clip = copySelection(selected, canvas.edges);
    expect(clip.nodes.map((n) => n.id).sort()).toEqual(
      ['describe', 'leader', 'member', 'organizer', 'storm', 'summary'].sort(),
    );
    const pasted = pasteClip(clip, canvas.nodes, canvas.edges, 40);
    const storm = pasted.nodes.find((n) => n.type === 'mindstorm')!;
    expect(storm.id).toBe('mindstorm1');
    const member = pasted.nodes.find((n) => n.data.label === 'Vision-language members')!;
    expect(storm.data.members).toEqual([member.id]);
    expect(member.parentId).toBe('mindstorm1');
  });
});

describe('run events', () => {
  it('folds node states, messages, usage and tallies', () => {
    let run = startingRun(['a', 'b']);
    run = applyEvents(run, [
      { type: 'run.started', seq: 1, mode: 'simulated' },
      { type: 'node.started', seq: 2, node: 'a', instance: 'a' },
      { type: 'model.response', seq: 3, promptTokens: 5, completionTokens: 7, simulated: true },
      {
        type: 'message',
        seq: 4,
        from: 'a',
        node: 'a',
        to: ['b'],
        text: 'hi',
        round: 1,
        simulated: true,
      },
      { type: 'node.finished', seq: 5, node: 'a', instance: 'a' },
      {
        type: 'paused',
        seq: 6,
        reason: 'breakpoint',
        at: { kind: 'node', node: 'b', instance: 'b' },
      },
    ]);
    expect(run.status).toBe('paused');
    expect(run.nodes.a?.state).toBe('done');
    expect(run.nodes.b?.state).toBe('paused');
    expect(run.usage).toEqual({ calls: 1, tokens: 12, costUsd: 0 });
    expect(run.messages).toHaveLength(1);
    run = applyEvents(run, [
      { type: 'resumed', seq: 7 },
      {
        ...{ type: 'report', seq: 8, node: 'b', instance: 'b', kind: 'tally' },
        data: { counts: { x: 2 }, winner: 'x' },
      },
      {
        type: 'run.finished',
        seq: 9,
        status: 'succeeded',
        outputs: { answer: 'x' },
        usage: { calls: 1, totalTokens: 12, costUsd: 0 },
      },
    ]);
    expect(run.nodes.b?.state).toBe('waiting');
    expect(run.status).toBe('succeeded');
    expect(run.reports[0]).toMatchObject({ kind: 'tally', data: { winner: 'x' } });
    expect(run.outputs).toEqual({ answer: 'x' });
  });
});
