/**
 * Settings → MCP servers in the desktop app, whose host asks the person in a native dialog
 * (here a stand-in `confirm` that records the question and answers as told): a server that runs a
 * program is saved only after a yes to a question showing its exact command line, nothing is
 * saved after a no; its tools are listed as `society mcp tools NAME` lists them (the program
 * started for it, the reference server from npm), with the policy each runs under.
 */
import { expect, it } from 'vitest';
import { listMcpProfiles } from '../../app/tools/profiles.ts';
import { EVERYTHING } from '../../tests/support/mcp-everything.ts';
import { call, refusal, store, withApi } from './handlers.test-helper.ts';

const asked: string[] = [];
let answer = false;
withApi({
  name: 'mcp-program',
  confirm: async (message) => {
    asked.push(message);
    return answer;
  },
});

it('adds a program only after the person confirms its exact command line', async () => {
  expect((await call('settings.mcp.list', {})).programs).toBe(true);
  const request = {
    name: 'everything',
    command: process.execPath,
    args: [EVERYTHING, 'stdio', 'with space'],
    env: [{ name: 'API_KEY', env: 'EVERYTHING_KEY' }],
  };
  answer = false;
  const declined = await refusal(call('settings.mcp.saveProgram', request));
  expect(declined.message).toBe('MCP server "everything" was not added: you did not confirm it');
  expect(listMcpProfiles(store)).toEqual([]);
  expect(asked).toHaveLength(1);
  expect(asked[0]).toBe(
    [
      'Society Studio will run this program on your computer when a run uses server everything:',
      '',
      `${process.execPath} ${EVERYTHING} stdio 'with space'`,
      '',
      'It is given only these of your variables: API_KEY from $EVERYTHING_KEY.',
      'Add it only if you trust this program.',
    ].join('\n'),
  );

  answer = true;
  const saved = await call('settings.mcp.saveProgram', request);
  expect(saved.profiles).toEqual([
    {
      name: 'everything',
      transport: 'stdio',
      where: `${process.execPath} ${EVERYTHING} stdio with space`,
      reads: [{ name: 'API_KEY', env: 'EVERYTHING_KEY', set: false }],
    },
  ]);
  // The same profile `society mcp --add everything --command …` saves.
  expect(listMcpProfiles(store)).toEqual([{ transport: 'stdio', ...request }]);

  // A profile that would not be valid is refused before anyone is asked.
  const bad = await refusal(
    call('settings.mcp.saveProgram', { name: '9lives', command: 'x', args: [] }),
  );
  expect(bad.message).toContain('a profile name is a letter');
  expect(asked).toHaveLength(2);
});

it("lists a program's tools with the policy each runs under, as society mcp tools does", async () => {
  // The reference server, started for the listing; no variable of its profile is needed.
  await call('settings.mcp.saveProgram', {
    name: 'ref',
    command: process.execPath,
    args: [EVERYTHING, 'stdio'],
  });
  await call('settings.mcp.policy', { name: 'ref', tool: 'echo', policy: 'deny' });
  const { tools } = await call('settings.mcp.tools', { name: 'ref' });
  const echo = tools.find((t) => t.name === 'echo');
  expect(echo).toMatchObject({ policy: 'deny', setting: 'deny', destructive: false });
  expect(echo?.description).toMatch(/echo/i);
  expect(tools.filter((t) => t.name !== 'echo').every((t) => t.policy === 'allow')).toBe(true);
  expect((await refusal(call('settings.mcp.tools', { name: 'none' }))).message).toBe(
    'there is no MCP server "none"',
  );
}, 30_000);
