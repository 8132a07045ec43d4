import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Degradation, degradeImage, parseDegradations, restoreImage } from './degrade.ts';
import { maskWord } from './text.ts';

const SIZE = 64;

type Raw = { data: Uint8Array; width: number; height: number; channels: number };

/**
 * A 64x64 RGB test card: colour quadrants and a gradient, plus (with `fine`) a one-pixel
 * checkerboard patch and a one-pixel white diagonal.
 */
function testCard(fine = true): Uint8Array {
  const data = new Uint8Array(SIZE * SIZE * 3);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const i = (y * SIZE + x) * 3;
      let rgb: [number, number, number];
      if (x < 32 && y < 32) rgb = [220, 40, 40];
      else if (x >= 32 && y < 32) rgb = [40, 200, 60];
      else if (x < 32) rgb = [30, 60, 210];
      else rgb = [x * 4 - 128 + 60, 120, 255 - y * 3];
      // A 16x16 one-pixel checkerboard across the centre, and a white diagonal line.
      if (fine && x >= 24 && x < 40 && y >= 24 && y < 40) {
        const v = (x + y) % 2 === 0 ? 250 : 10;
        rgb = [v, v, v];
      }
      if (fine && x === y) rgb = [255, 255, 255];
      data.set(rgb, i);
    }
  }
  return data;
}

/** A flat mid-grey image, far from 0 and 255 so noise is not clipped. */
function flatGrey(value = 128): Uint8Array {
  return new Uint8Array(SIZE * SIZE * 3).fill(value);
}

async function png(data: Uint8Array, channels: 3 | 4 = 3, width = SIZE, height = SIZE) {
  return new Uint8Array(await sharp(data, { raw: { width, height, channels } }).png().toBuffer());
}

async function decode(bytes: Uint8Array): Promise<Raw> {
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  return {
    data: new Uint8Array(data),
    width: info.width,
    height: info.height,
    channels: info.channels,
  };
}

function mse(a: Raw, b: Raw): number {
  expect(a.data.length).toBe(b.data.length);
  let sum = 0;
  for (let i = 0; i < a.data.length; i++) sum += (a.data[i]! - b.data[i]!) ** 2;
  return sum / a.data.length;
}

function meanAbsDiff(a: Raw, b: Raw): number {
  let sum = 0;
  for (let i = 0; i < a.data.length; i++) sum += Math.abs(a.data[i]! - b.data[i]!);
  return sum / a.data.length;
}

/** Sum of absolute differences between horizontal and vertical neighbours: edge energy. */
function edgeEnergy(image: Raw): number {
  const { data, width, height, channels } = image;
  let sum = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < Math.min(channels, 3); c++) {
        const here = data[(y * width + x) * channels + c]!;
        if (x + 1 < width) sum += Math.abs(here - data[(y * width + x + 1) * channels + c]!);
        if (y + 1 < height) sum += Math.abs(here - data[((y + 1) * width + x) * channels + c]!);
      }
    }
  }
  return sum;
}

function distinctColours(image: Raw): number {
  const seen = new Set<number>();
  const { data, channels } = image;
  for (let i = 0; i < data.length; i += channels) {
    seen.add((data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!);
  }
  return seen.size;
}

function isGrey(image: Raw): boolean {
  const { data, channels } = image;
  for (let i = 0; i < data.length; i += channels) {
    if (data[i] !== data[i + 1] || data[i] !== data[i + 2]) return false;
  }
  return true;
}

let card: Uint8Array;
let cardRaw: Raw;
let grey: Uint8Array;

beforeAll(async () => {
  card = await png(testCard());
  cardRaw = await decode(card);
  grey = await png(flatGrey());
});

describe('degradeImage: low-resolution', () => {
  it('keeps the size but loses detail, in blocks of factor x factor', async () => {
    const result = await degradeImage(card, [{ kind: 'low-resolution' }], { seed: 1 });
    expect(result.mime).toBe('image/png');
    expect([result.width, result.height]).toEqual([SIZE, SIZE]);
    const out = await decode(result.bytes);
    expect([out.width, out.height]).toEqual([SIZE, SIZE]);
    expect(mse(out, cardRaw)).toBeGreaterThan(100);
    expect(edgeEnergy(out)).toBeLessThan(edgeEnergy(cardRaw) * 0.5);
    // Nearest-neighbour scale back up from 16x16: every 4x4 block is one colour.
    for (let by = 0; by < SIZE; by += 4) {
      for (let bx = 0; bx < SIZE; bx += 4) {
        const first = (by * SIZE + bx) * 3;
        for (let y = by; y < by + 4; y++) {
          for (let x = bx; x < bx + 4; x++) {
            const i = (y * SIZE + x) * 3;
            expect([out.data[i], out.data[i + 1], out.data[i + 2]]).toEqual([
              out.data[first],
              out.data[first + 1],
              out.data[first + 2],
            ]);
          }
        }
      }
    }
  });

  it('returns the small image without restoreSize, and a larger factor loses more', async () => {
    const small = await degradeImage(card, [{ kind: 'low-resolution', restoreSize: false }], {
      seed: 1,
    });
    expect([small.width, small.height]).toEqual([16, 16]);
    const decoded = await decode(small.bytes);
    expect([decoded.width, decoded.height]).toEqual([16, 16]);
    expect(distinctColours(decoded)).toBeLessThan(distinctColours(cardRaw));

    const half = await degradeImage(card, [{ kind: 'low-resolution', factor: 2 }], { seed: 1 });
    const quarter = await degradeImage(card, [{ kind: 'low-resolution', factor: 8 }], { seed: 1 });
    expect(mse(await decode(half.bytes), cardRaw)).toBeLessThan(
      mse(await decode(quarter.bytes), cardRaw),
    );
    const third = await degradeImage(
      card,
      [{ kind: 'low-resolution', factor: 3, restoreSize: false }],
      {
        seed: 1,
      },
    );
    expect([third.width, third.height]).toEqual([21, 21]);
  });
});

describe('degradeImage: noise', () => {
  it('adds Gaussian noise with mean |difference| near sigma * sqrt(2 / pi)', async () => {
    for (const sigma of [10, 25]) {
      const result = await degradeImage(grey, [{ kind: 'noise', sigma }], { seed: 'noise' });
      const out = await decode(result.bytes);
      const clean = await decode(grey);
      const expected = sigma * Math.sqrt(2 / Math.PI);
      const mad = meanAbsDiff(out, clean);
      expect(Math.abs(mad - expected)).toBeLessThan(expected * 0.05);
      // Zero-mean noise: the average signed change is small.
      let signed = 0;
      for (let i = 0; i < out.data.length; i++) signed += out.data[i]! - clean.data[i]!;
      expect(Math.abs(signed / out.data.length)).toBeLessThan(1);
      // Standard deviation near sigma (rounding adds a variance of 1/12).
      expect(Math.abs(Math.sqrt(mse(out, clean)) - sigma)).toBeLessThan(sigma * 0.05);
    }
  });

  it('defaults to sigma 25', async () => {
    const result = await degradeImage(grey, [{ kind: 'noise' }], { seed: 7 });
    const mad = meanAbsDiff(await decode(result.bytes), await decode(grey));
    expect(mad).toBeGreaterThan(25 * 0.7979 * 0.95);
    expect(mad).toBeLessThan(25 * 0.7979 * 1.05);
  });

  it('is deterministic for a seed and differs between seeds', async () => {
    const a = await degradeImage(card, [{ kind: 'noise' }], { seed: 'a' });
    const again = await degradeImage(card, [{ kind: 'noise' }], { seed: 'a' });
    const b = await degradeImage(card, [{ kind: 'noise' }], { seed: 'b' });
    expect(Buffer.from(again.bytes).equals(Buffer.from(a.bytes))).toBe(true);
    expect(Buffer.from(b.bytes).equals(Buffer.from(a.bytes))).toBe(false);
    expect(mse(await decode(a.bytes), await decode(b.bytes))).toBeGreaterThan(100);
    // Numbers and their text form are the same seed.
    const n = await degradeImage(card, [{ kind: 'noise' }], { seed: 42 });
    const s = await degradeImage(card, [{ kind: 'noise' }], { seed: '42' });
    expect(Buffer.from(n.bytes).equals(Buffer.from(s.bytes))).toBe(true);
  });

  it('clamps to 0..255 and leaves alpha alone', async () => {
    const rgba = new Uint8Array(SIZE * SIZE * 4);
    for (let i = 0; i < rgba.length; i += 4) rgba.set([0, 255, 128, 77], i);
    const result = await degradeImage(await png(rgba, 4), [{ kind: 'noise', sigma: 40 }], {
      seed: 3,
    });
    const out = await decode(result.bytes);
    expect(out.channels).toBe(4);
    let redUp = 0;
    let greenDown = 0;
    for (let i = 0; i < out.data.length; i += 4) {
      expect(out.data[i + 3]).toBe(77);
      if (out.data[i]! > 0) redUp++;
      if (out.data[i + 1]! < 255) greenDown++;
    }
    // About half the noise pushes past the limit and is clamped there.
    const pixels = SIZE * SIZE;
    expect(redUp / pixels).toBeGreaterThan(0.4);
    expect(redUp / pixels).toBeLessThan(0.6);
    expect(greenDown / pixels).toBeGreaterThan(0.4);
    expect(greenDown / pixels).toBeLessThan(0.6);
  });
});

describe('degradeImage: blur and grayscale', () => {
  it('blur lowers the edge energy, more for a larger sigma', async () => {
    const before = edgeEnergy(cardRaw);
    const soft = edgeEnergy(
      await decode((await degradeImage(card, [{ kind: 'blur', sigma: 1 }], { seed: 0 })).bytes),
    );
    const blurred = await degradeImage(card, [{ kind: 'blur' }], { seed: 0 });
    expect([blurred.width, blurred.height]).toEqual([SIZE, SIZE]);
    const strong = edgeEnergy(await decode(blurred.bytes));
    expect(soft).toBeLessThan(before * 0.7);
    expect(strong).toBeLessThan(soft);
    const none = await degradeImage(card, [{ kind: 'blur', sigma: 0 }], { seed: 0 });
    expect(mse(await decode(none.bytes), cardRaw)).toBe(0);
  });

  it('grayscale writes the same Rec. 601 luma to R, G and B', async () => {
    const result = await degradeImage(card, [{ kind: 'grayscale' }], { seed: 0 });
    const out = await decode(result.bytes);
    expect(out.channels).toBe(3);
    expect(isGrey(out)).toBe(true);
    expect(isGrey(cardRaw)).toBe(false);
    // Top-left pixel is red (220, 40, 40): 0.299*220 + 0.587*40 + 0.114*40 = 93.82.
    expect(out.data[(0 * SIZE + 10) * 3]).toBe(94);
  });
});

describe('degradeImage: composition', () => {
  it('applies steps in order', async () => {
    const greyThenNoise = await decode(
      (await degradeImage(card, [{ kind: 'grayscale' }, { kind: 'noise' }], { seed: 5 })).bytes,
    );
    const noiseThenGrey = await decode(
      (await degradeImage(card, [{ kind: 'noise' }, { kind: 'grayscale' }], { seed: 5 })).bytes,
    );
    expect(isGrey(greyThenNoise)).toBe(false);
    expect(isGrey(noiseThenGrey)).toBe(true);
  });

  it('gives the same image as applying the steps one call at a time', async () => {
    const steps: Degradation[] = [
      { kind: 'blur', sigma: 1.5 },
      { kind: 'low-resolution', factor: 2 },
      { kind: 'grayscale' },
    ];
    const together = await degradeImage(card, steps, { seed: 0 });
    let bytes = card;
    for (const step of steps) bytes = (await degradeImage(bytes, [step], { seed: 0 })).bytes;
    expect(mse(await decode(together.bytes), await decode(bytes))).toBe(0);
    // An empty list re-encodes the image without changing a pixel.
    expect(mse(await decode((await degradeImage(card, [], { seed: 0 })).bytes), cardRaw)).toBe(0);
  });

  it('draws different noise for two noise steps in one list', async () => {
    const twice = await decode(
      (
        await degradeImage(
          grey,
          [
            { kind: 'noise', sigma: 10 },
            { kind: 'noise', sigma: 10 },
          ],
          {
            seed: 9,
          },
        )
      ).bytes,
    );
    // Independent noise adds in variance: sigma sqrt(2). The same draw twice would give 2 sigma.
    const std = Math.sqrt(mse(twice, await decode(grey)));
    expect(std).toBeGreaterThan(10 * Math.SQRT2 * 0.95);
    expect(std).toBeLessThan(10 * Math.SQRT2 * 1.05);
  });
});

describe('restoreImage', () => {
  it('upscale doubles the size by default', async () => {
    const result = await restoreImage(card, { kind: 'upscale' });
    expect([result.width, result.height]).toEqual([128, 128]);
    const out = await decode(result.bytes);
    expect([out.width, out.height]).toEqual([128, 128]);
    // Shrinking it back comes close to the original.
    const back = await decode(
      new Uint8Array(await sharp(result.bytes).resize(SIZE, SIZE).png().toBuffer()),
    );
    expect(mse(back, cardRaw)).toBeLessThan(
      mse(
        await decode(
          (await degradeImage(card, [{ kind: 'low-resolution', factor: 2 }], { seed: 0 })).bytes,
        ),
        cardRaw,
      ),
    );
    const third = await restoreImage(card, { kind: 'upscale', factor: 1.5 });
    expect([third.width, third.height]).toEqual([96, 96]);
  });

  it('denoise brings a noisy image closer to the clean one', async () => {
    // Regions and edges, but no one-pixel lines: a median filter erases those by design.
    const clean = await png(testCard(false));
    const cleanRaw = await decode(clean);
    const noisy = await degradeImage(clean, [{ kind: 'noise', sigma: 25 }], { seed: 'dn' });
    const before = mse(await decode(noisy.bytes), cleanRaw);
    const denoised = await restoreImage(noisy.bytes, { kind: 'denoise' });
    expect([denoised.width, denoised.height]).toEqual([SIZE, SIZE]);
    const after = mse(await decode(denoised.bytes), cleanRaw);
    expect(after).toBeLessThan(before * 0.4);
    // A larger window smooths more of the noise on flat areas.
    const flatNoisy = await degradeImage(grey, [{ kind: 'noise' }], { seed: 'dn' });
    const greyRaw = await decode(grey);
    const three = mse(
      await decode((await restoreImage(flatNoisy.bytes, { kind: 'denoise' })).bytes),
      greyRaw,
    );
    const five = mse(
      await decode((await restoreImage(flatNoisy.bytes, { kind: 'denoise', size: 5 })).bytes),
      greyRaw,
    );
    expect(five).toBeLessThan(three);
  });

  it('deblur raises the edge energy of a blurred image and brings it closer', async () => {
    const blurred = await degradeImage(card, [{ kind: 'blur' }], { seed: 0 });
    const blurredRaw = await decode(blurred.bytes);
    const sharpened = await restoreImage(blurred.bytes, { kind: 'deblur' });
    expect([sharpened.width, sharpened.height]).toEqual([SIZE, SIZE]);
    const sharpenedRaw = await decode(sharpened.bytes);
    expect(edgeEnergy(sharpenedRaw)).toBeGreaterThan(edgeEnergy(blurredRaw) * 1.2);
    expect(edgeEnergy(sharpenedRaw)).toBeLessThan(edgeEnergy(cardRaw));
    expect(mse(sharpenedRaw, cardRaw)).toBeLessThan(mse(blurredRaw, cardRaw));
    // On an image of regions and edges the gain is larger.
    const clean = await png(testCard(false));
    const cleanRaw = await decode(clean);
    const soft = await degradeImage(clean, [{ kind: 'blur' }], { seed: 0 });
    const before = mse(await decode(soft.bytes), cleanRaw);
    const after = mse(
      await decode((await restoreImage(soft.bytes, { kind: 'deblur' })).bytes),
      cleanRaw,
    );
    expect(after).toBeLessThan(before * 0.9);
    // amount 0 changes nothing.
    const none = await restoreImage(blurred.bytes, { kind: 'deblur', amount: 0 });
    expect(mse(await decode(none.bytes), blurredRaw)).toBe(0);
  });
});

describe('parseDegradations', () => {
  it('maps OpenAGI words to steps and reports the rest', () => {
    expect(
      parseDegradations(['Low-resolutioned,', 'noisy', 'blurry', 'gray', 'image', '', 'Grayscale']),
    ).toEqual({
      steps: [
        { kind: 'low-resolution' },
        { kind: 'noise' },
        { kind: 'blur' },
        { kind: 'grayscale' },
        { kind: 'grayscale' },
      ],
      unknown: ['image'],
    });
    expect(parseDegradations(['low-resolution', 'sepia'])).toEqual({
      steps: [{ kind: 'low-resolution' }],
      unknown: ['sepia'],
    });
  });

  it('returns steps that are not shared between calls', () => {
    const first = parseDegradations(['noisy']).steps[0] as { kind: 'noise'; sigma?: number };
    first.sigma = 99;
    expect(parseDegradations(['noisy']).steps[0]).toEqual({ kind: 'noise' });
  });
});

describe('errors', () => {
  it('refuses bytes that are not an image', async () => {
    const text = new TextEncoder().encode('not an image at all');
    await expect(degradeImage(text, [], { seed: 0 })).rejects.toThrow(
      /degradeImage: input is not an image that can be read/,
    );
    await expect(restoreImage(text, { kind: 'denoise' })).rejects.toThrow(
      /restoreImage: input is not an image/,
    );
    await expect(degradeImage(new Uint8Array(0), [], { seed: 0 })).rejects.toThrow(
      /input is empty/,
    );
    await expect(
      degradeImage(card, [], {} as unknown as { seed: string | number }),
    ).rejects.toThrow(/options.seed must be a string or a number/);
  });

  it('refuses a factor below 1', async () => {
    await expect(
      degradeImage(card, [{ kind: 'low-resolution', factor: 0.5 }], { seed: 0 }),
    ).rejects.toThrow(
      /step 0 \(low-resolution\): factor must be a finite number of at least 1, got 0.5/,
    );
    await expect(restoreImage(card, { kind: 'upscale', factor: 0 })).rejects.toThrow(
      /factor must be a finite number of at least 1, got 0/,
    );
    await expect(restoreImage(card, { kind: 'upscale', factor: 1000 })).rejects.toThrow(
      /pixel limit/,
    );
  });

  it('refuses a negative sigma and other bad parameters', async () => {
    await expect(
      degradeImage(card, [{ kind: 'grayscale' }, { kind: 'noise', sigma: -1 }], { seed: 0 }),
    ).rejects.toThrow(/step 1 \(noise\): sigma must not be negative, got -1/);
    await expect(degradeImage(card, [{ kind: 'blur', sigma: -2 }], { seed: 0 })).rejects.toThrow(
      /sigma must not be negative/,
    );
    await expect(degradeImage(card, [{ kind: 'blur', sigma: 0.1 }], { seed: 0 })).rejects.toThrow(
      /at least 0.3/,
    );
    await expect(restoreImage(card, { kind: 'deblur', sigma: -1 })).rejects.toThrow(
      /restoreImage \(deblur\): sigma must not be negative/,
    );
    await expect(restoreImage(card, { kind: 'deblur', amount: -0.5 })).rejects.toThrow(
      /amount must be a number from 0 to 100, got -0.5/,
    );
    await expect(restoreImage(card, { kind: 'denoise', size: 0 })).rejects.toThrow(
      /size must be a whole number/,
    );
    await expect(
      degradeImage(card, [{ kind: 'sepia' } as unknown as Degradation], { seed: 0 }),
    ).rejects.toThrow(/unknown kind "sepia"/);
  });
});

describe('maskWord', () => {
  const sentence = 'The quick brown fox, jumps over the lazy dog!';

  it('masks exactly one word and keeps the rest, punctuation included', () => {
    for (let seed = 0; seed < 30; seed++) {
      const result = maskWord(sentence, seed);
      expect(result.masked).toBeDefined();
      const { index, word, offset } = result.masked!;
      expect(result.text.split('[MASK]')).toHaveLength(2);
      const words = sentence.match(/[\p{L}\p{N}]+/gu)!;
      expect(word).toBe(words[index]);
      expect(sentence.slice(offset, offset + word.length)).toBe(word);
      // Put the word back and the sentence is whole again.
      expect(result.text.replace('[MASK]', word)).toBe(sentence);
      const kept = result.text.match(/[\p{L}\p{N}]+/gu)!;
      expect(kept.filter((w) => w !== 'MASK')).toEqual(words.filter((_, i) => i !== index));
    }
  });

  it('is deterministic per seed and spreads over the words', () => {
    expect(maskWord(sentence, 'x')).toEqual(maskWord(sentence, 'x'));
    const chosen = new Set<number>();
    for (let seed = 0; seed < 60; seed++) chosen.add(maskWord(sentence, seed).masked!.index);
    expect(chosen.size).toBeGreaterThan(5);
  });

  it('keeps punctuation next to the word and uses a custom token', () => {
    const result = maskWord('Hello, world!', 'seed', '<mask>');
    expect(['<mask>, world!', 'Hello, <mask>!']).toContain(result.text);
    expect(maskWord('Café 42', 1).text).toMatch(/^(\[MASK\] 42|Café \[MASK\])$/);
  });

  it('returns text without a word unchanged and unflagged', () => {
    expect(maskWord('  ?! ...', 3)).toEqual({ text: '  ?! ...' });
    expect(maskWord('', 3)).toEqual({ text: '' });
    expect(() => maskWord('a b', 1, '')).toThrow(/token must be a non-empty string/);
  });
});
