/**
 * Settings → MCP servers in the studio: the profiles `society mcp` keeps are listed (a program
 * added at the terminal shows as one), an HTTP server is added with a header read from a
 * variable and removed; a key typed in place of a URL is refused and nothing is stored.
 */
import { describe, expect, it } from 'vitest';
import { listMcpProfiles, saveMcpProfile } from '../../app/tools/profiles.ts';
import { HAVE_CHROMIUM, studioForSuite } from './support.ts';

describe.skipIf(!HAVE_CHROMIUM)('MCP servers in Settings', () => {
  const studio = studioForSuite();

  it('lists profiles, adds an HTTP server by URL and header variable, removes it', async () => {
    const s = studio();
    const { page } = s;
    saveMcpProfile(s.store, {
      name: 'files',
      transport: 'stdio',
      command: 'files-server',
      args: ['.'],
    });
    await page.getByTestId('settings-button').click();
    await page.getByTestId('settings-nav-mcp').click();
    const files = page.getByTestId('mcp-files');
    await files.waitFor();
    expect(await files.textContent()).toContain('runs files-server .');

    await page.getByTestId('mcp-name').fill('search');
    await page.getByTestId('mcp-url').fill('http://127.0.0.1:3001/mcp');
    await page.getByTestId('mcp-header').fill('Authorization');
    await page.getByTestId('mcp-header-env').fill('SEARCH_AUTH');
    await page.getByTestId('mcp-add').click();
    const search = page.getByTestId('mcp-search');
    await search.waitFor();
    expect(await search.textContent()).toContain('Authorization from SEARCH_AUTH (not set)');
    expect(listMcpProfiles(s.store).find((p) => p.name === 'search')).toEqual({
      name: 'search',
      transport: 'http',
      url: 'http://127.0.0.1:3001/mcp',
      headers: [{ name: 'Authorization', env: 'SEARCH_AUTH' }],
    });
    await s.screenshot('mcp-settings');

    await page.getByTestId('mcp-name').fill('bad');
    await page.getByTestId('mcp-url').fill('not a url');
    await page.getByTestId('mcp-add').click();
    await page.getByTestId('mcp-error').waitFor();
    expect(listMcpProfiles(s.store).map((p) => p.name)).toEqual(['files', 'search']);

    await page.getByTestId('mcp-remove-search').click();
    await search.waitFor({ state: 'detached' });
    expect(listMcpProfiles(s.store).map((p) => p.name)).toEqual(['files']);
    expect(s.pageErrors).toEqual([]);
  }, 60_000);
});
