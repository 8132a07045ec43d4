/**
 * The studio beside other servers on 127.0.0.1. Browsers scope cookies by host and not by port,
 * so anything the studio kept in a cookie would reach every other local server's pages too. Here
 * a second local server records every request it gets while the studio page is open in the same
 * browser, and a script on its page tries the studio's API.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, studioForSuite } from './support.ts';

/** A page served from another port: it loads a script, an image and a stylesheet of its own. */
const OTHER_PAGE = `<!doctype html>
<html><head><title>another local app</title><link rel="stylesheet" href="/style.css"></head>
<body><img src="/pixel.png" alt=""><script src="/app.js"></script></body></html>`;

describe.skipIf(!HAVE_CHROMIUM)('the studio beside a page on another port of 127.0.0.1', () => {
  const studio = studioForSuite();
  const received: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
  let other: Server;
  let otherOrigin = '';

  beforeAll(async () => {
    other = createServer((req, res) => {
      received.push({ url: req.url ?? '', headers: req.headers });
      const html = req.url === '/';
      res.writeHead(html ? 200 : 204, html ? { 'Content-Type': 'text/html' } : {});
      res.end(html ? OTHER_PAGE : undefined);
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    other.closeAllConnections();
    await new Promise<void>((resolve) => other.close(() => resolve()));
  });

  it('takes the token out of the address bar, sets no cookie, and still connects after a reload', async () => {
    const s = studio();
    const { page } = s;
    const origin = new URL(s.studio.url).origin;
    expect(page.url()).toBe(`${origin}/`);
    expect(await page.context().cookies()).toEqual([]);
    await page.reload();
    await page.getByTestId('connection-status').filter({ hasText: 'connected' }).waitFor();
    expect(page.url()).toBe(`${origin}/`);
    expect(s.pageErrors).toEqual([]);
  }, 15_000);

  it('gives a page on another port nothing that opens the studio API', async () => {
    const s = studio();
    const { token } = s.studio;
    const studioPort = s.studio.port;
    // The studio page is open and connected in this browser; the other page opens beside it.
    const page = await s.page.context().newPage();
    await page.goto(`${otherOrigin}/`);
    await page.evaluate(() => fetch('/probe', { credentials: 'include' }).then((r) => r.status));

    // What the other server received: the page, its script, image, stylesheet and the probe.
    const urls = received.map((r) => r.url);
    expect(urls).toEqual(
      expect.arrayContaining(['/', '/app.js', '/pixel.png', '/style.css', '/probe']),
    );
    for (const request of received) {
      expect(request.headers.cookie, request.url).toBeUndefined();
      expect(JSON.stringify(request.headers), request.url).not.toContain(token);
    }
    expect(await page.context().cookies(otherOrigin)).toEqual([]);

    // What a script there can read holds no token either.
    const readable = await page.evaluate(() => {
      // The page's globals (the tests are typed for Node, without the DOM's).
      const { document, location } = globalThis as unknown as {
        document: { cookie: string; referrer: string };
        location: { href: string };
      };
      return JSON.stringify({
        cookie: document.cookie,
        session: { ...sessionStorage },
        local: { ...localStorage },
        href: location.href,
        referrer: document.referrer,
      });
    });
    expect(readable).not.toContain(token);

    // And the studio's API socket refuses it, whatever it offers.
    const outcomes = await page.evaluate(async (port) => {
      const attempt = (protocols: string[]) =>
        new Promise<string>((resolve) => {
          const ws = new WebSocket(`ws://127.0.0.1:${port}/api`, protocols);
          ws.onopen = () => {
            ws.close();
            resolve('opened');
          };
          ws.onerror = () => resolve('refused');
        });
      return [
        await attempt([]),
        await attempt(['society-studio']),
        await attempt(['society-studio', `society-token.${'0'.repeat(64)}`]),
      ];
    }, studioPort);
    expect(outcomes).toEqual(['refused', 'refused', 'refused']);
    await page.close();

    // The studio page beside it kept working.
    await s.page.getByTestId('connection-status').filter({ hasText: 'connected' }).waitFor();
  }, 15_000);

  it('refuses, even to a script holding the token, to point a key at another server', async () => {
    const s = studio();
    const { page } = s;
    const evil = `${otherOrigin}/v1`;
    // A script on the studio's own origin, with the token this tab keeps: the worst case.
    const answer = await page.evaluate(
      async ({ port, url }) =>
        new Promise<string>((resolve) => {
          const token = sessionStorage.getItem('society.studio.token') ?? '';
          const ws = new WebSocket(`ws://127.0.0.1:${port}/api`, [
            'society-studio',
            `society-token.${token}`,
          ]);
          ws.onopen = () =>
            ws.send(
              JSON.stringify({
                id: 1,
                method: 'settings.providers.save',
                params: { name: 'openai', baseUrl: url, apiKeyEnv: 'OPENAI_API_KEY' },
              }),
            );
          ws.onmessage = (event) => {
            resolve(String(event.data));
            ws.close();
          };
          ws.onerror = () => resolve('refused');
        }),
      { port: s.studio.port, url: evil },
    );
    expect(JSON.parse(answer)).toEqual({
      id: 1,
      error: {
        message: expect.stringContaining(
          `run \`society providers --add openai=${evil} --key-env OPENAI_API_KEY\` in a terminal`,
        ),
      },
    });

    // The person sees the same answer in Settings, and why beforehand.
    await page.getByTestId('settings-button').click();
    await page.getByTestId('provider-key-note').waitFor();
    await page.getByTestId('provider-form-name').fill('mirror');
    await page.getByTestId('provider-form-url').fill(evil);
    await page.getByTestId('provider-form-key-env').fill('OPENAI_API_KEY');
    await page.getByTestId('provider-form-save').click();
    const error = page.getByTestId('provider-form-error');
    await error.waitFor();
    expect(await error.textContent()).toContain(
      `adding provider "mirror", which sends the key in OPENAI_API_KEY, cannot be done from this page`,
    );
    await s.screenshot('studio-refuses-key-redirect', page);
    expect(s.store.listProviderProfiles()).toEqual([]);
    await page.getByTestId('settings-modal-close').click();
  }, 15_000);

  it('opens no API in a studio tab started without the printed address', async () => {
    const s = studio();
    const page = await s.page.context().newPage();
    const origin = new URL(s.studio.url).origin;
    const sockets: string[] = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    await page.goto(`${origin}/`);
    const status = page.getByTestId('connection-status');
    await status.filter({ hasText: 'no token' }).waitFor();
    expect(await status.getAttribute('title')).toMatch(/open the address/);
    expect(sockets).toEqual([]);
    await page.close();
  }, 15_000);
});
