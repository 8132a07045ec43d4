import { request } from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { STUDIO_PROTOCOL, studioProtocols } from '../../app/api/studio-auth.ts';
import { connect, dir, get, Page, store, studio, withStudio } from './server.test-helper.ts';
import { contentSecurityPolicy, startStudio } from './server.ts';

withStudio();

describe('the studio server: who may talk to it', () => {
  it('listens on 127.0.0.1 and prints a URL with a 32-byte hex token', () => {
    expect(studio.url).toBe(`http://127.0.0.1:${studio.port}/?token=${studio.token}`);
    expect(studio.token).toMatch(/^[0-9a-f]{64}$/);
  });

  it("serves the editor's files without the token, and never sets a cookie", async () => {
    for (const url of ['/', '/assets/app.js', `/?token=${studio.token}`, '/?token=wrong']) {
      const answer = await get(url);
      expect(answer.status, url).toBe(200);
      expect(answer.headers['set-cookie'], url).toBeUndefined();
    }
    // Nor on a refusal of any kind.
    for (const [url, headers, method] of [
      ['/missing.js', {}, 'GET'],
      ['/', { host: 'evil.example' }, 'GET'],
      ['/', {}, 'POST'],
    ] as const) {
      const answer = await get(url, headers, method);
      expect(answer.status, `${method} ${url}`).toBeGreaterThanOrEqual(400);
      expect(answer.headers['set-cookie'], `${method} ${url}`).toBeUndefined();
    }
  });

  it('refuses a request whose Host is not 127.0.0.1:PORT or localhost:PORT', async () => {
    for (const host of [
      'evil.example',
      `evil.example:${studio.port}`,
      '127.0.0.1',
      `127.0.0.1:1`,
    ]) {
      const answer = await get(`/?token=${studio.token}`, { host });
      expect(answer.status, host).toBe(403);
    }
    expect(
      (await get(`/?token=${studio.token}`, { host: `localhost:${studio.port}` })).status,
    ).toBe(200);
  });

  it('serves the page with CSP, nosniff and no referrer (the first URL holds the token)', async () => {
    const page = await get(`/?token=${studio.token}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>editor</title>');
    expect(page.headers['content-security-policy']).toBe(contentSecurityPolicy(studio.port));
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cross-origin-resource-policy']).toBe('same-origin');
    const script = await get('/assets/app.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
  });

  it('lists no directories and serves nothing outside the renderer', async () => {
    for (const url of [
      '/assets',
      '/assets/',
      '/../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/..%5csecret.txt',
      '/%00',
      '/%E0%A4%A',
    ]) {
      const answer = await get(url);
      expect(answer.status, url).toBeGreaterThanOrEqual(400);
      expect(answer.body).not.toContain('outside the renderer');
    }
  });

  it('tells the person to build the editor when the renderer is not built', async () => {
    const bare = await startStudio({
      store,
      workspaceDir: path.join(dir, 'workspace'),
      rendererDir: path.join(dir, 'not-built'),
      env: {},
      log: () => {},
    });
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        request({ host: '127.0.0.1', port: bare.port, path: `/?token=${bare.token}` }, (res) => {
          let body = '';
          res.on('data', (c) => {
            body += c;
          });
          res.on('end', () => resolve(body));
        })
          .on('error', reject)
          .end();
      });
      expect(answer).toContain('npm run build');
    } finally {
      await bare.close();
    }
  });

  it('opens the API socket with the token offered as a subprotocol, answering without it', async () => {
    const upgradeHeaders: Record<string, string | string[] | undefined> = {};
    const ws = await connect({ upgradeHeaders });
    expect(ws).toBeInstanceOf(WebSocket);
    const socket = ws as WebSocket;
    expect(socket.protocol).toBe(STUDIO_PROTOCOL);
    expect(JSON.stringify(upgradeHeaders)).not.toContain(studio.token);
    expect(upgradeHeaders['set-cookie']).toBeUndefined();
    socket.close();
  });

  it('refuses the API socket with the token only in a cookie or the URL, or a wrong one', async () => {
    const cookie = `studio_token=${studio.token}`;
    // The cookie the studio used to set, sent as a page on another port would send it.
    expect(await connect({ protocols: [], cookie })).toEqual({ refused: 403 });
    expect(await connect({ protocols: [STUDIO_PROTOCOL], cookie })).toEqual({ refused: 403 });
    expect(await connect({ protocols: [], path: `/api?token=${studio.token}` })).toEqual({
      refused: 403,
    });
    expect(await connect({ protocols: [] })).toEqual({ refused: 403 });
    expect(await connect({ protocols: studioProtocols('a'.repeat(64)) })).toEqual({
      refused: 403,
    });
    // The token without the studio protocol, or offered twice, is not the page's handshake.
    expect(await connect({ protocols: [studioProtocols(studio.token)[1]!] })).toEqual({
      refused: 403,
    });
    expect(
      await connect({
        protocols: [...studioProtocols(studio.token), studioProtocols('b'.repeat(64))[1]!],
      }),
    ).toEqual({ refused: 403 });
  });

  it('refuses the API socket from another origin or host, or on another path, token or not', async () => {
    expect(await connect({ origin: 'http://evil.example' })).toEqual({ refused: 403 });
    expect(await connect({ origin: `http://evil.example:${studio.port}` })).toEqual({
      refused: 403,
    });
    // Another port of 127.0.0.1 is another origin.
    expect(await connect({ origin: `http://127.0.0.1:${studio.port + 1}` })).toEqual({
      refused: 403,
    });
    expect(await connect({ host: `evil.example:${studio.port}` })).toEqual({ refused: 403 });
    expect(await connect({ path: '/other' })).toEqual({ refused: 403 });
  });

  it('answers malformed messages with an error and keeps serving', async () => {
    const page = await Page.open();
    try {
      const notJson = await page.sendRaw('{nope', -1);
      expect(notJson).toEqual({ id: -1, error: { message: expect.stringMatching(/malformed/) } });
      const noMethod = await page.sendRaw(JSON.stringify({ id: 7, params: {} }), 7);
      expect(noMethod).toMatchObject({
        id: 7,
        error: { message: expect.stringMatching(/malformed/) },
      });
      await expect(page.call('fs.readFile', { path: '/etc/passwd' })).rejects.toThrow(
        'unknown method "fs.readFile"',
      );
      await expect(page.call('runs.list', { limit: 'all' })).rejects.toThrow(
        /invalid params for runs.list: limit/,
      );
      await expect(page.call('templates.list')).resolves.toBeInstanceOf(Array);
    } finally {
      page.close();
    }
  });
});
