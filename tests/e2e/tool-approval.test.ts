/**
 * A tool that asks before it runs, in the studio: an agent offered the MCP reference server's
 * `echo` (server-everything over Streamable HTTP, installed from npm) by a profile added in
 * Settings, the user's policy for `echo` being ask. Run live against a local OpenAI-compatible
 * stub that asks for echo({message:"first"}): the run pauses before the call, the person edits
 * the arguments to {"message":"edited"} and continues; the server echoes the edited arguments and
 * the model's second request carries what it said.
 */
import { describe, expect, it } from 'vitest';
import { setMcpPolicy } from '../../app/tools/profiles.ts';
import { lastToolResult } from '../support/tool-source.ts';
import { addEverything, echoSociety, echoToolStudio } from './echo-tool.ts';
import { HAVE_CHROMIUM, openDocument } from './support.ts';

const DOC = echoSociety('Echo asker');

describe.skipIf(!HAVE_CHROMIUM)('a tool that asks before it runs, in the studio', () => {
  const { studio, model, server } = echoToolStudio('sk-e2e-approval-0123456789');

  it('pauses before the call; the edited arguments are what the server receives', async () => {
    const s = studio();
    const { page } = s;
    // The server, added in Settings → MCP servers; its echo asks first (the user's policy).
    await addEverything(page, server().url);
    setMcpPolicy(s.store, 'everything', 'echo', 'ask');

    await openDocument(s, 'echo.society.json', DOC, 'asker');
    await page.getByTestId('run-tab-inputs').click();
    await page.getByTestId('input-q').fill('hello');
    await page.getByTestId('tb-run-live').click();

    // Held before the call: who asked, the tool, the model's arguments; nothing reached echo.
    const held = page.getByTestId('held-tool');
    await held.waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('paused-banner').textContent()).toMatch(
      /Paused for your approval before asker calls echo/,
    );
    expect(await held.textContent()).toMatch(/asker asks to call echo \(mcp:everything\)/);
    const box = page.getByTestId('held-tool-arguments');
    expect(JSON.parse(await box.inputValue())).toEqual({ message: 'first' });
    expect(model().count()).toBe(1);
    await s.screenshot('tool-approval-held');

    // Not the tool's schema: refused, still held.
    await box.fill('{"message": 7}');
    await page.getByTestId('paused-continue').click();
    await expect
      .poll(() => page.getByTestId('held-tool-problem').textContent())
      .toMatch(/\/message must be string/);
    expect(await page.getByTestId('run-status').textContent()).toMatch(/paused/i);

    await box.fill('{"message": "edited"}');
    await page.getByTestId('paused-continue').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 15_000 })
      .toMatch(/succeeded/i);
    expect(model().count()).toBe(2);
    expect(lastToolResult(model().requests[1]!)).toBe('Echo: edited');
    const [run] = s.store.listRuns();
    expect(s.store.getRun(run!.id)!.outputs).toEqual({ answer: 'The server said: Echo: edited' });
    const events = s.store.events(run!.id);
    expect(events.find((e) => e.type === 'tool.call')).toMatchObject({
      tool: 'echo',
      arguments: '{"message":"edited"}',
      edited: true,
    });
    expect(events.find((e) => e.type === 'tool.result')).toMatchObject({
      result: 'Echo: edited',
    });
    expect(s.pageErrors).toEqual([]);
  }, 60_000);
});
