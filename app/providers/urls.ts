/**
 * URLs as providers and simulators show them in messages: never a password, a query string or
 * a fragment (either may carry a token).
 */

/** The URL without user:password, query or fragment, and without a trailing slash. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    parsed.hash = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

/** True for a server on this machine (worth a "is the local server running?" hint). */
export function isLocalUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || host === '0.0.0.0';
  } catch {
    return false;
  }
}
