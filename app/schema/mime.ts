/**
 * MIME types of the bytes a run handles: images read from files or picked on the page, and the
 * images and sounds expert models send back. Pure data and functions, usable in the page too.
 */

/** The image types a run takes as input, by file extension (lower case, no dot). */
export const IMAGE_MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

/** The image types a run takes as input. */
export const IMAGE_MIMES: readonly string[] = [...new Set(Object.values(IMAGE_MIME_BY_EXTENSION))];

/** The image MIME type for a file name, from its extension; undefined if not an image. */
export function imageMimeFor(path: string): string | undefined {
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  return ext ? IMAGE_MIME_BY_EXTENSION[ext] : undefined;
}

/** Recognises common image and audio formats from their first bytes. */
export function sniffMime(bytes: Uint8Array): string | undefined {
  const ascii = (start: number, end: number) => String.fromCharCode(...bytes.subarray(start, end));
  if (bytes[0] === 0x89 && ascii(1, 4) === 'PNG') return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (ascii(0, 4) === 'GIF8') return 'image/gif';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return 'audio/wav';
  if (ascii(0, 4) === 'fLaC') return 'audio/flac';
  if (ascii(0, 4) === 'OggS') return 'audio/ogg';
  if (ascii(0, 3) === 'ID3' || (bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0)) {
    return 'audio/mpeg';
  }
  return undefined;
}

/** Audio and 3D files a run takes as input, by file extension (lower case, no dot). */
export const BINARY_MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  wav: 'audio/wav',
  flac: 'audio/flac',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  m4a: 'audio/mp4',
  webm: 'audio/webm',
  glb: 'model/gltf-binary',
  gltf: 'model/gltf+json',
  obj: 'model/obj',
  stl: 'model/stl',
  ply: 'application/ply',
};

/**
 * The file extension (no dot) for bytes of this MIME type, for writing a run's outputs to files:
 * the first extension the tables above give it, else the subtype's name when it is a plain word,
 * else `bin`.
 */
export function extensionForMime(mime: string): string {
  // `audio/x-wav` is the older name of `audio/wav`.
  const type = mime.split(';')[0]!.trim().toLowerCase().replace('/x-', '/');
  for (const table of [IMAGE_MIME_BY_EXTENSION, BINARY_MIME_BY_EXTENSION])
    for (const [ext, known] of Object.entries(table)) if (known === type) return ext;
  const subtype = /^[a-z]+\/([a-z0-9]+)$/.exec(type)?.[1];
  return subtype ?? 'bin';
}

/** A `data:` URL split into its MIME type and base64 payload. */
export interface DataUrl {
  mime: string;
  base64: string;
  /** The decoded size, from the payload's length. */
  bytes: number;
}

const DATA_URL = /^data:([a-z0-9][\w.+-]*\/[\w.+-]+);base64,([A-Za-z0-9+/]*={0,2})$/i;

/** Reads a base64 `data:` URL, or undefined when `text` is not one. */
export function readDataUrl(text: string): DataUrl | undefined {
  const match = DATA_URL.exec(text);
  if (!match || match[2]!.length % 4 !== 0) return undefined;
  const base64 = match[2]!;
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return { mime: match[1]!.toLowerCase(), base64, bytes: (base64.length / 4) * 3 - padding };
}
