/**
 * The prompt before a run contacts a host the user has not allowed (app/runtime/origins.ts): the
 * backend refuses such a run before anything is recorded or sent (reason `hosts`); the page then
 * names the origins the document's requests would go to, and the nodes that send them, with
 * Allow and run (the origins join Settings → Allowed hosts, and the run is asked for again) or
 * Cancel (nothing is sent).
 */
import type { ApiResult } from '../../app/api/contract.ts';
import { ApiError, api } from '../api.ts';
import { notify } from '../store.ts';

type OriginNeeds = ApiResult<'run.hosts'>;

/**
 * Makes `call`; when the backend refuses it for hosts not allowed, asks with the origins
 * `hosts()` names and, once the person allows them, makes it again. Null when they cancel.
 * `asking` hears when the question is put (true) and agreed to (false), so the run panel does
 * not say a run is starting while it waits for the person.
 */
export async function withHostsConsent<T>(
  call: () => Promise<T | null>,
  hosts: () => Promise<OriginNeeds>,
  asking: (waiting: boolean) => void = () => {},
): Promise<T | null> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof ApiError) || error.reason !== 'hosts') throw error;
  }
  const needed = (await hosts()).filter((n) => !n.allowed);
  asking(true);
  if (!(await askHosts(needed))) return null;
  asking(false);
  for (const need of needed) await api().call('settings.hosts.allow', { origin: need.origin });
  return call();
}

/** Asks whether to allow `needed`; dismissing the notice is a no. */
function askHosts(needed: OriginNeeds): Promise<boolean> {
  const listed = needed
    .map((n) => `${n.origin} (node${n.nodes.length === 1 ? '' : 's'} ${n.nodes.join(', ')})`)
    .join(', ');
  return new Promise((resolve) => {
    notify(
      'error',
      `This document sends requests to ${needed.length === 1 ? 'a host' : 'hosts'} you have not allowed: ${listed}. Nothing was sent. Allow ${needed.length === 1 ? 'it' : 'them'} only if you trust what the document does there.`,
      [
        { label: 'Allow and run', testId: 'notice-allow-hosts', run: () => resolve(true) },
        { label: 'Cancel', testId: 'notice-hosts-cancel', run: () => resolve(false) },
      ],
      () => resolve(false),
    );
  });
}
