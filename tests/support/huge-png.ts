/**
 * A valid PNG that claims far more pixels than its size suggests: 1-bit grey, every row zero, so
 * its IDAT is a highly compressed stream. 16383×16383 is about 32 KB on disk and about a gigabyte
 * once decoded (gigabytes of RSS in libvips): a decompression bomb, as an attacker would send it.
 */
import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** The bytes of a `width`×`height` all-black 1-bit PNG, complete and decodable. */
export function hugePng(width = 16383, height = 16383): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 0; // grey
  // Each row: filter type 0, then width bits of zeros.
  const raw = Buffer.alloc(height * (1 + Math.ceil(width / 8)));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
