/**
 * An image's size read from its header, without decoding a pixel. A PNG of a few kilobytes can
 * claim 16383×16383 pixels (a highly compressed all-zero stream), and decoding it takes gigabytes;
 * so every image a run takes from a document, a person, a dataset or a model is measured here
 * first and refused past the run's pixel budget (`settings.limits.imagePixels`).
 *
 * Synchronous and pure on purpose: `--input NAME=@photo.png` is read synchronously, and the page
 * may use it as well. It reads the formats a run accepts (PNG, JPEG, GIF, WebP); anything else
 * is left to the caller (the places that decode refuse it).
 */

/** What the header of an image says about its size. */
export interface ImageHeader {
  format: 'png' | 'jpeg' | 'gif' | 'webp';
  width: number;
  height: number;
  /** Samples per pixel as stored (1 grey … 4 RGBA); decoders widen to 3 or 4. */
  channels: number;
}

/** Thrown for an image larger than the pixel budget; its message names the size and the budget. */
export class ImageTooLargeError extends Error {
  override readonly name = 'ImageTooLargeError';
}

/** The header of a PNG, JPEG, GIF or WebP image, or undefined when the bytes are none of them. */
export function readImageHeader(bytes: Uint8Array): ImageHeader | undefined {
  const header = readPng(bytes) ?? readGif(bytes) ?? readWebp(bytes) ?? readJpeg(bytes);
  // A zero side is no image a decoder makes (JPEG's "height in a later marker" included).
  return header && header.width > 0 && header.height > 0 ? header : undefined;
}

/**
 * Throws an ImageTooLargeError when `bytes` are an image of more than `maxPixels` pixels, naming
 * `what` (e.g. `input "photo"`), the size and the budget; returns the header when it fits, and
 * undefined when the bytes are no image this module reads (the caller decides).
 */
export function checkImagePixels(
  bytes: Uint8Array,
  maxPixels: number,
  what: string,
): ImageHeader | undefined {
  const header = readImageHeader(bytes);
  if (header && header.width * header.height > maxPixels) {
    throw new ImageTooLargeError(
      `${what} is ${header.width}×${header.height} pixels (${megapixels(header.width * header.height)}), ` +
        `past the image budget of ${megapixels(maxPixels)} (settings.limits.imagePixels)`,
    );
  }
  return header;
}

/** "16.8 megapixels": one decimal, for messages. */
export function megapixels(pixels: number): string {
  return `${(pixels / 1e6).toFixed(1)} megapixels`;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** Samples per pixel by PNG colour type: grey, RGB, palette, grey + alpha, RGBA. */
const PNG_CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/** PNG: the signature, then IHDR first (the format requires it): width, height, depth, type. */
function readPng(b: Uint8Array): ImageHeader | undefined {
  if (b.length < 26 || PNG_SIGNATURE.some((byte, i) => b[i] !== byte)) return undefined;
  if (ascii(b, 12, 16) !== 'IHDR') return undefined;
  const channels = PNG_CHANNELS[b[25]!];
  if (channels === undefined) return undefined;
  return { format: 'png', width: u32be(b, 16), height: u32be(b, 20), channels };
}

/** GIF: the logical screen's size, which is what decoders allocate frames at. */
function readGif(b: Uint8Array): ImageHeader | undefined {
  if (b.length < 10) return undefined;
  const magic = ascii(b, 0, 6);
  if (magic !== 'GIF87a' && magic !== 'GIF89a') return undefined;
  return { format: 'gif', width: u16le(b, 6), height: u16le(b, 8), channels: 4 };
}

/** WebP: a RIFF file whose first chunk is VP8 (lossy), VP8L (lossless) or VP8X (extended). */
function readWebp(b: Uint8Array): ImageHeader | undefined {
  if (b.length < 30 || ascii(b, 0, 4) !== 'RIFF' || ascii(b, 8, 12) !== 'WEBP') return undefined;
  const chunk = ascii(b, 12, 16);
  if (chunk === 'VP8 ') {
    // A 3-byte frame tag, the start code 9d 01 2a, then 14-bit width and height.
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return undefined;
    return {
      format: 'webp',
      width: u16le(b, 26) & 0x3fff,
      height: u16le(b, 28) & 0x3fff,
      channels: 3,
    };
  }
  if (chunk === 'VP8L') {
    // The signature 0x2f, then width-1 and height-1 in 14 bits each and an alpha bit.
    if (b[20] !== 0x2f) return undefined;
    const bits = u32le(b, 21);
    return {
      format: 'webp',
      width: (bits & 0x3fff) + 1,
      height: ((bits >>> 14) & 0x3fff) + 1,
      channels: (bits >>> 28) & 1 ? 4 : 3,
    };
  }
  if (chunk === 'VP8X') {
    // Flags (alpha is 0x10), 3 reserved bytes, then canvas width-1 and height-1 in 24 bits each.
    return {
      format: 'webp',
      width: u24le(b, 24) + 1,
      height: u24le(b, 27) + 1,
      channels: b[20]! & 0x10 ? 4 : 3,
    };
  }
  return undefined;
}

/** Start-of-frame markers: C0–CF except DHT (C4), JPG (C8) and DAC (CC). */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/**
 * JPEG: walks the marker segments from SOI to the first start-of-frame (precision, height,
 * width, components). Each step moves forward by a segment's length, so it ends within the bytes.
 */
function readJpeg(b: Uint8Array): ImageHeader | undefined {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return undefined;
  let at = 2;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1]!;
    // Fill bytes, and markers that stand alone (TEM, RSTn).
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    // Entropy-coded data or the end came first: no frame header.
    if (marker === 0xda || marker === 0xd9) return undefined;
    const length = u16be(b, at + 2);
    if (length < 2) return undefined;
    if (isStartOfFrame(marker)) {
      if (at + 10 > b.length) return undefined;
      return {
        format: 'jpeg',
        height: u16be(b, at + 5),
        width: u16be(b, at + 7),
        channels: b[at + 9]!,
      };
    }
    at += 2 + length;
  }
  return undefined;
}

function ascii(b: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...b.subarray(start, end));
}
function u16be(b: Uint8Array, at: number): number {
  return (b[at]! << 8) | b[at + 1]!;
}
function u16le(b: Uint8Array, at: number): number {
  return b[at]! | (b[at + 1]! << 8);
}
function u24le(b: Uint8Array, at: number): number {
  return b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);
}
function u32be(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) >>> 0) + ((b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!);
}
function u32le(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16)) + ((b[at + 3]! << 24) >>> 0);
}
