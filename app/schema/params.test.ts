import { describe, expect, it } from 'vitest';
import {
  bindParams,
  type Params,
  parseParamText,
  resolveParams,
  withParamValues,
} from './params.ts';
import { parseDocument } from './parse.ts';
import { formatProblem } from './problems.ts';

const PARAMS: Params = {
  rounds: { type: 'integer', default: 3, min: 1, max: 10, description: 'mindstorm rounds' },
  temperature: { type: 'number', default: 0.5, min: 0, max: 2 },
  rtk: { type: 'boolean', default: false },
  topic: { type: 'text', default: 'art' },
  structure: { type: 'enum', values: ['monarchy', 'democracy'], default: 'monarchy' },
  styles: { type: 'list', default: ['Cubism', 'Fauvism'], minItems: 1, maxItems: 26 },
};

function docWith(params: unknown, data: Record<string, unknown> = {}) {
  return {
    version: 1,
    name: 'p',
    // Checked by the schema in the tests that parse; taken as declared in the others.
    params: params as Params | undefined,
    nodes: [
      { id: 'a', type: 'x', position: { x: 0, y: 0 }, data: {} },
      { id: 'storm', type: 'x', position: { x: 0, y: 0 }, data },
    ],
    edges: [],
  };
}

function lines(input: unknown): string[] {
  const result = parseDocument(input);
  return result.ok ? [] : result.problems.map(formatProblem);
}

describe('declaring parameters', () => {
  it('accepts every type with a default that fits', () => {
    expect(lines(docWith(PARAMS))).toEqual([]);
  });

  it.each([
    [
      { rounds: { type: 'integer', default: 12, min: 1, max: 10 } },
      'params.rounds.default: the default 12 is not a whole number from 1 to 10',
    ],
    [
      { rounds: { type: 'integer', default: 2.5 } },
      'params.rounds.default: must be a whole number',
    ],
    [
      { t: { type: 'number', default: -1, min: 0 } },
      'the default -1 is not a number of at least 0',
    ],
    [
      { s: { type: 'enum', values: ['a', 'b'], default: 'c' } },
      'the default "c" is not one of a, b',
    ],
    [
      { s: { type: 'enum', values: ['a', 'a'], default: 'a' } },
      'params.s.values: enum values must differ',
    ],
    [
      { l: { type: 'list', default: [], minItems: 1 } },
      'params.l.default: the default [] is not a list',
    ],
    [
      { l: { type: 'list', default: ['a'], maxItems: 5000 } },
      'params.l.maxItems: a list holds at most 1000 items',
    ],
    [
      { r: { type: 'integer', default: 3, min: 5, max: 2 } },
      'params.r: its lower bound 5 is above its upper bound 2',
    ],
    [
      { r: { type: 'date', default: 'x' } },
      'params.r.type: type must be one of integer, number, boolean, text, enum, list',
    ],
    [{ r: { type: 'integer' } }, 'params.r.default'],
    [{ '1x': { type: 'boolean', default: true } }, 'a parameter name must start with a letter'],
  ])('refuses %j', (params, expected) => {
    expect(lines(docWith(params)).join('\n')).toContain(expected);
  });

  it('bounds how many a document declares', () => {
    const many = Object.fromEntries(
      Array.from({ length: 101 }, (_, i) => [`p${i}`, { type: 'boolean', default: true }]),
    );
    expect(lines(docWith(many)).join('\n')).toContain('at most 100 parameters');
  });
});

describe('binding $param references', () => {
  const values = resolveParams(PARAMS);
  if (!values.ok) throw new Error('defaults must resolve');

  it('replaces references at any depth, keeping everything else', () => {
    const doc = docWith(PARAMS, {
      maxRounds: { $param: 'rounds' },
      rights: { rtk: { $param: 'rtk' }, rtc: true },
      replicate: { items: { $param: 'styles' }, as: 'style' },
      list: [1, { $param: 'structure' }],
    });
    const bound = bindParams(doc, values.values);
    if (!bound.ok) expect.fail(bound.problems.map(formatProblem).join('\n'));
    expect(bound.doc.nodes[1]!.data).toEqual({
      maxRounds: 3,
      rights: { rtk: false, rtc: true },
      replicate: { items: ['Cubism', 'Fauvism'], as: 'style' },
      list: [1, 'monarchy'],
    });
    // The node without a reference is the same object; the document as written is untouched.
    expect(bound.doc.nodes[0]).toBe(doc.nodes[0]);
    expect(doc.nodes[1]!.data.maxRounds).toEqual({ $param: 'rounds' });
  });

  it('gives back the same document when nothing refers to a parameter', () => {
    const doc = docWith(PARAMS, { maxRounds: 2, note: { $param: 'x', other: 1 } });
    const bound = bindParams(doc, values.values);
    expect(bound.ok && bound.doc).toBe(doc);
  });

  it('names the node and JSON path of an unknown parameter', () => {
    const bound = bindParams(
      docWith(PARAMS, { deep: [{ maxRounds: { $param: 'roundz' } }] }),
      values.values,
    );
    expect(bound.ok ? [] : bound.problems.map(formatProblem)).toEqual([
      'node "storm" (nodes[1].data.deep[0].maxRounds): no parameter "roundz" (parameters: rounds, temperature, rtk, topic, structure, styles)',
    ]);
    const none = bindParams(docWith(undefined, { maxRounds: { $param: 'rounds' } }), {});
    expect(none.ok ? '' : none.problems[0]!.message).toBe(
      'no parameter "rounds" (the document declares none)',
    );
  });
});

describe('values set for a run', () => {
  it('reads text by type, as --set gives it', () => {
    const p = PARAMS;
    expect(parseParamText(p.rounds!, ' 7 ')).toBe(7);
    expect(parseParamText(p.rounds!, 'abc')).toBeUndefined();
    expect(parseParamText(p.rounds!, '11')).toBeUndefined();
    expect(parseParamText(p.rounds!, '2.5')).toBeUndefined();
    expect(parseParamText(p.temperature!, '1.25')).toBe(1.25);
    expect(parseParamText(p.temperature!, '')).toBeUndefined();
    expect(parseParamText(p.rtk!, 'true')).toBe(true);
    expect(parseParamText(p.rtk!, 'No')).toBe(false);
    expect(parseParamText(p.rtk!, 'maybe')).toBeUndefined();
    expect(parseParamText(p.topic!, ' a, b ')).toBe(' a, b ');
    expect(parseParamText(p.structure!, 'democracy')).toBe('democracy');
    expect(parseParamText(p.structure!, 'anarchy')).toBeUndefined();
    expect(parseParamText(p.styles!, 'Cubism, Pop Art')).toEqual(['Cubism', 'Pop Art']);
    expect(parseParamText(p.styles!, '["a, b", "c"]')).toEqual(['a, b', 'c']);
    expect(parseParamText(p.styles!, '[1, 2]')).toBeUndefined();
    expect(parseParamText(p.styles!, '')).toBeUndefined();
  });

  it('takes typed values or text, and says what a bad one should be', () => {
    const ok = resolveParams(PARAMS, { rounds: 5, structure: 'democracy', styles: 'a,b' });
    expect(ok.ok && ok.values).toMatchObject({
      rounds: 5,
      structure: 'democracy',
      styles: ['a', 'b'],
      rtk: false,
    });
    const bad = resolveParams(PARAMS, { rounds: 'abc', roundz: 1, rtk: 'perhaps', topic: 3 });
    expect(bad.ok ? [] : bad.problems.map(formatProblem)).toEqual([
      'params.rounds: rounds is a whole number from 1 to 10',
      'params.roundz: no parameter "roundz" (parameters: rounds, temperature, rtk, topic, structure, styles)',
      'params.rtk: rtk is true or false',
      'params.topic: topic is a text of at most 10,000 characters',
    ]);
  });

  it('records the values used as the defaults of the document', () => {
    const doc = docWith(PARAMS);
    expect(withParamValues(doc, { rounds: 3 })).toBe(doc);
    const recorded = withParamValues(doc, { rounds: 5, styles: ['x'] });
    expect(recorded.params?.rounds).toEqual({ ...PARAMS.rounds, default: 5 });
    expect(recorded.params?.styles?.default).toEqual(['x']);
    expect(Object.keys(recorded.params ?? {})).toEqual(Object.keys(PARAMS));
  });
});
