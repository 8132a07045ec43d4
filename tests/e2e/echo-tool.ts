/**
 * The studio tests of tool calls share one set-up: the MCP project's reference server
 * (server-everything, over Streamable HTTP) added in Settings → MCP servers as `everything`, a
 * local OpenAI-compatible model that calls its `echo` and then answers with what it read back
 * (startEchoModel), and a society whose agent `asker` is offered that echo.
 */
import type { Page } from 'playwright-core';
import { afterAll } from 'vitest';
import { agent, edge, graph, input, output } from '../support/graphs.ts';
import { startEverythingHttp } from '../support/mcp-everything.ts';
import type { StubOpenAI } from '../support/stub-openai.ts';
import { startEchoModel } from '../support/tool-source.ts';
import { type StudioSession, studioForSuite } from './support.ts';

/** q → `asker`, offered server-everything's echo → answer. */
export const echoSociety = (name: string) =>
  graph(
    [
      input('q'),
      agent('asker', 'Echo this: {{ q }}', { tools: [{ mcp: 'everything', allow: ['echo'] }] }),
      output('answer'),
    ],
    [edge('q.value', 'asker.q'), edge('asker.text', 'answer.value')],
    { models: { m: { provider: 'openai', model: 'gpt-4o-mini' } }, name },
  );

/** A studio for one `describe`, with the model and the server started before it. */
export function echoToolStudio(key: string): {
  studio: () => StudioSession;
  model: () => StubOpenAI;
  server: () => Awaited<ReturnType<typeof startEverythingHttp>>;
} {
  let model: StubOpenAI | undefined;
  let server: Awaited<ReturnType<typeof startEverythingHttp>> | undefined;
  afterAll(async () => {
    await model?.close();
    // A test may have stopped it already (a replay with the server gone): stop is then a no-op.
    await server?.stop();
  });
  const studio = studioForSuite(async () => {
    [model, server] = await Promise.all([startEchoModel('first'), startEverythingHttp()]);
    return { env: { OPENAI_API_KEY: key, OPENAI_BASE_URL: model.url } };
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the model and the server did not start');
    return value;
  };
  return { studio, model: () => started(model), server: () => started(server) };
}

/** Adds the server as `everything` in Settings → MCP servers, as a person does. */
export async function addEverything(page: Page, url: string): Promise<void> {
  await page.getByTestId('settings-button').click();
  await page.getByTestId('settings-nav-mcp').click();
  await page.getByTestId('mcp-name').fill('everything');
  await page.getByTestId('mcp-url').fill(url);
  await page.getByTestId('mcp-add').click();
  await page.getByTestId('mcp-everything').waitFor();
  await page.getByTestId('settings-modal-close').click();
}
