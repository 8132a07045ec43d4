/**
 * What the metric node's tests share: a temporary folder and run store, a made-up token, the
 * two small pictures the stub server tells apart, and cosine written out again.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { StubHfReply, StubHfRequest } from '../../tests/support/stub-hf.ts';

// Assembled at run time so no key-like literal sits in the repository.
export const TOKEN = ['hf', 'metric', 'test', 'token'].join('_');

export const dir = mkdtempSync(join(tmpdir(), 'society-metric-'));
export const db = join(dir, 'runs.db');
export const signal = () => new AbortController().signal;

/** Cosine written out again here, so the end-to-end checks do not trust the code they test. */
export function expectedCosine(a: number[], b: number[]): number {
  const dot = a.reduce((sum, x, i) => sum + x * b[i]!, 0);
  const norm = (v: number[]) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
  return dot / (norm(a) * norm(b));
}

/** How a test's stub server answers a request (undefined: the stub's own default). */
export type Responder = (request: StubHfRequest) => StubHfReply | undefined;

/** Two 6×4 PNGs: a red one and a blue one. */
export async function testPngs(): Promise<[Buffer, Buffer]> {
  return Promise.all([
    sharp({ create: { width: 6, height: 4, channels: 3, background: '#c33' } })
      .png()
      .toBuffer(),
    sharp({ create: { width: 6, height: 4, channels: 3, background: '#33c' } })
      .png()
      .toBuffer(),
  ]);
}
