/**
 * Settings → MCP servers. Tool policies: a server's tools are listed (connected to as
 * `society mcp tools NAME` does), a destructive one shown asking by default; a tool set to deny
 * there is saved in the profile `society mcp` lists, and a live run whose agent may use it is
 * never offered it: the model's call to it reaches no server. Programs: the studio's page offers
 * no way to add one; a host that can ask the person (the desktop app, its native dialog stood in
 * for by a `confirm` that records the question) shows the program's fields, asks with the exact
 * command line, saves nothing after a no, and after a yes starts it to list its tools.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { describeMcpProfile, listMcpProfiles } from '../../app/tools/profiles.ts';
import { agent, edge, graph, input, output } from '../support/graphs.ts';
import { type CountingMcpServer, startCountingMcp } from '../support/mcp-counting.ts';
import { EVERYTHING } from '../support/mcp-everything.ts';
import { type StubOpenAI, type StubRequestBody, startStubOpenAI } from '../support/stub-openai.ts';
import { lastToolResult } from '../support/tool-source.ts';
import { HAVE_CHROMIUM, openDocument, studioForSuite } from './support.ts';

const offeredTools = (body: StubRequestBody): string[] =>
  (body.tools ?? []).map((t: { function: { name: string } }) => t.function.name);

const DOC = graph(
  [
    input('q'),
    agent('clerk', 'Look this up: {{ q }}', {
      tools: [{ mcp: 'records', allow: ['lookup', 'count'] }],
    }),
    output('answer'),
  ],
  [edge('q.value', 'clerk.q'), edge('clerk.text', 'answer.value')],
  { models: { m: { provider: 'openai', model: 'gpt-4o-mini' } }, name: 'Clerk' },
);

let stub: StubOpenAI | undefined;
let server: CountingMcpServer | undefined;
afterAll(async () => {
  await stub?.close();
  await server?.close();
});

describe.skipIf(!HAVE_CHROMIUM)('tool policies in Settings', () => {
  const studio = studioForSuite(async () => {
    [stub, server] = await Promise.all([
      startStubOpenAI({
        respond: (body, { index }) =>
          index === 0
            ? { text: '', toolCalls: [{ name: 'lookup', arguments: { key: 'a' } }] }
            : { text: `Done: ${lastToolResult(body)}` },
      }),
      startCountingMcp([
        { name: 'lookup', description: 'Finds a record.', input: {}, answer: () => 'found' },
        { name: 'count', description: 'Counts records.', input: {}, answer: () => '3' },
        {
          name: 'wipe',
          description: 'Deletes every record.',
          input: {},
          annotations: { destructiveHint: true },
          answer: () => 'wiped',
        },
      ]),
    ]);
    return { env: { OPENAI_API_KEY: 'sk-e2e-policies-0123456789', OPENAI_BASE_URL: stub.url } };
  });

  it('lists the tools, denies one, and a run is never offered it', async () => {
    const s = studio();
    const { page } = s;
    await page.getByTestId('settings-button').click();
    await page.getByTestId('settings-nav-mcp').click();
    await page.getByTestId('mcp-form').waitFor();
    // The studio cannot ask the person in a dialog of its own: no program can be added here.
    expect(await page.getByTestId('mcp-kind-program').count()).toBe(0);
    expect(await page.getByTestId('settings-mcp').textContent()).toContain(
      'added from a terminal or the desktop app',
    );
    await page.getByTestId('mcp-name').fill('records');
    await page.getByTestId('mcp-url').fill(server!.url);
    await page.getByTestId('mcp-add').click();
    await page.getByTestId('mcp-list-tools-records').click();
    const wipe = page.getByTestId('mcp-tool-records-wipe');
    await wipe.waitFor();
    // A destructive tool asks unless told otherwise; the others run.
    expect(await wipe.textContent()).toContain('destructive');
    const wipePolicy = page.getByTestId('mcp-tool-policy-records-wipe');
    expect(await wipePolicy.locator('option:checked').textContent()).toBe('ask (default)');
    const lookupPolicy = page.getByTestId('mcp-tool-policy-records-lookup');
    expect(await lookupPolicy.locator('option:checked').textContent()).toBe('allow (default)');

    await lookupPolicy.selectOption('deny');
    await expect
      .poll(() => listMcpProfiles(s.store).find((p) => p.name === 'records')?.tools)
      .toEqual({ lookup: 'deny' });
    // What `society mcp` prints for it.
    expect(describeMcpProfile(listMcpProfiles(s.store)[0]!)).toContain('tools: lookup deny');
    // The page shows it once the backend answers.
    await expect.poll(() => lookupPolicy.inputValue()).toBe('deny');
    await s.screenshot('mcp-policies');
    await page.getByTestId('settings-modal-close').click();

    await openDocument(s, 'clerk.society.json', DOC, 'clerk');
    await page.getByTestId('run-tab-inputs').click();
    await page.getByTestId('input-q').fill('a');
    await page.getByTestId('tb-run-live').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 15_000 })
      .toMatch(/succeeded/i);
    // The model was offered count only; its call to lookup came back refused, unsent.
    expect(offeredTools(stub!.requests[0]!)).toEqual(['count']);
    expect(server!.calls).toEqual([]);
    expect(lastToolResult(stub!.requests[1]!)).toMatch(/lookup/);
    expect(s.pageErrors).toEqual([]);
  }, 60_000);
});

describe.skipIf(!HAVE_CHROMIUM)('a server that runs a program, where the host can ask', () => {
  const asked: string[] = [];
  let answer = false;
  const studio = studioForSuite(async () => ({
    confirm: async (message: string) => {
      asked.push(message);
      return answer;
    },
  }));

  it('asks with the exact command line; saves it only after a yes', async () => {
    const s = studio();
    const { page } = s;
    await page.getByTestId('settings-button').click();
    await page.getByTestId('settings-nav-mcp').click();
    await page.getByTestId('mcp-kind-program').check();
    await page.getByTestId('mcp-name').fill('everything');
    await page.getByTestId('mcp-command').fill(`"${process.execPath}" ${EVERYTHING} stdio`);
    await page.getByTestId('mcp-env-name').fill('API_KEY');
    await page.getByTestId('mcp-env-var').fill('EVERYTHING_KEY');
    await s.screenshot('mcp-program');
    await page.getByTestId('mcp-add').click();
    await expect
      .poll(() => page.getByTestId('mcp-error').textContent())
      .toBe('MCP server "everything" was not added: you did not confirm it');
    expect(asked[0]).toContain(
      `Society Studio will run this program on your computer when a run uses server everything:\n\n${process.execPath} ${EVERYTHING} stdio\n`,
    );
    expect(asked[0]).toContain('API_KEY from $EVERYTHING_KEY');
    expect(listMcpProfiles(s.store)).toEqual([]);

    answer = true;
    await page.getByTestId('mcp-add').click();
    const row = page.getByTestId('mcp-everything');
    await row.waitFor();
    expect(await row.textContent()).toContain(`runs ${process.execPath} ${EVERYTHING} stdio`);
    expect(listMcpProfiles(s.store)).toEqual([
      {
        name: 'everything',
        transport: 'stdio',
        command: process.execPath,
        args: [EVERYTHING, 'stdio'],
        env: [{ name: 'API_KEY', env: 'EVERYTHING_KEY' }],
      },
    ]);
    // Its variable is not set here: listing its tools says so, starting nothing.
    await page.getByTestId('mcp-list-tools-everything').click();
    await expect
      .poll(() => page.getByTestId('mcp-tools-error-everything').textContent())
      .toContain('EVERYTHING_KEY is not set');
    expect(s.pageErrors).toEqual([]);
  }, 60_000);
});
