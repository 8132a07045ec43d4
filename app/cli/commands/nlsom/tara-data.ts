/**
 * TARA's records (Fu et al. 2022, github zeyofu/TARA) as NLSOM's captioning items. TARA ships its
 * splits as JSONL (`train.jsonl`, `gold_dev.jsonl`, `gold_test.jsonl`), one New York Times photo
 * a line with its article's metadata: `image_url` (the photo on static01.nyt.com, which TARA's
 * eval.py downloads to `<images>/<name>` by `nyt_image_url_to_name`), `abstract`, and the
 * article's fields as the NYT API names them, the first paragraph being `lead_paragraph`.
 * NLSOM's captioning score needs that first paragraph (its named entities are what a caption is
 * compared with) and the photo; the abstract is kept for the record. TARA's records carry no
 * named entities: the captioning society extracts them with its own NER expert.
 *
 * A file that is not in that shape is refused in one line naming the file, the entry (`line N`,
 * or `[i]` for a JSON array) and the field.
 */
import { readFileSync } from 'node:fs';

/** A malformed TARA file; its message is the one line the command prints. */
export class TaraDataError extends Error {}

/** One photo to caption. */
export interface TaraItem {
  /** Where it is in the file: `line 3`, or `[2]` in a JSON array. */
  entry: string;
  /** TARA's (the NYT's) id for the record, when it has one. */
  id?: string;
  imageUrl: string;
  /** The article's first paragraph: its named entities score the caption. */
  paragraph: string;
  abstract?: string;
}

/** The field names the first paragraph is read from, in order (NYT's name first). */
export const PARAGRAPH_FIELDS = ['lead_paragraph', 'first_paragraph', 'paragraph'] as const;

const NYT_STATIC = 'https://static01.nyt.com/';

/**
 * The file names a record's photo may have in the images folder: TARA's own
 * (`nyt_image_url_to_name`: the URL after static01.nyt.com/ with `/` as `-`, `.jpg` added when
 * missing), then the URL's last segment without its query.
 */
export function taraImageNames(url: string): string[] {
  let own = url.replace(NYT_STATIC, '').replaceAll('/', '-');
  if (!own.endsWith('.jpg')) own = `${own}.jpg`;
  const last = url.split('?')[0]!.split('/').pop() ?? '';
  return [...new Set([own, last].filter((n) => n !== '' && n !== '.jpg'))];
}

const got = (value: unknown) => JSON.stringify(value)?.slice(0, 60) ?? 'nothing';
const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

function item(file: string, entry: string, record: unknown): TaraItem {
  if (!isObject(record)) throw new TaraDataError(`${file}: ${entry} must be an object`);
  const url = record.image_url;
  if (typeof url !== 'string' || url.trim() === '')
    throw new TaraDataError(
      `${file}: ${entry}: "image_url" must be a text (the photo's address), got ${got(url)}`,
    );
  const field = PARAGRAPH_FIELDS.find((f) => record[f] !== undefined) ?? PARAGRAPH_FIELDS[0];
  const paragraph = record[field];
  if (typeof paragraph !== 'string' || paragraph.trim() === '')
    throw new TaraDataError(
      `${file}: ${entry}: "${field}" must be a text (the article's first paragraph), got ${got(paragraph)}`,
    );
  const abstract = record.abstract;
  if (abstract !== undefined && abstract !== null && typeof abstract !== 'string')
    throw new TaraDataError(`${file}: ${entry}: "abstract" must be a text, got ${got(abstract)}`);
  const id = record._id ?? record.id;
  return {
    entry,
    ...(typeof id === 'string' || typeof id === 'number' ? { id: String(id) } : {}),
    imageUrl: url.trim(),
    paragraph: paragraph.trim(),
    ...(typeof abstract === 'string' ? { abstract } : {}),
  };
}

/** Reads a TARA file: JSONL as TARA ships it, or a JSON array of the same records. */
export function readTara(file: string): TaraItem[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new TaraDataError(`${file}: cannot read it (${(error as NodeJS.ErrnoException).code})`);
  }
  if (text.trimStart().startsWith('[')) {
    let rows: unknown;
    try {
      rows = JSON.parse(text);
    } catch (error) {
      throw new TaraDataError(`${file}: not JSON (${(error as Error).message})`);
    }
    return (rows as unknown[]).map((row, i) => item(file, `[${i}]`, row));
  }
  const items: TaraItem[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      throw new TaraDataError(
        `${file}: line ${i + 1}: not JSON (TARA's files have one record a line)`,
      );
    }
    items.push(item(file, `line ${i + 1}`, row));
  });
  return items;
}
