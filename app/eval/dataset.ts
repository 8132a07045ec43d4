/**
 * Reading an eval's dataset: JSON Lines (one object a line), CSV with a header row, or the
 * multiple-choice text format NLSOM's VQA experiment reads A-OKVQA from (one question a line,
 * fields separated by `_!_`: image path, question, the options as a Python list, the index of
 * the right one). A multiple-choice row's `question` carries its lettered options, as NLSOM asks
 * it: a society mapped to `question` sees the choices it is scored on.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { protoKeyAt, tooDeepAt } from '../schema/bounds.ts';
import { DOCUMENT_BOUNDS } from '../schema/limits.ts';
import { prototypeNameMessage } from '../schema/names.ts';

/** One row: field name to value. */
export type DataRow = Record<string, unknown>;

export interface Dataset {
  /** The file as given. */
  path: string;
  /** Its folder: `INPUT=@FIELD` paths are relative to it. */
  dir: string;
  /** SHA-256 of its bytes: an eval over changed data is another eval. */
  hash: string;
  format: 'jsonl' | 'csv' | 'mc-text';
  /** Every row of the file (a limit applies later). */
  rows: DataRow[];
}

/** A dataset that cannot be read, with the line at fault. */
export class DatasetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatasetError';
  }
}

/** Reads `path` by its extension: .jsonl/.ndjson, .csv, or .txt in the `_!_` format. */
export function readDataset(path: string): Dataset {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new DatasetError(
      `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  const ext = extname(path).toLowerCase();
  const base = { path, dir: dirname(resolve(path)), hash: sha256(bytes) };
  if (ext === '.csv') return { ...base, format: 'csv', rows: csvRows(text, path) };
  if (ext === '.txt' && text.includes('_!_'))
    return { ...base, format: 'mc-text', rows: mcRows(text, path) };
  if (ext === '.jsonl' || ext === '.ndjson' || ext === '.json')
    return { ...base, format: 'jsonl', rows: jsonlRows(text, path) };
  throw new DatasetError(
    `${path}: give a .jsonl, .csv, or .txt file with _!_-separated multiple-choice questions`,
  );
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function jsonlRows(text: string, path: string): DataRow[] {
  const rows: DataRow[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new DatasetError(`${path}:${index + 1}: not JSON (${(error as Error).message})`);
    }
    if (!value || typeof value !== 'object' || Array.isArray(value))
      throw new DatasetError(`${path}:${index + 1}: each line must be a JSON object`);
    // JSON.parse takes any depth, but what reads a row later (the schema, templates,
    // JSON.stringify) recurses: a row 5,000 deep would overflow the stack mid-eval.
    if (tooDeepAt(value, DOCUMENT_BOUNDS.maxDepth))
      throw new DatasetError(
        `${path}:${index + 1}: nested too deep: a row nests at most ${DOCUMENT_BOUNDS.maxDepth} levels`,
      );
    if (protoKeyAt(value))
      throw new DatasetError(`${path}:${index + 1}: ${prototypeNameMessage('__proto__', 'a key')}`);
    rows.push(value as DataRow);
  }
  if (rows.length === 0) throw new DatasetError(`${path}: no rows`);
  return rows;
}

function csvRows(text: string, path: string): DataRow[] {
  let rows: DataRow[];
  try {
    rows = parseCsv(text, {
      columns: true,
      skip_empty_lines: true,
      trim: true,
      bom: true,
    }) as DataRow[];
  } catch (error) {
    throw new DatasetError(`${path}: ${(error as Error).message}`);
  }
  if (rows.length === 0) throw new DatasetError(`${path}: no rows under the header`);
  return rows;
}

/** `(a) toothpick (b) food …`: a multiple-choice question's options, lettered as NLSOM asks them. */
export function letteredOptions(choices: readonly string[]): string {
  return choices.map((c, i) => `(${String.fromCharCode(97 + i)}) ${c}`).join(' ');
}

/** The question followed by its lettered options: what NLSOM's leader is asked. */
export function questionWithOptions(question: string, choices: readonly string[]): string {
  return `${question.trim()} ${letteredOptions(choices)}`;
}

/**
 * `image_!_What is it?_!_['a', 'b', 'c', 'd']_!_2` → { image, question: 'What is it? (a) a (b) b
 * (c) c (d) d', stem: 'What is it?', options: '(a) a (b) b (c) c (d) d', choices, answer: 2,
 * answerLetter: 'C', answerText }. The options are in the question (a letter means nothing
 * without them) and also fields of their own, so `--map` can reach the bare question too.
 */
function mcRows(text: string, path: string): DataRow[] {
  const rows: DataRow[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const parts = line.trim().split('_!_');
    const where = `${path}:${index + 1}`;
    if (parts.length !== 4)
      throw new DatasetError(`${where}: expected 4 fields separated by _!_, found ${parts.length}`);
    const [image, question, list, answerText] = parts as [string, string, string, string];
    const choices = pythonStringList(list, where);
    const answer = Number(answerText);
    if (!Number.isInteger(answer) || answer < 0 || answer >= choices.length)
      throw new DatasetError(
        `${where}: the answer "${answerText}" is not an index into ${choices.length} options`,
      );
    rows.push({
      image,
      question: questionWithOptions(question, choices),
      stem: question.trim(),
      options: letteredOptions(choices),
      choices,
      answer,
      answerLetter: String.fromCharCode(65 + answer),
      answerText: choices[answer],
    });
  }
  if (rows.length === 0) throw new DatasetError(`${path}: no questions`);
  return rows;
}

/** `['one', "it's"]` → ["one", "it's"]: a list of quoted strings, read without evaluating it. */
function pythonStringList(text: string, where: string): string[] {
  const inner = text.trim();
  if (!inner.startsWith('[') || !inner.endsWith(']'))
    throw new DatasetError(`${where}: the options must be a [...] list`);
  const items: string[] = [];
  const pattern = /\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\s*(,|$)/y;
  const body = inner.slice(1, -1);
  pattern.lastIndex = 0;
  while (pattern.lastIndex < body.length) {
    const match = pattern.exec(body);
    if (!match) throw new DatasetError(`${where}: cannot read the options list ${inner}`);
    items.push((match[1] ?? match[2] ?? '').replace(/\\(.)/g, '$1'));
    if (match[3] === '') break;
  }
  if (items.length < 2) throw new DatasetError(`${where}: fewer than two options`);
  return items;
}
