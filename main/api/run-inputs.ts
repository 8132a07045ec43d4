/**
 * Turning the values the page sends for a run into the engine's inputs: the shared reader
 * (app/runtime/run-values.ts) with the page's policy. The page has no file system (S9), so a
 * file input is given as `"example"` (the example the document itself carries, from the
 * document sent with the run, never from a file) or as a `data:` URL of a file the person picked;
 * numbers, booleans and JSON may come as text, as on the command line.
 */
import type { GraphPlan } from '../../app/compiler/analyze.ts';
import type { BlobStore } from '../../app/runtime/blobs.ts';
import {
  EXAMPLE_VALUE,
  PAGE_VALUES,
  RunValueError,
  type RunValues,
  readRunValues,
} from '../../app/runtime/run-values.ts';
import { ApiError } from './errors.ts';

/** The value of a file input that means "the example the document carries for it". */
export const EXAMPLE_IMAGE = EXAMPLE_VALUE;

/** The engine's inputs and human answers for a run. */
export type PageRunInputs = RunValues;

/**
 * Binds each value to a run input (by its name) or an answer given once (a human node's),
 * putting files into `blobs`. Throws an ApiError naming the input for a value that does not
 * fit. Per-step answers (a dispatcher's seats) are asked while the run plays, not here.
 */
export function readPageInputs(
  values: Record<string, unknown>,
  plan: GraphPlan,
  blobs: BlobStore,
): PageRunInputs {
  try {
    return readRunValues(values, plan, blobs, PAGE_VALUES);
  } catch (error) {
    if (error instanceof RunValueError) throw new ApiError(error.message);
    throw error;
  }
}
