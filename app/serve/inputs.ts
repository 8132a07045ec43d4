/**
 * A served run's inputs from a request: the shared reader (app/runtime/run-values.ts) with the
 * HTTP API's strict JSON types, or, for a multipart form's plain fields, values typed as text.
 * Files (images, recordings, 3D assets) come as base64 `data:` URLs or uploaded parts, into the
 * run's blob store. A value that does not fit, or an input left out, is a 400 naming `inputs.NAME`.
 */
import type { GraphPlan } from '../compiler/analyze.ts';
import type { BlobStore } from '../runtime/blobs.ts';
import { missingRunInputs } from '../runtime/inputs.ts';
import {
  API_VALUES,
  RunValueError,
  type RunValuePolicy,
  type RunValues,
  readRunValues,
} from '../runtime/run-values.ts';
import { HttpError } from './errors.ts';

/** The engine's inputs and a person's answers given ahead (a human node's), for one run. */
export type ServedInputs = RunValues;

/** Reads `values` against what `plan` takes; throws a 400 `HttpError` naming the field. */
export function readServedInputs(
  values: Record<string, unknown>,
  plan: GraphPlan,
  blobs: BlobStore,
  policy: RunValuePolicy = API_VALUES,
): ServedInputs {
  let result: ServedInputs;
  try {
    result = readRunValues(values, plan, blobs, policy);
  } catch (error) {
    if (error instanceof RunValueError)
      throw new HttpError(400, error.message, `inputs.${error.input}`);
    throw error;
  }
  const missing = missingRunInputs(plan, result.inputs);
  if (missing.length > 0)
    throw new HttpError(400, `missing input "${missing[0]}"`, `inputs.${missing[0]}`);
  return result;
}
