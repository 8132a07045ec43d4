import { describe, expect, it } from 'vitest';
import { get, studio, withStudio } from './server.test-helper.ts';
import { contentSecurityPolicy } from './server.ts';

withStudio();

describe('the studio serves the docs at /docs/', () => {
  it('renders a doc as a page, with the same headers as the editor, without the token', async () => {
    const page = await get('/docs/tools.md');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(contentSecurityPolicy(studio.port));
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.body).toContain('<h1 id="agents-that-use-tools">Agents that use tools</h1>');
    const readme = await get('/docs/README.md');
    expect(readme.body).toContain('href="/docs/graph-format.md"');
    const index = await get('/docs/');
    expect(index.body).toContain('href="/docs/README.md"');
    expect(index.body).toContain('href="/docs/nlsom.md"');
    expect((await get('/docs/README.md', {}, 'HEAD')).status).toBe(200);
  });

  it('refuses another Host, and any path that is not a listed doc', async () => {
    expect((await get('/docs/tools.md', { host: 'evil.example' })).status).toBe(403);
    for (const url of [
      '/docs/../package.json',
      '/docs/%2e%2e/package.json',
      '/docs/..%2fpackage.json',
      '/docs/..%5cpackage.json',
      '/docs/package.json',
      '/docs/missing.md',
    ]) {
      const answer = await get(url);
      expect(answer.status, url).toBe(404);
      expect(answer.body, url).not.toContain('"dependencies"');
    }
    expect((await get('/docs/tools.md', {}, 'POST')).status).toBe(405);
  });
});
