/**
 * The simulator protocol over HTTP: `POST <url>/reset` and `POST <url>/step`, JSON both ways.
 * Redirects are not followed (a simulator on this machine must not send the run elsewhere), and
 * an answer is read only up to the size cap.
 */
import { capped, formatBytes } from '../../providers/answer-guard.ts';
import type { RequestType } from './protocol.ts';
import {
  networkReason,
  oneLine,
  SimulatorFailure,
  type SimulatorTransport,
  type TransportOptions,
} from './transport.ts';

/** A transport that posts each request to `<url>/<type>`. */
export function httpTransport(url: string, options: TransportOptions): SimulatorTransport {
  const endpoint = (type: RequestType) => {
    const u = new URL(url);
    u.pathname = `${u.pathname.replace(/\/+$/, '')}/${type}`;
    return u;
  };
  return {
    async request(type, body, signal) {
      let response: Response;
      try {
        response = await fetch(endpoint(type), {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify(body),
          redirect: 'manual',
          signal,
        });
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        throw new SimulatorFailure(`could not be reached for ${type}: ${networkReason(error)}`);
      }
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel();
        throw new SimulatorFailure(
          `answered ${type} with a redirect (HTTP ${response.status}), which is not followed`,
        );
      }
      const text = await readCapped(response, type, options.maxAnswerBytes, signal);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        const status = response.ok ? '' : ` (HTTP ${response.status})`;
        throw new SimulatorFailure(
          text.trim() === ''
            ? `answered ${type} with an empty body${status}`
            : `answered ${type} with something other than JSON${status}: "${oneLine(text, 60)}"`,
        );
      }
      if (!response.ok) {
        const said = (json as { error?: unknown })?.error;
        throw new SimulatorFailure(
          typeof said === 'string' && said.trim() !== ''
            ? `refused ${type} (HTTP ${response.status}): ${oneLine(said)}`
            : `answered ${type} with HTTP ${response.status}`,
        );
      }
      return json;
    },
    close() {},
  };
}

/** The body as text, refused as soon as it passes `max` bytes (the rest is never read). */
async function readCapped(
  response: Response,
  type: RequestType,
  max: number,
  signal: AbortSignal,
): Promise<string> {
  const tooLarge = () =>
    new SimulatorFailure(
      `answered ${type} with more than ${formatBytes(max)}, past the cap on one answer`,
    );
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return '';
  try {
    return await new Response(capped(response.body, max, tooLarge)).text();
  } catch (error) {
    if (error instanceof SimulatorFailure) throw error;
    if (signal.aborted) throw signal.reason;
    throw new SimulatorFailure(`broke off its answer to ${type}: ${networkReason(error)}`);
  }
}
