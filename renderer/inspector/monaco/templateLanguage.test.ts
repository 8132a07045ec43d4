import { describe, expect, it } from 'vitest';
import { templateContextAt, templateSuggestions } from './templateLanguage.ts';

const sources = {
  slots: ['question', 'answers'],
  upstream: [{ node: 'organizer', port: 'question' }],
  documentInputs: ['question', 'image'],
  replicaNames: ['style'],
};

describe('prompt completion', () => {
  it('knows whether the cursor is in prose, at a slot name or at a filter', () => {
    expect(templateContextAt('Answer the question')).toEqual({ kind: 'prose' });
    expect(templateContextAt('Answer {{ ')).toEqual({ kind: 'variable', prefix: '' });
    expect(templateContextAt('Answer {{ que')).toEqual({ kind: 'variable', prefix: 'que' });
    expect(templateContextAt('Answer {{ question }} now')).toEqual({ kind: 'prose' });
    expect(templateContextAt('{{ answers | num')).toEqual({ kind: 'filter', prefix: 'num' });
    expect(templateContextAt('{% for m in ')).toEqual({ kind: 'variable', prefix: '' });
    // A property after a dot is not a slot.
    expect(templateContextAt('{{ loop.ro')).toEqual({ kind: 'prose' });
  });

  it('offers the node own slots first, saying where each is wired from', () => {
    const list = templateSuggestions({ kind: 'variable', prefix: '' }, sources);
    expect(list.map((s) => s.label)).toEqual([
      'question',
      'answers',
      'style',
      'image',
      'organizer',
      'loop',
      'run',
      'replica',
    ]);
    expect(list[0]).toMatchObject({ kind: 'slot', detail: 'input, wired from organizer' });
    expect(list[1]).toMatchObject({ kind: 'slot', detail: 'input, not wired yet' });
  });

  it('filters by what has been typed, and offers filters after a pipe', () => {
    expect(
      templateSuggestions({ kind: 'variable', prefix: 'an' }, sources).map((s) => s.label),
    ).toEqual(['answers']);
    expect(
      templateSuggestions({ kind: 'filter', prefix: 'l' }, sources).map((s) => s.label),
    ).toEqual(['lettered', 'last']);
    expect(templateSuggestions({ kind: 'prose' }, sources)).toEqual([]);
  });
});
