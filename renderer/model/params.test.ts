import { describe, expect, it } from 'vitest';
import type { Params } from '../../app/schema/params.ts';
import type { FlowNode } from './document.ts';
import { collectParams, paramFields, paramFieldValue, setDocumentParams } from './params.ts';
import { parseNodeData, replicateOf, specHook } from './ports.ts';

const PARAMS: Params = {
  rounds: { type: 'integer', default: 3, min: 1, max: 10 },
  rtk: { type: 'boolean', default: false },
  styles: { type: 'list', default: ['Cubism', 'Fauvism'] },
};

const storm: FlowNode = {
  id: 'storm',
  type: 'mindstorm',
  position: { x: 0, y: 0 },
  data: { maxRounds: { $param: 'rounds' }, rights: { rtk: { $param: 'rtk' } } },
};

describe('the editor reads $param references with the document defaults', () => {
  it('binds node data for the card, and again when the defaults change', () => {
    setDocumentParams(PARAMS);
    expect(parseNodeData('mindstorm', storm.data)).toMatchObject({
      ok: true,
      data: { maxRounds: 3, rights: { rtk: false } },
    });
    expect(specHook(storm, 'badges')?.[0]?.label).toBe('rounds ×3');
    expect(
      replicateOf({ id: 'a', data: { replicate: { items: { $param: 'styles' }, as: 's' } } }),
    ).toEqual({ items: ['Cubism', 'Fauvism'], as: 's' });
    setDocumentParams({ ...PARAMS, rounds: { ...PARAMS.rounds!, default: 5 } as never });
    expect(specHook(storm, 'badges')?.[0]?.label).toBe('rounds ×5');
    // The document's own data keeps the reference.
    expect(storm.data.maxRounds).toEqual({ $param: 'rounds' });
  });
});

describe('the Inputs panel', () => {
  it('starts from the defaults and sends only what the person set, typed', () => {
    const fields = paramFields(PARAMS);
    expect(fields.map((f) => paramFieldValue(f, {}))).toEqual(['3', false, 'Cubism, Fauvism']);
    expect(collectParams(PARAMS, { rounds: '4', styles: 'a, b' })).toEqual({
      params: { rounds: 4, styles: ['a', 'b'] },
      problems: [],
    });
    // A value set back to its default is no change: the run is the document's own.
    expect(collectParams(PARAMS, { rounds: '3', rtk: false, styles: 'Cubism,Fauvism' })).toEqual({
      params: {},
      problems: [],
    });
    expect(collectParams(PARAMS, { rounds: '11', rtk: true }).problems).toEqual([
      'rounds is a whole number from 1 to 10',
    ]);
  });
});
