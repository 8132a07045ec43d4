/**
 * What the page says when it loses the studio, and what it offers when it opens with an unsaved
 * document kept from before (renderer/drafts.ts).
 */
import { useEffect } from 'react';
import { api, type ConnectionStatus } from './api.ts';
import { discardDraft, keepDraftNow, restoreDraft, useDraftOffer } from './drafts.ts';

const KEPT = 'Your unsaved changes are kept in this browser and offered when you open it.';

/** A banner while the studio is unreachable or refuses this tab: what happened, what to do. */
export function ConnectionBanner({ connection }: { connection: ConnectionStatus }) {
  const lost = connection === 'stopped' || connection === 'restarted' || connection === 'locked';
  useEffect(() => {
    if (lost) keepDraftNow();
  }, [lost]);
  if (!lost) return null;
  return (
    <div className="connection-banner" role="alert" data-testid="connection-lost">
      <strong>
        {connection === 'stopped'
          ? 'The studio stopped.'
          : connection === 'restarted'
            ? 'The studio restarted: this tab’s address no longer works.'
            : 'This tab has no studio token.'}
      </strong>{' '}
      {connection === 'stopped' ? (
        <span>
          Start it again with <code>npm run studio</code> and open the new address it prints in the
          terminal; this tab reconnects by itself if the studio comes back at this address. {KEPT}
        </span>
      ) : (
        <span>
          Open the new address printed in the terminal where <code>npm run studio</code> runs (it
          ends in <code>?token=…</code>). {KEPT}
        </span>
      )}{' '}
      {connection === 'locked' ? null : (
        <button type="button" data-testid="connection-retry" onClick={() => api().reconnect()}>
          Try again
        </button>
      )}
    </div>
  );
}

/** Offers the unsaved document kept from before, once, when the page opens with one. */
export function DraftOffer() {
  const offer = useDraftOffer((s) => s.offer);
  if (!offer) return null;
  return (
    <div className="connection-banner draft-offer" role="status" data-testid="draft-offer">
      <span>
        Unsaved changes to <strong>{offer.name}</strong>
        {offer.fileName ? ` (${offer.fileName})` : ''} from{' '}
        {new Date(offer.savedAt).toLocaleString()} were kept in this browser.
      </span>{' '}
      <button
        type="button"
        className="primary"
        data-testid="draft-restore"
        onClick={() => restoreDraft()}
      >
        Restore them
      </button>
      <button type="button" data-testid="draft-discard" onClick={() => discardDraft()}>
        Discard
      </button>
    </div>
  );
}
