/**
 * The studio's per-launch token, as the page holds it. The studio prints
 * `http://127.0.0.1:PORT/?token=…`; the page reads the token from that address once, takes it
 * out of the address bar (history.replaceState, so it is not in the tab's history, a bookmark
 * or a link copied from the bar) and offers it when it opens the API socket (renderer/api.ts).
 *
 * Where it is kept between reloads: sessionStorage, and nowhere else. A reload must keep working
 * once the address no longer holds the token, and memory alone does not survive one. Of the
 * places a page can keep something:
 * - a cookie is exactly what this avoids: cookies are scoped by host, not port, so one for
 *   127.0.0.1 goes to every local server's pages, whatever their port;
 * - localStorage is per origin too, but outlives the tab and the browser session, for a token
 *   that is only good until the studio stops;
 * - sessionStorage is per origin (scheme, host *and port*) and per tab: a page on another port
 *   of 127.0.0.1 cannot read it, a tab opened without the printed address does not have it, and
 *   it is gone when the tab closes. Script on the studio's own origin could read it, but such
 *   script could use the page's open socket just as well, so it gives that script nothing new.
 */
import { isStudioToken } from '../app/api/studio-auth.ts';

/** The sessionStorage entry holding the token. */
export const TOKEN_STORAGE_KEY = 'society.studio.token';

/** The parts of the browser this needs, so it can be tested without one. */
export interface TokenPlace {
  location: Pick<Location, 'href'>;
  history: Pick<History, 'replaceState' | 'state'>;
  storage: Pick<Storage, 'getItem' | 'setItem'> | undefined;
}

/**
 * The token for this tab: from the address (which is then cleaned), else the one kept from an
 * earlier load of this tab; undefined when the page was opened without the printed address.
 * A token in the address replaces a kept one: the studio may have been restarted.
 */
export function takeStudioToken(place: TokenPlace = browserPlace()): string | undefined {
  const url = new URL(place.location.href);
  if (url.searchParams.has('token')) {
    const given = url.searchParams.get('token');
    url.searchParams.delete('token');
    place.history.replaceState(place.history.state, '', url.pathname + url.search + url.hash);
    if (isStudioToken(given)) {
      try {
        place.storage?.setItem(TOKEN_STORAGE_KEY, given);
      } catch {
        // Storage may be off (a privacy setting): the token then lasts until a reload.
      }
      return given;
    }
  }
  let kept: string | null | undefined;
  try {
    kept = place.storage?.getItem(TOKEN_STORAGE_KEY);
  } catch {
    kept = undefined;
  }
  return isStudioToken(kept) ? kept : undefined;
}

function browserPlace(): TokenPlace {
  let storage: Storage | undefined;
  try {
    storage = globalThis.sessionStorage;
  } catch {
    storage = undefined; // reading sessionStorage itself throws when storage is blocked
  }
  return { location: globalThis.location, history: globalThis.history, storage };
}
