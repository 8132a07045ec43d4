/**
 * The hosts a document may contact (spread into app/api/contract.ts): the origins the user
 * allowed (Settings → Allowed hosts, the same setting as `society hosts`), and the origins a run
 * would contact, for the prompt shown when `run.start`, `runs.fork` or `runs.continue` is
 * refused with reason `hosts` (app/runtime/origins.ts).
 */
import { z } from 'zod';

/** An origin as the page sends it: checked and normalised by the backend (`parseOrigin`). */
const OriginText = z.string().min(1).max(2000);

/** The allowed origins, in the order they were allowed. */
const AllowedHosts = z.object({ origins: z.array(z.string()) });

/** An origin a run would contact, the nodes that would, and whether it is allowed. */
const OriginNeed = z.object({
  origin: z.string(),
  nodes: z.array(z.string()),
  allowed: z.boolean(),
});

export const hostsContract = {
  'settings.hosts.list': { params: z.object({}), result: AllowedHosts },
  /** As `society hosts --allow ORIGIN`: scheme://host:port, nothing after it. */
  'settings.hosts.allow': { params: z.object({ origin: OriginText }), result: AllowedHosts },
  /** As `society hosts --revoke ORIGIN`. */
  'settings.hosts.revoke': { params: z.object({ origin: OriginText }), result: AllowedHosts },
  /** The origins a run of this document with these parameters would contact. */
  'run.hosts': {
    params: z.object({
      document: z.record(z.string(), z.unknown()),
      params: z.record(z.string(), z.unknown()).default({}),
    }),
    result: z.array(OriginNeed),
  },
  /** The origins a stored run would contact again (a fork, a retry from the failure). */
  'runs.hosts': { params: z.object({ runId: z.string().min(1) }), result: z.array(OriginNeed) },
} as const;
