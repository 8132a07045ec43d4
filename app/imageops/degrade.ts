/**
 * Image degradations and simple local restorations for benchmark tasks modelled on OpenAGI.
 *
 * Degradations turn a clean image into a task input: low resolution, Gaussian noise, Gaussian
 * blur or grayscale, applied in the order given. The OpenAGI paper names these degradations but
 * gives no parameters, so every default here (factor 4, noise sigma 25, blur sigma 2, Rec. 601
 * luma) is our own choice and is documented in README.md beside this file.
 *
 * Restorations are plain local image processing, offered where a learned expert model is not
 * available offline: a Lanczos upscale stands in for super-resolution, a median filter for
 * denoising and an unsharp mask for deblurring. There is no local colorization.
 *
 * Every operation decodes the input once to 8-bit sRGB pixels (3 channels, or 4 when the image
 * has an alpha channel), works on those pixels and encodes the result as PNG. Alpha is carried
 * through unchanged by the pixel-level steps (noise, grayscale).
 */
import type { OutputInfo, Sharp } from 'sharp';
import { seededRandom } from '../node-sdk/random.ts';
import { DEFAULT_LIMITS } from '../schema/limits.ts';
import { checkImagePixels, megapixels } from './header.ts';
import { loadSharp } from './sharp.ts';

/** One degradation step. Optional fields fall back to the defaults named on each field. */
export type Degradation =
  | {
      kind: 'low-resolution';
      /** How much to shrink each side: the small image is 1/factor of width and height. Default 4. */
      factor?: number;
      /**
       * Scale the small image back to the original size with nearest neighbour, so the result
       * is blocky at the original size, as benchmark inputs are. Default true; false keeps the
       * small image.
       */
      restoreSize?: boolean;
    }
  | {
      kind: 'noise';
      /** Standard deviation of the additive Gaussian noise on the 0..255 scale. Default 25. */
      sigma?: number;
    }
  | {
      kind: 'blur';
      /** Standard deviation of the Gaussian blur in pixels. Default 2; 0 leaves the image as is. */
      sigma?: number;
    }
  | {
      /** Rec. 601 luma written to all three colour channels (the image stays RGB). */
      kind: 'grayscale';
    };

/** A local restoration: the offline stand-in for a super-resolution, denoising or deblur model. */
export type Restoration =
  | {
      kind: 'upscale';
      /** Scale factor for width and height, Lanczos resampling. Default 2. */
      factor?: number;
    }
  | {
      kind: 'denoise';
      /** Side of the square median window in pixels. Default 3. */
      size?: number;
    }
  | {
      kind: 'deblur';
      /** Sigma of the unsharp mask's Gaussian in pixels. Default 2; 0 leaves the image as is. */
      sigma?: number;
      /** How much of the detail (image minus its blur) to add back. Default 1; 0 changes nothing. */
      amount?: number;
    };

/** An encoded result image. */
export type ImageResult = {
  bytes: Uint8Array;
  mime: 'image/png';
  width: number;
  height: number;
};

export const DEFAULT_LOW_RESOLUTION_FACTOR = 4;
export const DEFAULT_NOISE_SIGMA = 25;
export const DEFAULT_BLUR_SIGMA = 2;
export const DEFAULT_UPSCALE_FACTOR = 2;
export const DEFAULT_DENOISE_SIZE = 3;
export const DEFAULT_DEBLUR_SIGMA = 2;
export const DEFAULT_DEBLUR_AMOUNT = 1;

/**
 * How large an image an operation reads or makes, in pixels (width × height): a run's
 * `settings.limits.imagePixels`, the default limit when absent. An input past it is refused from
 * its header, before a pixel is decoded.
 */
export type PixelBudget = { maxPixels?: number };
/** libvips' Gaussian blur needs a sigma of at least this; smaller non-zero values are refused. */
const MIN_BLUR_SIGMA = 0.3;
const MAX_BLUR_SIGMA = 1000;
const MAX_NOISE_SIGMA = 1000;
const MAX_DEBLUR_AMOUNT = 100;
const MAX_MEDIAN_SIZE = 255;

/** Decoded pixels: 8-bit, row-major, interleaved sRGB with an optional alpha channel. */
type Pixels = { data: Uint8Array; width: number; height: number; channels: 3 | 4 };

/**
 * Applies `steps` to the image in `input`, in order, and returns the result as PNG.
 * Noise is drawn from a PRNG seeded with `options.seed` and the step's position, so the same
 * input, steps and seed always give the same bytes, and two noise steps in one list differ.
 */
export async function degradeImage(
  input: Uint8Array,
  steps: Degradation[],
  options: { seed: string | number } & PixelBudget,
): Promise<ImageResult> {
  if (!Array.isArray(steps)) throw new Error('degradeImage: steps must be an array');
  const seed = options?.seed;
  if (typeof seed !== 'string' && typeof seed !== 'number') {
    throw new Error('degradeImage: options.seed must be a string or a number');
  }
  // Check every step before decoding, so a bad list fails fast and whole.
  steps.forEach((step, index) => {
    checkDegradation(step, index);
  });
  let pixels = await decode(input, 'degradeImage', options?.maxPixels);
  for (const [index, step] of steps.entries()) {
    pixels = await applyDegradation(pixels, step, `${seed}:${index}`);
  }
  return encode(pixels);
}

/** Applies one local restoration to the image in `input` and returns the result as PNG. */
export async function restoreImage(
  input: Uint8Array,
  op: Restoration,
  options: PixelBudget = {},
): Promise<ImageResult> {
  checkRestoration(op);
  const maxPixels = options.maxPixels ?? DEFAULT_LIMITS.imagePixels;
  const pixels = await decode(input, 'restoreImage', maxPixels);
  switch (op.kind) {
    case 'upscale': {
      const factor = op.factor ?? DEFAULT_UPSCALE_FACTOR;
      const width = Math.max(1, Math.round(pixels.width * factor));
      const height = Math.max(1, Math.round(pixels.height * factor));
      // What it makes is bounded as what it reads: a result is the next step's input.
      if (width * height > maxPixels) {
        throw new Error(
          `restoreImage: upscale by ${factor} would make a ${width}×${height} image, ` +
            `past the ${megapixels(maxPixels)} pixel limit (settings.limits.imagePixels)`,
        );
      }
      return encode(
        await viaSharp(pixels, (image) =>
          image.resize(width, height, { fit: 'fill', kernel: 'lanczos3' }),
        ),
      );
    }
    case 'denoise': {
      const size = op.size ?? DEFAULT_DENOISE_SIZE;
      if (size === 1) return encode(pixels);
      return encode(await viaSharp(pixels, (image) => image.median(size)));
    }
    case 'deblur': {
      const sigma = op.sigma ?? DEFAULT_DEBLUR_SIGMA;
      const amount = op.amount ?? DEFAULT_DEBLUR_AMOUNT;
      if (sigma === 0 || amount === 0) return encode(pixels);
      return encode(await unsharpMask(pixels, sigma, amount));
    }
  }
}

/** Words from OpenAGI-style task descriptions, lower case, mapped to the step they name. */
const DEGRADATION_WORDS: Record<string, Degradation> = {
  'low-resolutioned': { kind: 'low-resolution' },
  'low-resolution': { kind: 'low-resolution' },
  'low-res': { kind: 'low-resolution' },
  noisy: { kind: 'noise' },
  noised: { kind: 'noise' },
  blurry: { kind: 'blur' },
  blurred: { kind: 'blur' },
  grayscale: { kind: 'grayscale' },
  greyscale: { kind: 'grayscale' },
  gray: { kind: 'grayscale' },
  grey: { kind: 'grayscale' },
};

/**
 * Maps degradation words from a task description ("low-resolutioned", "noisy", "blurry",
 * "grayscale", "gray", ...) to steps with default parameters, in the order given. Case and
 * surrounding punctuation are ignored ("Noisy," counts); blank words are skipped; any other
 * word is returned in `unknown`, as written, rather than dropped silently.
 */
export function parseDegradations(words: string[]): { steps: Degradation[]; unknown: string[] } {
  const steps: Degradation[] = [];
  const unknown: string[] = [];
  for (const word of words) {
    const key = word
      .trim()
      .toLowerCase()
      .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (key === '') continue;
    const step = DEGRADATION_WORDS[key];
    if (step) steps.push({ ...step });
    else unknown.push(word);
  }
  return { steps, unknown };
}

function checkDegradation(step: Degradation, index: number): void {
  const where = `degradeImage: step ${index}`;
  if (typeof step !== 'object' || step === null) throw new Error(`${where} is not an object`);
  switch (step.kind) {
    case 'low-resolution':
      if (step.factor !== undefined) checkFactor(step.factor, `${where} (low-resolution)`);
      return;
    case 'noise':
      if (step.sigma !== undefined) checkSigma(step.sigma, `${where} (noise)`, MAX_NOISE_SIGMA);
      return;
    case 'blur':
      if (step.sigma !== undefined) checkBlurSigma(step.sigma, `${where} (blur)`, MAX_BLUR_SIGMA);
      return;
    case 'grayscale':
      return;
    default:
      throw new Error(
        `${where} has unknown kind ${JSON.stringify((step as { kind?: unknown }).kind)}; ` +
          `expected low-resolution, noise, blur or grayscale`,
      );
  }
}

function checkRestoration(op: Restoration): void {
  if (typeof op !== 'object' || op === null) throw new Error('restoreImage: op is not an object');
  switch (op.kind) {
    case 'upscale':
      if (op.factor !== undefined) checkFactor(op.factor, 'restoreImage (upscale)');
      return;
    case 'denoise':
      if (
        op.size !== undefined &&
        (!Number.isInteger(op.size) || op.size < 1 || op.size > MAX_MEDIAN_SIZE)
      ) {
        throw new Error(
          `restoreImage (denoise): size must be a whole number from 1 to ${MAX_MEDIAN_SIZE}, ` +
            `got ${String(op.size)}`,
        );
      }
      return;
    case 'deblur':
      if (op.sigma !== undefined) {
        checkBlurSigma(op.sigma, 'restoreImage (deblur)', MAX_BLUR_SIGMA);
      }
      if (
        op.amount !== undefined &&
        (typeof op.amount !== 'number' || !(op.amount >= 0) || op.amount > MAX_DEBLUR_AMOUNT)
      ) {
        throw new Error(
          `restoreImage (deblur): amount must be a number from 0 to ${MAX_DEBLUR_AMOUNT}, ` +
            `got ${String(op.amount)}`,
        );
      }
      return;
    default:
      throw new Error(
        `restoreImage: unknown kind ${JSON.stringify((op as { kind?: unknown }).kind)}; ` +
          `expected upscale, denoise or deblur`,
      );
  }
}

function checkFactor(factor: number, where: string): void {
  if (typeof factor !== 'number' || !Number.isFinite(factor) || factor < 1) {
    throw new Error(
      `${where}: factor must be a finite number of at least 1, got ${String(factor)}`,
    );
  }
}

function checkSigma(sigma: number, where: string, max: number): void {
  if (typeof sigma !== 'number' || Number.isNaN(sigma)) {
    throw new Error(`${where}: sigma must be a number, got ${String(sigma)}`);
  }
  if (sigma < 0) throw new Error(`${where}: sigma must not be negative, got ${sigma}`);
  if (sigma > max) throw new Error(`${where}: sigma must be at most ${max}, got ${sigma}`);
}

function checkBlurSigma(sigma: number, where: string, max: number): void {
  checkSigma(sigma, where, max);
  if (sigma > 0 && sigma < MIN_BLUR_SIGMA) {
    throw new Error(
      `${where}: sigma must be 0 (no blur) or at least ${MIN_BLUR_SIGMA}, got ${sigma}`,
    );
  }
}

async function applyDegradation(pixels: Pixels, step: Degradation, seed: string): Promise<Pixels> {
  switch (step.kind) {
    case 'low-resolution':
      return lowResolution(
        pixels,
        step.factor ?? DEFAULT_LOW_RESOLUTION_FACTOR,
        step.restoreSize ?? true,
      );
    case 'noise':
      return addGaussianNoise(pixels, step.sigma ?? DEFAULT_NOISE_SIGMA, seed);
    case 'blur': {
      const sigma = step.sigma ?? DEFAULT_BLUR_SIGMA;
      if (sigma === 0) return pixels;
      return viaSharp(pixels, (image) => image.blur(sigma));
    }
    case 'grayscale':
      return toGrayscale(pixels);
  }
}

/**
 * Shrinks to 1/factor of each side with a bicubic filter (the usual way super-resolution test
 * images are made), then, when `restoreSize`, scales back to the exact original size with
 * nearest neighbour. Sides never drop below one pixel.
 */
async function lowResolution(
  pixels: Pixels,
  factor: number,
  restoreSize: boolean,
): Promise<Pixels> {
  const width = Math.max(1, Math.round(pixels.width / factor));
  const height = Math.max(1, Math.round(pixels.height / factor));
  const small = await viaSharp(pixels, (image) =>
    image.resize(width, height, { fit: 'fill', kernel: 'cubic' }),
  );
  if (!restoreSize) return small;
  return viaSharp(small, (image) =>
    image.resize(pixels.width, pixels.height, { fit: 'fill', kernel: 'nearest' }),
  );
}

/**
 * Adds independent Gaussian noise with standard deviation `sigma` to every colour channel of
 * every pixel (alpha is left alone), rounding and clamping to 0..255. Normal values come from
 * the seeded PRNG by the Box–Muller transform, two per pair of uniform draws.
 */
function addGaussianNoise(pixels: Pixels, sigma: number, seed: string): Pixels {
  if (sigma === 0) return pixels;
  const random = seededRandom(seed);
  let spare: number | undefined;
  const normal = (): number => {
    if (spare !== undefined) {
      const value = spare;
      spare = undefined;
      return value;
    }
    // 1 - random() lies in (0, 1], so the logarithm is finite.
    const radius = Math.sqrt(-2 * Math.log(1 - random()));
    const angle = 2 * Math.PI * random();
    spare = radius * Math.sin(angle);
    return radius * Math.cos(angle);
  };
  const { data, channels } = pixels;
  const out = new Uint8Array(data);
  for (let i = 0; i < out.length; i += channels) {
    for (let c = 0; c < 3; c++) {
      const value = Math.round(out[i + c]! + sigma * normal());
      out[i + c] = value < 0 ? 0 : value > 255 ? 255 : value;
    }
  }
  return { ...pixels, data: out };
}

/**
 * Classic unsharp mask on every colour channel: out = in + amount * (in - gaussian(in, sigma)),
 * rounded and clamped to 0..255; alpha is kept. It steepens edges a blur has softened, but it
 * cannot recover detail the blur removed and it amplifies noise along with edges.
 */
async function unsharpMask(pixels: Pixels, sigma: number, amount: number): Promise<Pixels> {
  const blurred = await viaSharp(pixels, (image) => image.blur(sigma));
  const { data, channels } = pixels;
  const out = new Uint8Array(data);
  for (let i = 0; i < out.length; i += channels) {
    for (let c = 0; c < 3; c++) {
      const value = data[i + c]!;
      const sharpened = Math.round(value + amount * (value - blurred.data[i + c]!));
      out[i + c] = sharpened < 0 ? 0 : sharpened > 255 ? 255 : sharpened;
    }
  }
  return { ...pixels, data: out };
}

/** Writes Rec. 601 luma (0.299 R + 0.587 G + 0.114 B) to R, G and B; alpha is kept. */
function toGrayscale(pixels: Pixels): Pixels {
  const { data, channels } = pixels;
  const out = new Uint8Array(data);
  for (let i = 0; i < out.length; i += channels) {
    const luma = Math.round(0.299 * out[i]! + 0.587 * out[i + 1]! + 0.114 * out[i + 2]!);
    out[i] = luma;
    out[i + 1] = luma;
    out[i + 2] = luma;
  }
  return { ...pixels, data: out };
}

/**
 * Decodes an image the run was given or sent (a document's example, a dataset's picture, a
 * model's answer). Its header is read first: past `maxPixels` it is refused before sharp sees it,
 * and bytes that are no PNG, JPEG, GIF or WebP are refused too, so no other decoder (SVG, TIFF,
 * HEIF) is reachable from a document. sharp's own `limitInputPixels` is the backstop, should a
 * header and its image ever disagree.
 */
async function decode(
  input: Uint8Array,
  where: string,
  maxPixels = DEFAULT_LIMITS.imagePixels,
): Promise<Pixels> {
  if (!(input instanceof Uint8Array)) {
    throw new Error(`${where}: input must be the bytes of an image (a Uint8Array)`);
  }
  if (input.byteLength === 0) throw new Error(`${where}: input is empty, not an image`);
  if (!checkImagePixels(input, maxPixels, `${where}: the input`)) {
    throw new Error(
      `${where}: input is not an image that can be read (not a PNG, JPEG, GIF or WebP)`,
    );
  }
  let result: { data: Buffer; info: OutputInfo };
  const sharp = await loadSharp();
  try {
    result = await sharp(input, { limitInputPixels: maxPixels })
      .autoOrient()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`${where}: input is not an image that can be read (${reason})`);
  }
  const { data, info } = result;
  if (info.channels !== 3 && info.channels !== 4) {
    throw new Error(`${where}: unexpected ${info.channels}-channel image after decoding`);
  }
  return {
    data: toPlainBytes(data),
    width: info.width,
    height: info.height,
    channels: info.channels,
  };
}

/**
 * Runs one sharp operation on decoded pixels and returns the decoded result. Raw pixels are our
 * own, already within the budget, so no header is checked here.
 */
async function viaSharp(pixels: Pixels, operate: (image: Sharp) => Sharp): Promise<Pixels> {
  const sharp = await loadSharp();
  const image = sharp(pixels.data, {
    raw: { width: pixels.width, height: pixels.height, channels: pixels.channels },
  });
  const { data, info } = await operate(image)
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== pixels.channels) {
    throw new Error(`image operation changed ${pixels.channels} channels to ${info.channels}`);
  }
  return {
    data: toPlainBytes(data),
    width: info.width,
    height: info.height,
    channels: pixels.channels,
  };
}

async function encode(pixels: Pixels): Promise<ImageResult> {
  const sharp = await loadSharp();
  const png = await sharp(pixels.data, {
    raw: { width: pixels.width, height: pixels.height, channels: pixels.channels },
  })
    .png()
    .toBuffer();
  return {
    bytes: toPlainBytes(png),
    mime: 'image/png',
    width: pixels.width,
    height: pixels.height,
  };
}

function toPlainBytes(buffer: Uint8Array): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}
