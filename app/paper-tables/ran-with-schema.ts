/** The values each variant of a table ran with, as stored in an eval's table context (zod). */
import { z } from 'zod';

const ParamValue = z.union([z.number(), z.boolean(), z.string(), z.array(z.string())]);

/** `RanVariant[]` (ran-with.ts) read back from a stored eval. */
export const RanVariants = z.array(
  z.object({ name: z.string(), params: z.record(z.string(), ParamValue) }),
);
