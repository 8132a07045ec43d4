/**
 * Editing a tool's result in the studio: an agent offered the MCP reference server's `echo`
 * (server-everything over Streamable HTTP, installed from npm) by a profile added in Settings,
 * run live against a local OpenAI-compatible stub with *Break after tool results* on. The run
 * pauses once echo returned, before the model reads it; the person edits the result and
 * continues; the model's second request carries the edited text; the context view marks it.
 * A replay of the exported run, with the server stopped, makes no call and gives the same answer.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../app/runtime/events.ts';
import { societyHere } from '../support/cli.ts';
import { lastToolResult } from '../support/tool-source.ts';
import { addEverything, echoSociety, echoToolStudio } from './echo-tool.ts';
import { HAVE_CHROMIUM, openDocument } from './support.ts';

const DOC = echoSociety('Echo reader');

describe.skipIf(!HAVE_CHROMIUM)('a tool result edited in the studio', () => {
  const { studio, model, server } = echoToolStudio('sk-e2e-toolresult-0123456789');

  it('pauses after the tool returned; the model reads the edited result', async () => {
    const s = studio();
    const { page } = s;
    await addEverything(page, server().url);

    await openDocument(s, 'echo-reader.society.json', DOC, 'asker');
    await page.getByTestId('break-tool-results').check();
    await page.getByTestId('run-tab-inputs').click();
    await page.getByTestId('input-q').fill('hello');
    await page.getByTestId('tb-run-live').click();

    // Held after echo returned: who asked, the tool, its arguments and what it gave.
    const held = page.getByTestId('held-tool-result');
    await held.waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('paused-banner').textContent()).toMatch(
      /Paused at a breakpoint after asker's call to echo returned/,
    );
    expect(await held.textContent()).toMatch(
      /asker called echo \(mcp:everything\) with \{"message":"first"\}; it returned\./,
    );
    const box = page.getByTestId('held-tool-result-text');
    expect(await box.inputValue()).toBe('Echo: first');
    // The model has not read it yet.
    expect(model().count()).toBe(1);
    await s.screenshot('tool-result-held');

    // As JSON, the text must parse: refused here, still held.
    await page.getByTestId('held-tool-result-as-json').check();
    await box.fill('{"echo": ');
    await page.getByTestId('paused-continue').click();
    await expect
      .poll(() => page.getByTestId('held-tool-result-problem').textContent())
      .toMatch(/^not JSON/);
    expect(await page.getByTestId('run-status').textContent()).toMatch(/paused/i);

    await page.getByTestId('held-tool-result-as-text').check();
    await box.fill('Echo: edited in the studio');
    await page.getByTestId('paused-continue').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 15_000 })
      .toMatch(/succeeded/i);
    expect(model().count()).toBe(2);
    expect(lastToolResult(model().requests[1]!)).toBe('Echo: edited in the studio');
    const [run] = s.store.listRuns();
    expect(s.store.getRun(run!.id)!.outputs).toEqual({
      answer: 'The server said: Echo: edited in the studio',
    });
    expect(s.store.events(run!.id).find((e) => e.type === 'tool.result')).toMatchObject({
      result: 'Echo: edited in the studio',
      original: 'Echo: first',
      edited: true,
      editedBy: { via: 'studio' },
    });

    // The context view marks the tool message as edited, with what the tool gave.
    await page.getByTestId('run-tab-context').click();
    const edited = page.getByTestId('context-tool-edited');
    await edited.waitFor();
    expect(await edited.textContent()).toMatch(
      /edited by .+ in the studio; the tool gave: Echo: first/,
    );
    await s.screenshot('tool-result-context');
    expect(s.pageErrors).toEqual([]);

    // A replay of the run, the server gone: no tool call, no model request, the same answer.
    const file = join(s.dbFile, '..', 'echo-reader.run.json');
    expect((await societyHere(['export', run!.id, '-o', file, '--db', s.dbFile])).code).toBe(0);
    await server().stop();
    const replay = await societyHere(['replay', file, '--db', s.dbFile, '--json', '-q']);
    expect(replay.code, replay.stderr).toBe(0);
    const replayed = JSON.parse(replay.stdout);
    expect(replayed.outputs.answer).toBe('The server said: Echo: edited in the studio');
    expect(model().count()).toBe(2);
    const events = s.store.events(replayed.runId) as RunEvent[];
    expect(events.filter((e) => e.type === 'tool.result')).toMatchObject([
      { from: 'cassette', result: 'Echo: edited in the studio', original: 'Echo: first' },
    ]);
  }, 60_000);
});
