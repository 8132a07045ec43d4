/**
 * Names that every JavaScript object already has (`constructor`, `__proto__`, `toString`…) are
 * refused wherever a document, a command line or a dataset names something, with one line and
 * exit 2; and a dataset row nested deeper than a document may be is refused as "too deep", not
 * with a stack overflow half-way through an eval.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, societyHere } from './support/cli.ts';

/** A document as parsed JSON, loosely typed: the cases edit it into shapes the schema refuses. */
type Doc = {
  models: Record<string, unknown>;
  params: Record<string, unknown>;
  nodes: Array<{ id: string; data: Record<string, unknown> } & Record<string, unknown>>;
};

const DOC = join(ROOT, 'docs/examples/parameters.society.json');
let dir: string;
let db: string;

/** The example document with `edit` applied, written as a file; returns its path. */
function variant(name: string, edit: (doc: Doc) => void): string {
  const doc = JSON.parse(readFileSync(DOC, 'utf8'));
  edit(doc);
  const path = join(dir, `${name}.society.json`);
  writeFileSync(path, JSON.stringify(doc));
  return path;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'society-names-'));
  db = join(dir, 'runs.db');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('prototype names', () => {
  it('refuses a node naming the model profile "constructor" at validate, before any run', async () => {
    const path = variant('ctor', (doc) => {
      for (const node of doc.nodes) if (node.data.model) node.data.model = 'constructor';
    });
    for (const command of [
      ['validate', path],
      ['run', path, '--simulate', '--db', db],
    ]) {
      const result = await societyHere(command);
      expect(result.code, result.stderr).toBe(2);
      const said = result.stdout + result.stderr;
      expect(said).toContain('model profile "constructor" is not defined in "models"');
      expect(said).not.toMatch(/TypeError|at .*\.ts:\d+/);
    }
  });

  it('refuses prototype names as profile names, node ids, parameters and document keys', async () => {
    const cases: Array<[string, (doc: Doc) => void, string]> = [
      [
        'profile',
        (doc) => {
          doc.models = { constructor: doc.models.m };
          for (const node of doc.nodes) if (node.data.model) node.data.model = 'constructor';
        },
        'models.constructor: model profile "constructor": "constructor" cannot be a name: it is reserved',
      ],
      [
        'node-id',
        (doc) => {
          doc.nodes[2]!.id = 'toString';
        },
        'node "toString" (nodes[2].id): "toString" cannot be a name: it is reserved',
      ],
      [
        'param',
        (doc) => {
          Object.assign(doc.params, { valueOf: { type: 'number', default: 1 } });
        },
        'params.valueOf: "valueOf" cannot be a parameter name: it is reserved',
      ],
    ];
    for (const [name, edit, message] of cases) {
      const result = await societyHere(['validate', variant(name, edit)]);
      expect(result.code, name).toBe(2);
      expect(result.stdout + result.stderr, name).toContain(message);
    }
    // `__proto__` as a key survives JSON.parse, so it is written into the file's text.
    const text = readFileSync(DOC, 'utf8').replace('"models": {', '"models": { "__proto__": {},');
    expect(text).toContain('"__proto__"');
    const proto = join(dir, 'proto.society.json');
    writeFileSync(proto, text);
    const result = await societyHere(['validate', proto]);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('models.__proto__: "__proto__" cannot be a key in a document');
  });

  it('refuses --set, --input, --model and --map naming a prototype name', async () => {
    const cases: Array<[string[], string]> = [
      [
        ['validate', DOC, '--set', '__proto__=1'],
        'society: --set __proto__=1: "__proto__" cannot be a name',
      ],
      [
        ['validate', DOC, '--set', 'constructor=1'],
        'society: --set constructor=1: "constructor" cannot',
      ],
      [
        ['run', DOC, '--simulate', '--db', db, '--input', 'hasOwnProperty=x'],
        'society: --input hasOwnProperty=x:',
      ],
      [
        ['run', DOC, '--simulate', '--db', db, '--model', '__proto__=openai:x'],
        'society: --model __proto__=openai:x:',
      ],
    ];
    for (const [args, line] of cases) {
      const result = await societyHere(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain(line);
    }
    const data = join(dir, 'rows.jsonl');
    writeFileSync(data, '{"topic":"tea"}\n');
    const map = await societyHere([
      'eval',
      DOC,
      '--data',
      data,
      '--map',
      'topic=constructor',
      '--db',
      db,
      '--simulate',
    ]);
    expect(map.code).toBe(2);
    expect(map.stderr).toContain('--map topic=constructor: "constructor" cannot be a field name');
  });
});

describe('deep dataset rows', () => {
  it('refuses a 5,000-deep JSONL row as too deep, naming its line', async () => {
    const data = join(dir, 'deep.jsonl');
    const deep = `{"topic":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    writeFileSync(data, `{"topic":"tea"}\n${deep}\n`);
    const result = await societyHere([
      'eval',
      DOC,
      '--data',
      data,
      '--map',
      'topic=topic',
      '--expect',
      'topic',
      '--db',
      db,
      '--simulate',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('deep.jsonl:2: nested too deep: a row nests at most 64 levels');
    expect(result.stderr).not.toContain('Maximum call stack');
  });

  it('refuses a 5,000-deep JSON --input as too deep', async () => {
    const doc = variant('json-input', (d) => {
      d.nodes.push({
        id: 'extra',
        type: 'input',
        position: { x: 0, y: 0 },
        data: { name: 'extra', modality: 'json', default: {} },
      });
    });
    const value = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const result = await societyHere([
      'run',
      doc,
      '--simulate',
      '--db',
      db,
      '--input',
      `extra=${value}`,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('input "extra": nested too deep');
  });
});
