import { afterEach, describe, expect, it } from 'vitest';
import {
  edge,
  eventsOf,
  graph,
  input,
  node,
  output,
  problems,
  run,
} from '../../tests/support/graphs.ts';
import { type StubOpenAI, startStubOpenAI } from '../../tests/support/stub-openai.ts';
import { readLabel } from './route.ts';

let stub: StubOpenAI | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

/** A router by model over `billing` and `technical`, each branch to an output of its own. */
function byModel(data: Record<string, unknown> = {}, models?: Parameters<typeof graph>[2]) {
  return graph(
    [
      input('q'),
      node('route', 'router', {
        mode: 'model',
        model: 'm',
        outputs: ['billing', 'technical'],
        ...data,
      }),
      output('billing'),
      output('technical'),
      output('other'),
    ],
    [
      edge('q.value', 'route.value'),
      edge('route.billing', 'billing.value'),
      edge('route.technical', 'technical.value'),
      edge('route.else', 'other.value'),
    ],
    models,
  );
}

const overStub = (s: StubOpenAI) => ({
  providerOverrides: { openai: { baseUrl: s.url, apiKeyEnv: '' } },
  env: {},
  inputs: { q: 'my screen stays black' },
});
const onStub = { models: { m: { provider: 'openai' as const, model: 'gpt-test' } } };

describe('router', () => {
  it('by model: a simulated model names the label the input talks about', async () => {
    const billing = await run(byModel(), {
      simulate: true,
      inputs: { q: 'Billing question: my invoice bills me twice, fix the billing' },
    });
    expect(billing.status).toBe('succeeded');
    expect(billing.outputs).toEqual({
      billing: 'Billing question: my invoice bills me twice, fix the billing',
    });
    const technical = await run(byModel(), {
      simulate: true,
      inputs: { q: 'technical fault: the technical panel crashes' },
    });
    expect(Object.keys(technical.outputs)).toEqual(['technical']);
  });

  it('by model: reads the label out of a wordier answer', async () => {
    stub = await startStubOpenAI({ respond: () => ({ text: 'Technical.' }) });
    const { status, outputs } = await run(byModel({}, onStub), overStub(stub));
    expect(status).toBe('succeeded');
    expect(outputs).toEqual({ technical: 'my screen stays black' });
  });

  it('by model: an answer naming no label fails the node, or takes else when the data says', async () => {
    stub = await startStubOpenAI({ respond: () => ({ text: 'I cannot tell.' }) });
    const failed = await run(byModel({}, onStub), overStub(stub));
    expect(failed.status).toBe('failed');
    expect(failed.error).toBe(
      'node "route": the model answered "I cannot tell.", not one of: billing, technical',
    );
    const other = await run(byModel({ unclear: 'else' }, onStub), overStub(stub));
    expect(other.status).toBe('succeeded');
    expect(other.outputs).toEqual({ other: 'my screen stays black' });
    expect(eventsOf(other.events, 'node.skipped').map((e) => e.reason)).toEqual([
      'the model named no branch',
      'the model named no branch',
    ]);
  });

  it('by rules: reads the input and the bindings; first match wins', async () => {
    const doc = byModel({
      mode: 'rules',
      rules: [
        { output: 'technical', when: { '>': [{ var: 'value.severity' }, 2] } },
        { output: 'billing', when: { '>': [{ var: 'value.severity' }, 0] } },
      ],
    });
    doc.nodes[0]!.data = { name: 'q', modality: 'json' };
    const high = await run(doc, { inputs: { q: { severity: 3 } } });
    expect(Object.keys(high.outputs)).toEqual(['technical']);
    const low = await run(doc, { inputs: { q: { severity: 1 } } });
    expect(Object.keys(low.outputs)).toEqual(['billing']);
    const none = await run(doc, { inputs: { q: { severity: 0 } } });
    expect(Object.keys(none.outputs)).toEqual(['other']);
  });

  it('by rules: reads other values of the run through its reads ports', async () => {
    const doc = graph(
      [
        input('q'),
        input('tier'),
        node('route', 'router', {
          outputs: ['priority'],
          reads: { tier: 'text' },
          rules: [{ output: 'priority', when: { '==': [{ var: 'tier' }, 'gold'] } }],
        }),
        output('priority'),
        output('other'),
      ],
      [
        edge('q.value', 'route.value'),
        edge('tier.value', 'route.tier'),
        edge('route.priority', 'priority.value'),
        edge('route.else', 'other.value'),
      ],
    );
    const gold = await run(doc, { inputs: { q: 'help', tier: 'gold' } });
    expect(gold.outputs).toEqual({ priority: 'help' });
    const basic = await run(doc, { inputs: { q: 'help', tier: 'basic' } });
    expect(basic.outputs).toEqual({ other: 'help' });
    const unwired = await problems({
      ...doc,
      edges: doc.edges.filter((e) => e.id !== doc.edges[1]!.id),
    });
    expect(unwired.map((p) => p.message).join('\n')).toMatch(/tier/);
    const reserved = await problems(byModel({ mode: 'rules', reads: { value: 'text' } }));
    expect(reserved.map((p) => p.message)).toContain(
      '"value" is the router\'s own name for what it routes: pick another',
    );
  });

  it('refuses rules naming an unknown branch or operator', async () => {
    const found = await problems(
      byModel({
        mode: 'rules',
        rules: [
          { output: 'sales', when: true },
          { output: 'billing', when: { method: ['x', 'toString'] } },
        ],
      }),
    );
    const messages = found.map((p) => p.message).join('\n');
    expect(messages).toContain('"sales" is not one of the outputs (billing, technical, else)');
    expect(messages).toContain('unknown operator "method"');
  });

  it('reads a label from an answer only when it names exactly one', () => {
    expect(readLabel(' "Billing." ', ['billing', 'technical'])).toBe('billing');
    expect(readLabel('It is technical, I think', ['billing', 'technical'])).toBe('technical');
    expect(readLabel('billing or technical', ['billing', 'technical'])).toBeUndefined();
  });
});
