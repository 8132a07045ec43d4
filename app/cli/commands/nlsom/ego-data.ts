/**
 * The data of NLSOM's egocentric retrieval (Zhuge et al., App. I): Ego4D's natural-language
 * queries and the videos' human narrations, in the files Ego4D publishes.
 *
 * - **Queries**: Ego4D NLQ's annotation file (`nlq_val.json`): `videos[] → clips[] →
 *   annotations[] → language_queries[]`, each query with `query`, `template` and its answer
 *   window `clip_start_sec`/`clip_end_sec` in seconds from the clip's start. A clip's own
 *   `video_start_sec`/`video_end_sec` place it in its video.
 * - **Narrations**: Ego4D's `narration.json` (`{ VIDEO_UID: { narration_pass_1: { narrations:
 *   [{ timestamp_sec, narration_text }] } } }`, times from the video's start), or a folder
 *   holding one such entry per video as `VIDEO_UID.json`, or `VIDEO_UID.txt` with one narration
 *   a line, `SECONDS text`. NLSOM's own repository ships no egocentric code or data; the paper
 *   says it used Ego4D's human narrations, and these are Ego4D's formats.
 *
 * A malformed file is refused in one line naming the file, the entry and the field.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** A file that is not what its loader reads: the message names the file, entry and field. */
export class EgoDataError extends Error {}

/** One query as the debate runs it: times in seconds from the start of its clip. */
export interface EgoQuery {
  videoUid: string;
  clipUid: string;
  query: string;
  template?: string;
  /** The answer window, from the clip's start. */
  start: number;
  end: number;
  /** The clip's place in its video (narrations are timed from the video's start). */
  clipStartInVideo: number;
  clipEndInVideo: number;
  /** Where the query is in the file: `videos[0].clips[1].annotations[0].language_queries[2]`. */
  entry: string;
}

/** What the NLQ file held: the queries, and how many had no query text (Ego4D has some). */
export interface NlqData {
  queries: EgoQuery[];
  withoutText: number;
}

/** One narration line, timed from the video's start. */
export interface Narration {
  time: number;
  text: string;
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new EgoDataError(`${file}: cannot read it (${(error as NodeJS.ErrnoException).code})`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new EgoDataError(`${file}: not JSON (${(error as Error).message})`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function list(file: string, owner: Record<string, unknown>, field: string, entry: string) {
  const value = owner[field];
  if (!Array.isArray(value))
    throw new EgoDataError(`${file}: ${entry || 'the top level'} has no list "${field}"`);
  return value;
}

function seconds(file: string, owner: Record<string, unknown>, field: string, entry: string) {
  const value = owner[field];
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw new EgoDataError(
      `${file}: ${entry}: "${field}" must be a number of seconds ≥ 0, got ${JSON.stringify(value) ?? 'nothing'}`,
    );
  return value;
}

function text(file: string, owner: Record<string, unknown>, field: string, entry: string) {
  const value = owner[field];
  if (typeof value !== 'string' || value.trim() === '')
    throw new EgoDataError(
      `${file}: ${entry}: "${field}" must be a text, got ${JSON.stringify(value) ?? 'nothing'}`,
    );
  return value;
}

/**
 * Ego4D NLQ's annotation file. A query with no `query` text (Ego4D's files hold a few) is left
 * out and counted; any other missing or ill-typed field refuses the file.
 */
export function readNlq(file: string): NlqData {
  const root = readJson(file);
  if (!isObject(root)) throw new EgoDataError(`${file}: the top level must be an object`);
  const queries: EgoQuery[] = [];
  let withoutText = 0;
  list(file, root, 'videos', '').forEach((video, v) => {
    const ve = `videos[${v}]`;
    if (!isObject(video)) throw new EgoDataError(`${file}: ${ve} must be an object`);
    const videoUid = text(file, video, 'video_uid', ve);
    list(file, video, 'clips', ve).forEach((clip, c) => {
      const ce = `${ve}.clips[${c}]`;
      if (!isObject(clip)) throw new EgoDataError(`${file}: ${ce} must be an object`);
      const clipUid = text(file, clip, 'clip_uid', ce);
      const clipStartInVideo = seconds(file, clip, 'video_start_sec', ce);
      const clipEndInVideo = seconds(file, clip, 'video_end_sec', ce);
      if (clipEndInVideo <= clipStartInVideo)
        throw new EgoDataError(
          `${file}: ${ce}: "video_end_sec" (${clipEndInVideo}) must be after "video_start_sec" (${clipStartInVideo})`,
        );
      list(file, clip, 'annotations', ce).forEach((annotation, a) => {
        const ae = `${ce}.annotations[${a}]`;
        if (!isObject(annotation)) throw new EgoDataError(`${file}: ${ae} must be an object`);
        list(file, annotation, 'language_queries', ae).forEach((q, i) => {
          const entry = `${ae}.language_queries[${i}]`;
          if (!isObject(q)) throw new EgoDataError(`${file}: ${entry} must be an object`);
          const start = seconds(file, q, 'clip_start_sec', entry);
          const end = seconds(file, q, 'clip_end_sec', entry);
          if (end < start)
            throw new EgoDataError(
              `${file}: ${entry}: "clip_end_sec" (${end}) is before "clip_start_sec" (${start})`,
            );
          if (q.query === undefined || q.query === null) {
            withoutText++;
            return;
          }
          const query = text(file, q, 'query', entry);
          const template = typeof q.template === 'string' ? q.template : undefined;
          queries.push({
            videoUid,
            clipUid,
            query: query.trim(),
            ...(template ? { template } : {}),
            start,
            end,
            clipStartInVideo,
            clipEndInVideo,
            entry,
          });
        });
      });
    });
  });
  return { queries, withoutText };
}

/** One video's entry of Ego4D's narration.json: its passes' narrations, in time order. */
function narrationsOfEntry(file: string, entry: unknown, where: string): Narration[] {
  if (!isObject(entry)) throw new EgoDataError(`${file}: ${where} must be an object`);
  const passes = Object.keys(entry).filter((k) => k.startsWith('narration_pass_'));
  if (passes.length === 0) throw new EgoDataError(`${file}: ${where} has no "narration_pass_1"`);
  // Ego4D has two annotators' passes over many videos; the first is read, as one narration.
  const pass = passes.sort()[0]!;
  const pe = `${where}.${pass}`;
  const body = entry[pass];
  if (!isObject(body)) throw new EgoDataError(`${file}: ${pe} must be an object`);
  return list(file, body, 'narrations', pe)
    .map((n, i) => {
      const ne = `${pe}.narrations[${i}]`;
      if (!isObject(n)) throw new EgoDataError(`${file}: ${ne} must be an object`);
      return {
        time: seconds(file, n, 'timestamp_sec', ne),
        text: text(file, n, 'narration_text', ne),
      };
    })
    .sort((a, b) => a.time - b.time);
}

/** `SECONDS text` lines (blank lines skipped). */
function narrationsOfLines(file: string): Narration[] {
  const out: Narration[] = [];
  readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .forEach((line, i) => {
      if (line.trim() === '') return;
      const match = /^\s*(\d+(?:\.\d+)?)\s+(\S.*)$/.exec(line);
      if (!match)
        throw new EgoDataError(
          `${file}: line ${i + 1}: must start with its time in seconds, then the narration ("124 C opens the drawer")`,
        );
      out.push({ time: Number(match[1]), text: match[2]!.trim() });
    });
  return out.sort((a, b) => a.time - b.time);
}

/** Narrations by video: from narration.json, or a folder of per-video files. */
export interface NarrationSource {
  /** The video's narrations; undefined when the source has none for it. */
  of(videoUid: string): Narration[] | undefined;
  describe: string;
}

/** Opens `--narrations FILE|DIR`. A file is read (and checked) now, a folder's files when asked. */
export function openNarrations(path: string): NarrationSource {
  if (!existsSync(path)) throw new EgoDataError(`${path}: no such file or folder`);
  if (statSync(path).isDirectory()) {
    const cache = new Map<string, Narration[] | undefined>();
    return {
      describe: `${path} (one file a video)`,
      of(uid) {
        if (cache.has(uid)) return cache.get(uid);
        const json = join(path, `${uid}.json`);
        const txt = join(path, `${uid}.txt`);
        const found = existsSync(json)
          ? (() => {
              const entry = readJson(json);
              // A per-video file is the video's entry, or narration.json cut to that video.
              const own = isObject(entry) && isObject(entry[uid]) ? entry[uid] : entry;
              return narrationsOfEntry(json, own, uid);
            })()
          : existsSync(txt)
            ? narrationsOfLines(txt)
            : undefined;
        cache.set(uid, found);
        return found;
      },
    };
  }
  const root = readJson(path);
  if (!isObject(root))
    throw new EgoDataError(`${path}: the top level must be an object of videos by uid`);
  const videos = new Map(
    Object.entries(root).map(([uid, entry]) => [uid, narrationsOfEntry(path, entry, uid)]),
  );
  return { describe: path, of: (uid) => videos.get(uid) };
}

/**
 * The narrations inside a query's clip, as the debate reads them: one line each, its time in
 * seconds from the clip's start, then the text without Ego4D's `#C`/`#O` tag.
 */
export function clipNarrations(all: readonly Narration[], query: EgoQuery): string {
  return all
    .filter((n) => n.time >= query.clipStartInVideo && n.time <= query.clipEndInVideo)
    .map((n) => {
      const t = Math.round((n.time - query.clipStartInVideo) * 10) / 10;
      return `${t} ${n.text.replace(/^#\w+\s+/, '').trim()}`;
    })
    .join('\n');
}
