/**
 * How a node's latest value reads on its card: what its last copy gave, summarized. A node type
 * may say it in its own words (`NodeView.value` in its `view.tsx`: a vote's winner, a router's
 * branch); every other node gets the generic summary here: text clipped with a way to expand
 * it, an image as a thumbnail, a list as its count and first item, anything else as compact
 * JSON. Pure, so the summaries are tested without a page.
 */
import { blobHashOf } from '../../app/schema/blob-refs.ts';
import type { NodeValue } from './run.ts';

/** What a card shows of a value. `label` names the port it came from, when that helps. */
export type ValueSummary =
  | { kind: 'text'; text: string; label?: string }
  | { kind: 'json'; text: string; label?: string }
  | { kind: 'image'; hash: string; mime: string; label?: string }
  | { kind: 'list'; count: number; first: string; label?: string }
  /** A choice the node made: `winner` `paris`, with a detail (`3 of 5 ballots`). */
  | { kind: 'choice'; label: string; value: string; detail?: string };

/** What a node type's value hook is given. */
export type ValueHook<D = Record<string, unknown>> = (
  value: NodeValue,
  data: D,
) => ValueSummary | undefined;

/** The port whose value stands for the node when it has several: `text`, then the first. */
function mainPort(outputs: Record<string, unknown>): string | undefined {
  const names = Object.keys(outputs);
  return names.includes('text') ? 'text' : names[0];
}

/** One value, summarized; `label` is kept on the summary. */
export function summarizeOne(value: unknown, label?: string): ValueSummary {
  const named = label === undefined ? {} : { label };
  const hash = blobHashOf(value);
  if (hash !== undefined) {
    return { kind: 'image', hash, mime: (value as { mime: string }).mime, ...named };
  }
  if (typeof value === 'string') return { kind: 'text', text: value, ...named };
  if (Array.isArray(value)) {
    const first = value[0];
    return {
      kind: 'list',
      count: value.length,
      first: first === undefined ? '' : typeof first === 'string' ? first : compact(first),
      ...named,
    };
  }
  return { kind: 'json', text: compact(value), ...named };
}

/**
 * The generic summary of a node's value: its main output (`text`, else the first), labelled
 * with the port's name when the node gave more than one. Undefined when it gave nothing.
 */
export function defaultSummary(value: NodeValue): ValueSummary | undefined {
  const port = mainPort(value.outputs);
  if (port === undefined) return undefined;
  const several = Object.keys(value.outputs).length > 1;
  return summarizeOne(value.outputs[port], several ? port : undefined);
}

/**
 * The node type's summary when it has a hook that gives one, else the generic one. A hook that
 * throws (a value of an unexpected shape) falls back to the generic summary.
 */
export function summarizeValue<D>(
  value: NodeValue,
  data: D | undefined,
  hook: ValueHook<D> | undefined,
): ValueSummary | undefined {
  if (hook && data !== undefined) {
    try {
      const own = hook(value, data);
      if (own) return own;
    } catch {
      // The generic summary below still shows what the node gave.
    }
  }
  return defaultSummary(value);
}

/** JSON on one line, as short as JSON goes. */
export function compact(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Text longer than this, or with more lines than the card shows, gets a "more" toggle. */
const CLIP_CHARS = 120;
const CLIP_LINES = 3;

/** Whether text is long enough to be clipped on a card: about three lines, or `lines`. */
export function isLong(text: string, lines: number = CLIP_LINES): boolean {
  return text.length > (CLIP_CHARS / CLIP_LINES) * lines || text.split('\n').length > lines;
}

/**
 * Which copy of a replicated node gave the value: `critic#3` is copy 4 of `count`. Undefined
 * for a node that is not replicated or an instance that names no copy.
 */
export function copyOf(
  instance: string,
  node: string,
  count: number | undefined,
): { index: number; of: number } | undefined {
  if (!count) return undefined;
  const escaped = node.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const index = Number(new RegExp(`(?:^|/)${escaped}#(\\d+)(?:[/@]|$)`).exec(instance)?.[1]);
  return Number.isInteger(index) ? { index, of: count } : undefined;
}

/**
 * A summary in a few words, for a card zoomed out (its `data-lod-value`): a choice's value, a
 * list's count, the start of a text; an image says so.
 */
export function fewWords(summary: ValueSummary, most = 28): string {
  const cut = (text: string) => {
    const line = text.replace(/\s+/g, ' ').trim();
    return line.length > most ? `${line.slice(0, most - 1)}…` : line;
  };
  switch (summary.kind) {
    case 'choice':
      return cut(`${summary.label} ${summary.value}`);
    case 'list':
      return `${summary.count} item${summary.count === 1 ? '' : 's'}`;
    case 'image':
      return 'image';
    default:
      return cut(summary.text);
  }
}
