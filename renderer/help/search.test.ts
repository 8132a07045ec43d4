import { describe, expect, it } from 'vitest';
import type { ApiEvalSummary, ApiResult } from '../../app/api/contract.ts';
import type { FlowNode } from '../model/document.ts';
import { matchesQuery, RESULTS_PER_KIND, searchResults } from './search.ts';
import { shortcutOf } from './shortcuts.ts';

const node = (id: string, type: string, label?: string): FlowNode => ({
  id,
  type,
  position: { x: 0, y: 0 },
  data: label ? { label } : {},
});
const run = (id: string, graph: string, status: string): ApiResult<'runs.list'>[number] => ({
  id,
  graph,
  status,
  startedAt: 0,
  calls: 0,
  tokens: 0,
  mode: 'simulated',
});
const anEval = (evalId: string, name: string): ApiEvalSummary => ({
  evalId,
  name,
  document: 'trivia.society.json',
  data: 'trivia.jsonl',
  status: 'finished',
  items: 3,
  scorer: 'exact',
  simulated: true,
  createdAt: 0,
  variants: [],
});
const titles: Record<string, string> = { agent: 'Agent', vote: 'Vote' };
const sources = {
  nodes: [node('critic', 'agent', 'The critic'), node('tally', 'vote'), node('q', 'input')],
  runs: [run('r-1a2b', 'artist-critic.society.json', 'done'), run('r-9f', 'vote.json', 'failed')],
  evals: [anEval('4f478d77', 'trivia by model')],
  typeTitle: (type: string) => titles[type],
};

describe('the search', () => {
  it('needs every word of the query in some field, case aside', () => {
    expect(matchesQuery('Critic done', ['artist-critic.society.json', 'done'])).toBe(true);
    expect(matchesQuery('critic failed', ['artist-critic.society.json', 'done'])).toBe(false);
    expect(matchesQuery('', ['anything'])).toBe(true);
  });

  it('finds nodes by id, label and type title; runs by document and status; evals by name', () => {
    const found = (q: string) => searchResults(q, sources).map((r) => `${r.kind}:${r.id}`);
    expect(found('critic')).toEqual(['node:critic', 'run:r-1a2b']);
    expect(found('Vote')).toEqual(['node:tally', 'run:r-9f']);
    expect(found('failed')).toEqual(['run:r-9f']);
    expect(found('trivia')).toEqual(['eval:4f478d77']);
    expect(found('   ')).toEqual([]);
    expect(searchResults('critic', sources)[0]).toEqual({
      kind: 'node',
      id: 'critic',
      title: 'The critic',
      detail: 'critic · Agent',
    });
  });

  it('shows at most a handful per kind', () => {
    const many = Array.from({ length: 30 }, (_, i) => node(`agent${i}`, 'agent'));
    expect(searchResults('agent', { ...sources, nodes: many })).toHaveLength(RESULTS_PER_KIND);
  });
});

describe('the shortcuts', () => {
  const press = (key: string, mods: Partial<KeyboardEvent> = {}) =>
    shortcutOf({
      key,
      ctrlKey: false,
      metaKey: false,
      altKey: false,
      shiftKey: false,
      ...mods,
    } as KeyboardEvent);

  it('reads Ctrl or ⌘ with a letter, and ? and / alone', () => {
    expect(press('s', { ctrlKey: true })).toBe('save');
    expect(press('Z', { metaKey: true, shiftKey: true })).toBe('redo');
    expect(press('z', { ctrlKey: true })).toBe('undo');
    expect(press('k', { ctrlKey: true })).toBe('search');
    expect(press('?', { shiftKey: true })).toBe('help');
    expect(press('/')).toBe('search');
    expect(press('z', { ctrlKey: true, altKey: true })).toBeUndefined();
    expect(press('?', { ctrlKey: true })).toBeUndefined();
    expect(press('k')).toBeUndefined();
  });
});
