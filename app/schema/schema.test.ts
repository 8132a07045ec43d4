import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agent, edge, graph, input, output } from '../../tests/support/graphs.ts';
import { DOCUMENT_VERSION } from './document.ts';
import { type Migration, migrateDocument } from './migrations.ts';
import { type Modality, modalityFits } from './modality.ts';
import { parseDocument, serializeDocument } from './parse.ts';
import { formatProblem } from './problems.ts';

const VQA = new URL('../../templates/nlsom-vqa.society.json', import.meta.url);

function parsed(input: unknown) {
  const result = parseDocument(input);
  if (!result.ok) expect.fail(result.problems.map(formatProblem).join('\n'));
  return result.doc;
}

function problemsOf(input: unknown) {
  const result = parseDocument(input);
  if (result.ok) expect.fail('expected problems');
  return result.problems;
}

describe('document round trip', () => {
  it('gives back the same document, including fields React Flow adds', () => {
    const doc = {
      ...graph(
        [
          {
            ...input('q'),
            measured: { width: 180, height: 64 },
            selected: true,
            dragging: false,
            width: 180,
          },
          agent('a', 'Answer {{ q }}', { ui: { collapsed: true } }, { zIndex: 3 } as never),
          output('answer'),
        ],
        [
          { ...edge('q.value', 'a.q'), animated: true, selected: false, style: { stroke: 'red' } },
          edge('a.text', 'answer.value'),
        ],
        { settings: { seed: 7, futureSetting: { on: true } } as never },
      ),
      viewport: { x: 10, y: -20, zoom: 1.5 },
    };
    const back = JSON.parse(serializeDocument(parsed(doc)));
    expect(back).toStrictEqual(doc);
    expect(back.nodes[0].measured).toEqual({ width: 180, height: 64 });
    expect(back.viewport).toEqual({ x: 10, y: -20, zoom: 1.5 });
  });

  it('keeps the order of keys, so an unchanged document saves to the same text', () => {
    const doc = {
      edges: [],
      nodes: [{ data: { name: 'q' }, position: { y: 1, x: 0 }, type: 'input', id: 'q' }],
      name: 'ordered',
      version: 1,
    };
    expect(Object.keys(parsed(doc))).toEqual(['edges', 'nodes', 'name', 'version']);
    expect(Object.keys(parsed(doc).nodes[0]!)).toEqual(['data', 'position', 'type', 'id']);
  });

  it('round-trips the VQA template byte for byte', () => {
    const text = readFileSync(VQA, 'utf8');
    expect(serializeDocument(parsed(text))).toBe(text);
  });

  it('saves two-space JSON with a trailing newline', () => {
    const doc = parsed(graph([input('q')], [], { name: 'layout' }));
    const text = serializeDocument(doc);
    expect(text).toBe(`${JSON.stringify(doc, null, 2)}\n`);
    expect(parseDocument(text)).toMatchObject({ ok: true, doc });
  });
});

describe('document problems', () => {
  it('reports text that is not JSON', () => {
    const [problem, ...rest] = problemsOf('{ "version": 1, ');
    expect(rest).toEqual([]);
    expect(problem?.path).toBe('(document)');
    expect(problem?.message).toMatch(/not valid JSON/);
  });

  it('keeps a problem on one line whatever the document quotes back', () => {
    const doc = graph([{ id: 'a\nb', type: 'input', position: { x: 0, y: 0 }, data: {} }]);
    const lines = problemsOf(doc).map(formatProblem);
    expect(lines).toContainEqual(expect.stringMatching(/^node "a\\nb" \(nodes\[0\]\.id\): /));
    for (const line of lines) expect(line).not.toContain('\n');
  });

  it('reports a document that is not an object', () => {
    expect(problemsOf('[1, 2]')[0]?.message).toMatch(/must be a JSON object/);
  });

  it('reports a missing version', () => {
    const { version: _, ...doc } = graph([]);
    expect(problemsOf(doc)).toEqual([
      { path: 'version', message: expect.stringMatching(/missing "version"/) },
    ]);
  });

  it('reports a version from a newer build', () => {
    const [problem] = problemsOf({ ...graph([]), version: DOCUMENT_VERSION + 1 });
    expect(problem?.path).toBe('version');
    expect(problem?.message).toMatch(/newer Society Studio/);
  });

  it('reports a version that is not a positive integer', () => {
    expect(problemsOf({ ...graph([]), version: '1' })[0]?.message).toMatch(/positive integer/);
  });

  it('reports duplicate node and edge ids with their paths and the node', () => {
    const doc = graph(
      [input('q'), output('answer'), input('q', { name: 'other' })],
      [edge('q.value', 'answer.value'), edge('q.value', 'answer.value')],
    );
    const found = problemsOf(doc);
    expect(found).toContainEqual({
      path: 'nodes[2].id',
      node: 'q',
      message: 'duplicate node id "q" (also nodes[0])',
    });
    expect(found).toContainEqual({
      path: 'edges[1].id',
      message: expect.stringContaining('duplicate edge id'),
    });
  });

  it('names the path and node of a field of the wrong shape', () => {
    const doc = graph([{ ...input('q'), position: { x: 'left', y: 0 } } as never]);
    expect(problemsOf(doc)).toContainEqual({
      path: 'nodes[0].position.x',
      node: 'q',
      message: expect.any(String),
    });
  });

  it('rejects node ids that cannot be referenced', () => {
    const [problem] = problemsOf(graph([input('bad id')]));
    expect(problem?.path).toBe('nodes[0].id');
  });
});

describe('migrations', () => {
  const v1to2: Migration = {
    from: 1,
    description: 'renames "title" to "name"',
    up: ({ title, ...rest }) => ({ ...rest, name: title }),
  };
  const v2to3: Migration = {
    from: 2,
    description: 'adds an empty edge list',
    up: (doc) => ({ edges: [], ...doc }),
  };

  it('applies each registered step up to the current version', () => {
    const result = migrateDocument({ version: 1, title: 'old', nodes: [] }, [v2to3, v1to2], 3);
    expect(result).toEqual({
      ok: true,
      doc: { version: 3, name: 'old', nodes: [], edges: [] },
      applied: [v1to2, v2to3],
    });
  });

  it('leaves a current document alone', () => {
    const doc = { version: 3, name: 'n' };
    expect(migrateDocument(doc, [v1to2, v2to3], 3)).toEqual({ ok: true, doc, applied: [] });
  });

  it('refuses a gap in the migrations', () => {
    const result = migrateDocument({ version: 1, title: 'old' }, [v1to2], 3);
    expect(result).toEqual({ ok: false, message: 'no migration from version 2 to 3' });
  });
});

describe('modalities', () => {
  it('lets values flow only where they fit', () => {
    expect(modalityFits('text', 'text')).toBe(true);
    expect(modalityFits('number', 'text')).toBe(true);
    expect(modalityFits('image', 'text')).toBe(false);
    expect(modalityFits('list<text>', 'text')).toBe(false);
    expect(modalityFits('text', 'list<text>')).toBe(false);
    expect(modalityFits('list<number>', 'list<text>')).toBe(true);
    expect(modalityFits('list<image>', 'json')).toBe(false);
    expect(modalityFits('image', 'any')).toBe(true);
    // A document can name anything; what is not a modality fits nowhere.
    expect(modalityFits('picture' as Modality, 'any')).toBe(false);
  });
});
