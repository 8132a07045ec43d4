/**
 * Settings → MCP servers, called the way the page calls it: HTTP profiles added with a header
 * read from a variable (never its value), listed with whether each variable is set, removed; a
 * server that runs a program refused with the terminal command that adds it, and a stdio profile
 * added at the terminal never changed from the page.
 */
import { expect, it } from 'vitest';
import { listMcpProfiles, saveMcpProfile } from '../../app/tools/profiles.ts';
import { call, refusal, store, withApi } from './handlers.test-helper.ts';

withApi({ name: 'mcp' });

it('lists, adds and removes HTTP servers; refuses programs from the page', async () => {
  // The studio has no dialog of its own to ask the person in: it adds no program.
  expect(await call('settings.mcp.list', {})).toEqual({ profiles: [], programs: false });
  const added = await call('settings.mcp.save', {
    name: 'search',
    url: 'http://127.0.0.1:3001/mcp',
    headers: [{ name: 'Authorization', env: 'SEARCH_AUTH' }],
  });
  expect(added.profiles).toEqual([
    {
      name: 'search',
      transport: 'http',
      where: 'http://127.0.0.1:3001/mcp',
      reads: [{ name: 'Authorization', env: 'SEARCH_AUTH', set: false }],
    },
  ]);
  // The same profile `society mcp` lists.
  expect(listMcpProfiles(store).map((p) => p.name)).toEqual(['search']);

  const program = await refusal(
    call('settings.mcp.save', { name: 'shell', url: 'http://x/', command: 'sh -c id' }),
  );
  expect(program.message).toBe(
    'a server that runs a program is added from a terminal, not from this page: society mcp --add shell --command "CMD ARGS"',
  );
  // Nor by the method the desktop app's page uses, called directly: one line, the command to run.
  const direct = await refusal(
    call('settings.mcp.saveProgram', { name: 'shell', command: 'sh', args: ['-c', 'id'] }),
  );
  expect(direct.message).toBe(
    'a server that runs a program is added from a terminal or the desktop app, not from this page: society mcp --add shell --command "CMD ARGS"',
  );
  expect(listMcpProfiles(store).map((p) => p.name)).toEqual(['search']);
  saveMcpProfile(store, { name: 'local', transport: 'stdio', command: 'my-server' });
  const overwrite = await refusal(
    call('settings.mcp.save', { name: 'local', url: 'http://127.0.0.1:9/mcp' }),
  );
  expect(overwrite.message).toContain('added from a terminal');
  expect(listMcpProfiles(store).find((p) => p.name === 'local')?.transport).toBe('stdio');

  const bad = await refusal(call('settings.mcp.save', { name: 'x', url: 'file:///etc/passwd' }));
  expect(bad.message).toContain('http:// or https://');
  const left = await call('settings.mcp.remove', { name: 'search' });
  expect(left.profiles.map((p) => p.name)).toEqual(['local']);
  expect((await refusal(call('settings.mcp.remove', { name: 'search' }))).message).toBe(
    'there is no MCP server "search"',
  );
});

it('sets, shows and forgets tool policies as society mcp --policy does; --add keeps them', async () => {
  await call('settings.mcp.save', { name: 'web', url: 'http://127.0.0.1:3002/mcp' });
  await call('settings.mcp.policy', { name: 'web', policy: 'ask' });
  const set = await call('settings.mcp.policy', { name: 'web', tool: 'echo', policy: 'allow' });
  expect(set.profiles.find((p) => p.name === 'web')).toMatchObject({
    policy: 'ask',
    tools: { echo: 'allow' },
  });
  // A new URL keeps what the user decided about its tools.
  await call('settings.mcp.save', { name: 'web', url: 'http://127.0.0.1:3003/mcp' });
  const moved = listMcpProfiles(store).find((p) => p.name === 'web');
  expect(moved).toMatchObject({ policy: 'ask', tools: { echo: 'allow' } });
  const forgot = await call('settings.mcp.policy', { name: 'web', policy: 'default' });
  expect(forgot.profiles.find((p) => p.name === 'web')?.policy).toBeUndefined();
  expect(
    (await refusal(call('settings.mcp.policy', { name: 'nobody', policy: 'deny' }))).message,
  ).toContain('no MCP server "nobody"');
});
