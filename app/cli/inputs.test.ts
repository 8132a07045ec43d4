import { describe, expect, it } from 'vitest';
import type { GraphPlan } from '../compiler/analyze.ts';
import { loadNodeRegistry } from '../node-sdk/registry.ts';
import type { BlobStore } from '../runtime/blobs.ts';
import { readRunInputs } from './inputs.ts';

/** A plan of an input, a human and a dispatcher with one seat, as the compiler would hold them. */
async function plan(): Promise<GraphPlan> {
  const registry = await loadNodeRegistry();
  const node = (id: string, type: string, data: Record<string, unknown>) => {
    const spec = registry.get(type)!;
    return [id, { id, type, spec, data: spec.data.parse(data) }] as const;
  };
  return {
    doc: { settings: {} },
    nodes: new Map([
      node('q', 'input', { name: 'question' }),
      node('judge', 'human', { name: 'verdict', prompt: 'Is it right?' }),
      node('cook', 'dispatcher', { controller: 'greedy', seats: ['agent1'] }),
    ]),
  } as unknown as GraphPlan;
}

// Text values never reach the blob store.
const blobs = {} as BlobStore;

describe('--input', () => {
  it("binds run inputs, a human's answer and a seat's answer for one step", async () => {
    const read = readRunInputs(
      ['question=why?', 'verdict=yes', 'agent1@t3=goto_agent1_oven0'],
      await plan(),
      blobs,
    );
    expect(read).toEqual({
      inputs: { question: 'why?' },
      humanAnswers: { verdict: 'yes', 'agent1@t3': 'goto_agent1_oven0' },
    });
  });

  it("binds a person's answer for one round of a loop", async () => {
    const read = readRunInputs(['verdict@r2=no', 'verdict@r1.3=maybe'], await plan(), blobs);
    expect(read.humanAnswers).toEqual({ 'verdict@r2': 'no', 'verdict@r1.3': 'maybe' });
  });

  it('refuses a name the graph does not take, listing what it takes', async () => {
    const p = await plan();
    for (const name of ['x', 'agent2@t3', 'agent1@tlast', 'question@r2']) {
      expect(() => readRunInputs([`${name}=1`], p, blobs)).toThrow(
        `unknown input "${name}" (this graph takes: question, verdict, agent1@tSTEP)`,
      );
    }
  });
});
