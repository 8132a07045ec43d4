/**
 * Editing a tool's result in the terminal debugger: `society run --step` against the MCP
 * reference server's `echo` (server-everything over Streamable HTTP, installed from npm) and a
 * local OpenAI-compatible stub. `n tool` stops before the call, `n tool` again once it returned;
 * `e` replaces the result and the model's next request carries the edited text. `society show`
 * marks the edit; a fork from after it and a replay of the exported run (the server stopped) give
 * the same answer without a model request.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../app/runtime/events.ts';
import { society, societyHere } from './support/cli.ts';
import { agent, edge, graph, input, output } from './support/graphs.ts';
import { startEverythingHttp } from './support/mcp-everything.ts';
import type { StubOpenAI } from './support/stub-openai.ts';
import { lastToolResult, startEchoModel } from './support/tool-source.ts';

const dir = mkdtempSync(join(tmpdir(), 'society-tool-result-'));
const db = join(dir, 'runs.db');
let stub: StubOpenAI;
let server: Awaited<ReturnType<typeof startEverythingHttp>> | undefined;

beforeAll(async () => {
  [stub, server] = await Promise.all([startEchoModel('hi'), startEverythingHttp()]);
});
afterAll(async () => {
  await stub?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('society run --step at a tool result', () => {
  it('n tool stops after the call returned; e replaces what the model reads; show and replay keep it', async () => {
    const file = join(dir, 'echo.society.json');
    writeFileSync(
      file,
      JSON.stringify(
        graph(
          [
            input('q'),
            agent('asker', 'Echo: {{ q }}', { tools: [{ mcp: 'ev', allow: ['echo'] }] }),
            output('answer'),
          ],
          [edge('q.value', 'asker.q'), edge('asker.text', 'answer.value')],
          { models: { m: { provider: 'openai', model: 'gpt-4o-mini' } } },
        ),
      ),
    );
    const before = stub.count();
    const stepped = await society(
      [
        'run',
        file,
        '--mcp',
        `ev=${server!.url}`,
        '--provider',
        `openai=${stub.url}`,
        '--input',
        'q=hi',
        '--step',
        '--json',
        '--db',
        db,
      ],
      {},
      'n tool\nn tool\ne Echo: changed by hand\nc\n',
    );
    expect(stepped.code, stepped.stderr).toBe(0);
    expect(stepped.stderr).toContain(
      `⏸ step: after asker's call to mcp:ev/echo {"message":"hi"} returned: Echo: hi (c sends it to the model, e TEXT sends this text instead)`,
    );
    expect(stepped.stderr).toContain('asker will read from echo: Echo: changed by hand');
    // The model's second request carries the edited result, not the server's.
    expect(stub.count()).toBe(before + 2);
    expect(lastToolResult(stub.requests[before + 1]!)).toBe('Echo: changed by hand');
    const out = JSON.parse(stepped.stdout);
    expect(out.outputs.answer).toBe('The server said: Echo: changed by hand');

    // The record keeps the tool's own result and who changed it; show marks it.
    const shown = await societyHere(['show', out.runId, '--db', db]);
    expect(shown.stdout).toMatch(
      /asker ← echo \[edited by .+ at the terminal\]: Echo: changed by hand\n {2}\(the tool gave: Echo: hi\)/,
    );
    const { events } = JSON.parse(
      (await societyHere(['show', out.runId, '--json', '--db', db])).stdout,
    ) as {
      events: RunEvent[];
    };
    expect(events.find((e) => e.type === 'tool.result')).toMatchObject({
      result: 'Echo: changed by hand',
      original: 'Echo: hi',
      edited: true,
      editedBy: { via: 'terminal' },
    });

    // A fork from after the edit gives the model the edited result again, from the record.
    const second = events.findLast((e) => e.type === 'model.request')!;
    const fork = await societyHere([
      ...['fork', out.runId, '--at', String(second.seq), '--mcp', `ev=${server!.url}`],
      ...['--provider', `openai=${stub.url}`, '--db', db, '--json', '-q'],
    ]);
    expect(fork.code, fork.stderr).toBe(0);
    expect(JSON.parse(fork.stdout).outputs.answer).toBe('The server said: Echo: changed by hand');
    expect(stub.count()).toBe(before + 2);

    // A replay of the exported run, with the server gone: no tool call, no model request.
    const exported = join(dir, 'run.json');
    expect((await societyHere(['export', out.runId, '-o', exported, '--db', db])).code).toBe(0);
    await server!.stop();
    server = undefined;
    const replay = await societyHere(['replay', exported, '--db', db, '--json', '-q']);
    expect(replay.code, replay.stderr).toBe(0);
    const replayed = JSON.parse(replay.stdout);
    expect(replayed.outputs.answer).toBe('The server said: Echo: changed by hand');
    expect(stub.count()).toBe(before + 2);
    const again = JSON.parse(
      (await societyHere(['show', replayed.runId, '--json', '--db', db])).stdout,
    ) as { events: RunEvent[] };
    expect(again.events.find((e) => e.type === 'tool.result')).toMatchObject({
      from: 'cassette',
      original: 'Echo: hi',
      result: 'Echo: changed by hand',
    });
  }, 60_000);
});
