import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { hugePng } from '../../tests/support/huge-png.ts';
import { DEFAULT_LIMITS } from '../schema/limits.ts';
import { degradeImage, restoreImage } from './degrade.ts';
import { checkImagePixels, ImageTooLargeError, readImageHeader } from './header.ts';

/** A real image of `width`×`height` in `format`, made by sharp (libvips). */
async function made(
  format: 'png' | 'jpeg' | 'gif' | 'webp',
  width: number,
  height: number,
  options: { channels?: 3 | 4; lossless?: boolean; progressive?: boolean } = {},
): Promise<Uint8Array> {
  const image = sharp({
    create: {
      width,
      height,
      channels: options.channels ?? 3,
      background: { r: 200, g: 40, b: 40, alpha: 0.5 },
    },
  });
  const encoded =
    format === 'webp'
      ? image.webp({ lossless: options.lossless ?? false })
      : format === 'jpeg'
        ? image.jpeg({ progressive: options.progressive ?? false })
        : image[format]();
  return new Uint8Array(await encoded.toBuffer());
}

describe('readImageHeader', () => {
  it('reads the size of real PNG, JPEG, GIF and WebP files as sharp does', async () => {
    const cases: Array<[Parameters<typeof made>, number]> = [
      [['png', 37, 21], 3],
      [['png', 37, 21, { channels: 4 }], 4],
      [['jpeg', 301, 17], 3],
      [['jpeg', 64, 48, { progressive: true }], 3],
      [['gif', 40, 9], 4],
      [['webp', 123, 45], 3],
      [['webp', 123, 45, { lossless: true }], 3],
      [['webp', 77, 5, { channels: 4, lossless: true }], 4],
      [['webp', 77, 5, { channels: 4 }], 4],
    ];
    for (const [args, channels] of cases) {
      const bytes = await made(...args);
      const meta = await sharp(bytes).metadata();
      expect(readImageHeader(bytes), JSON.stringify(args)).toEqual({
        format: args[0],
        width: meta.width,
        height: meta.height,
        channels,
      });
    }
  });

  it('reads a JPEG whose frame header comes after EXIF and other segments', async () => {
    const bytes = new Uint8Array(
      await sharp({ create: { width: 33, height: 44, channels: 3, background: '#123456' } })
        .withMetadata({ orientation: 6 })
        .jpeg()
        .toBuffer(),
    );
    expect(readImageHeader(bytes)).toMatchObject({ format: 'jpeg', width: 33, height: 44 });
  });

  it('reads the claimed size of a bomb without inflating it', () => {
    const bomb = hugePng();
    expect(bomb.length).toBeLessThan(40_000);
    expect(readImageHeader(bomb)).toEqual({
      format: 'png',
      width: 16383,
      height: 16383,
      channels: 1,
    });
  });

  it('reads hand-built headers claiming the largest sizes each format allows', () => {
    const webpX = Buffer.alloc(30);
    webpX.write('RIFF', 0, 'latin1');
    webpX.write('WEBPVP8X', 8, 'latin1');
    webpX[20] = 0x10; // alpha
    webpX.writeUIntLE(0xffffff, 24, 3);
    webpX.writeUIntLE(0xffffff, 27, 3);
    expect(readImageHeader(webpX)).toEqual({
      format: 'webp',
      width: 0x1000000,
      height: 0x1000000,
      channels: 4,
    });
    const gif = Buffer.from('GIF89a\xff\xff\xff\xff', 'latin1');
    expect(readImageHeader(gif)).toMatchObject({ width: 65535, height: 65535 });
    // SOI, an APP0 segment, then SOF2 (progressive) claiming 65535×65535 with 3 components.
    const jpeg = Buffer.from([
      0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc2, 0x00, 0x11, 0x08, 0xff, 0xff,
      0xff, 0xff, 0x03,
    ]);
    expect(readImageHeader(jpeg)).toEqual({
      format: 'jpeg',
      width: 65535,
      height: 65535,
      channels: 3,
    });
  });

  it('says nothing of bytes it cannot read: other formats, truncated or lying headers', async () => {
    const png = await made('png', 10, 10);
    for (const bytes of [
      new Uint8Array(0),
      new TextEncoder().encode('not an image at all'),
      png.subarray(0, 20), // cut inside IHDR
      new Uint8Array(await sharp(png).tiff().toBuffer()),
      new TextEncoder().encode(
        '<svg xmlns="http://www.w3.org/2000/svg" width="9e9" height="9e9"/>',
      ),
      Buffer.from([0xff, 0xd8, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x00, 0x01, 0x00, 0x03]), // height 0
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x00]), // a segment of length 0
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0xff, 0xff]), // a segment longer than the bytes
    ]) {
      expect(readImageHeader(bytes)).toBeUndefined();
    }
  });
});

describe('checkImagePixels', () => {
  it('refuses an image past the budget, naming it, its size and the budget', () => {
    expect(() => checkImagePixels(hugePng(), DEFAULT_LIMITS.imagePixels, 'input "photo"')).toThrow(
      new ImageTooLargeError(
        'input "photo" is 16383×16383 pixels (268.4 megapixels), past the image budget of ' +
          '16.8 megapixels (settings.limits.imagePixels)',
      ),
    );
  });

  it('passes an image within the budget, exactly at it included', async () => {
    const bytes = await made('png', 40, 25);
    expect(checkImagePixels(bytes, 1000, 'x')).toMatchObject({ width: 40, height: 25 });
    expect(() => checkImagePixels(bytes, 999, 'x')).toThrow(/40×25 pixels/);
  });
});

describe('decoding within the budget', () => {
  it('refuses the bomb in every local operation before decoding it', async () => {
    const bomb = hugePng();
    const before = process.memoryUsage().rss;
    const started = performance.now();
    await expect(degradeImage(bomb, [{ kind: 'grayscale' }], { seed: 0 })).rejects.toThrow(
      /degradeImage: the input is 16383×16383 pixels .*past the image budget of 16\.8 megapixels/,
    );
    for (const kind of ['upscale', 'denoise', 'deblur'] as const) {
      await expect(restoreImage(bomb, { kind })).rejects.toThrow(/16383×16383 pixels/);
    }
    // Decoding it would take a gigabyte and seconds; refusing it takes neither.
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('follows the budget it is given, for reading and for what an upscale makes', async () => {
    const bytes = await made('png', 64, 64);
    await expect(restoreImage(bytes, { kind: 'denoise' }, { maxPixels: 4095 })).rejects.toThrow(
      /64×64 pixels \(0\.0 megapixels\), past the image budget/,
    );
    await expect(
      restoreImage(bytes, { kind: 'upscale', factor: 2 }, { maxPixels: 128 * 128 - 1 }),
    ).rejects.toThrow(/would make a 128×128 image, past the 0\.0 megapixels pixel limit/);
    expect((await restoreImage(bytes, { kind: 'upscale', factor: 2 })).width).toBe(128);
  });

  it('refuses formats the studio does not take (TIFF, SVG) instead of handing them to sharp', async () => {
    const tiff = new Uint8Array(
      await sharp(await made('png', 8, 8))
        .tiff()
        .toBuffer(),
    );
    await expect(degradeImage(tiff, [], { seed: 0 })).rejects.toThrow(
      /not a PNG, JPEG, GIF or WebP/,
    );
    const svg = new TextEncoder().encode(
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>',
    );
    await expect(restoreImage(svg, { kind: 'denoise' })).rejects.toThrow(/not a PNG, JPEG/);
  });
});
