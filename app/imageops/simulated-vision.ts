/**
 * What a simulated vision model can honestly say about a picture: facts measured from its
 * pixels (size, main colour and background), not a made-up description. A simulated society
 * asked about a red circle then talks about red, and its choices follow.
 */
import { createHash } from 'node:crypto';
import type { ChatRequest } from '../providers/types.ts';
import { DEFAULT_LIMITS } from '../schema/limits.ts';
import { readDataUrl } from '../schema/mime.ts';
import { readImageHeader } from './header.ts';
import { loadSharp } from './sharp.ts';

/** Hue ranges (degrees) and their names, in order around the wheel. */
const HUES: ReadonlyArray<[number, string]> = [
  [15, 'red'],
  [45, 'orange'],
  [70, 'yellow'],
  [170, 'green'],
  [200, 'cyan'],
  [260, 'blue'],
  [300, 'purple'],
  [345, 'pink'],
  [360, 'red'],
];

/** The name of a colour: by hue when it has one, else by lightness. */
function colourName(r: number, g: number, b: number): string {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  if (max - min < 40) return max > 200 ? 'white' : max < 60 ? 'black' : 'grey';
  const d = max - min;
  let hue = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  hue = (hue * 60 + 360) % 360;
  return HUES.find(([end]) => hue < end)?.[1] ?? 'red';
}

/** The most frequent of the names, first seen first on a tie. */
function mostCommon(names: string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/**
 * Facts measured from the first picture in the request's last user message (a data URL), as
 * one sentence: "Measured from the picture: mostly red, the background aside; 64×64 pixels." Undefined when
 * there is no picture it can read (a web address is not fetched), and for a picture of more than
 * `maxPixels` (the run's `settings.limits.imagePixels`), which is never decoded.
 */
export function imageFacts(
  request: ChatRequest,
  maxPixels: number = DEFAULT_LIMITS.imagePixels,
): Promise<string | undefined> {
  const last = request.messages.findLast((m) => m.role === 'user');
  if (!last || typeof last.content === 'string') return Promise.resolve(undefined);
  const image = last.content.find((part) => part.type === 'image');
  const payload = image?.type === 'image' ? readDataUrl(image.url)?.base64 : undefined;
  if (!payload) return Promise.resolve(undefined);
  // Calls about one picture share one measurement, so they also finish in the order they were
  // made: replicas looking at the same image reach the debugger's checkpoints in a fixed order.
  const key = `${createHash('sha256').update(payload).digest('hex')}:${maxPixels}`;
  let facts = measured.get(key);
  if (!facts) {
    facts = measure(payload, maxPixels);
    measured.set(key, facts);
    if (measured.size > MEASURED_KEPT) measured.delete(measured.keys().next().value!);
  }
  return facts;
}

/** Measurements of recent pictures, by the sha256 of their base64 and the budget, oldest first. */
const measured = new Map<string, Promise<string | undefined>>();
const MEASURED_KEPT = 16;

async function measure(payload: string, maxPixels: number): Promise<string | undefined> {
  try {
    const bytes = Buffer.from(payload, 'base64');
    // Sized from its header before anything decodes it: a few kilobytes may claim gigapixels.
    const header = readImageHeader(bytes);
    if (!header || header.width * header.height > maxPixels) return undefined;
    const { width, height } = header;
    const sharp = await loadSharp();
    const { data, info } = await sharp(bytes, { limitInputPixels: maxPixels })
      .resize(32, 32, { fit: 'fill' })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const names: string[] = [];
    for (let i = 0; i + 2 < data.length; i += info.channels) {
      names.push(colourName(data[i]!, data[i + 1]!, data[i + 2]!));
    }
    const neutral = new Set(['white', 'grey', 'black']);
    const coloured = names.filter((n) => !neutral.has(n));
    // The background is the commonest colour at the border; the subject, the commonest other.
    const border = names.filter((_, i) => {
      const x = i % info.width;
      const y = Math.floor(i / info.width);
      return x === 0 || y === 0 || x === info.width - 1 || y === info.height - 1;
    });
    const background = mostCommon(border);
    const main =
      mostCommon(coloured.filter((n) => n !== background)) ??
      mostCommon(names.filter((n) => n !== background)) ??
      background;
    // The background is left unnamed: its colour is not what a question is about.
    const aside = background && main !== background ? ', the background aside' : '';
    return `Measured from the picture: mostly ${main}${aside}; ${width}×${height} pixels.`;
  } catch {
    return undefined;
  }
}
