/**
 * What estimate tests compare: the estimate of a document at the default prices, and what each
 * model call of a simulated run of it was actually sent.
 */
import { expect } from 'vitest';
import { estimateRun } from '../../app/costs/estimate.ts';
import { DEFAULT_PRICES } from '../../app/costs/prices.ts';
import type { ChatRequest } from '../../app/providers/types.ts';
import type { BlobStore } from '../../app/runtime/blobs.ts';
import { compile, run } from './graphs.ts';

/** The estimate of a document that must compile, at the default prices. */
export async function estimateOf(doc: unknown) {
  return estimateRun((await compile(doc)).plan, DEFAULT_PRICES);
}

/** What each model call of a simulated run was sent, in order; the run must succeed. */
export async function sentRequests(
  doc: unknown,
  inputs: Record<string, unknown> = {},
  blobs?: BlobStore,
): Promise<ChatRequest[]> {
  const requests: ChatRequest[] = [];
  const result = await run(doc, {
    simulate: true,
    inputs,
    ...(blobs ? { blobs } : {}),
    onModelCall: ({ request }) => requests.push(request),
  });
  expect(result.status, result.error).toBe('succeeded');
  return requests;
}
