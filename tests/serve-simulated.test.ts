/**
 * A society served with `--simulate`: its made-up answers say so on every face — the run as the
 * API shows it (held by the server, or read back from the store by another server), and the
 * chat answer.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ServeFlags, serveOptions } from '../app/cli/commands/serve/serve.ts';
import { serve } from '../app/serve/index.ts';
import { agent, edge, graph, input, output } from './support/graphs.ts';

const TOKEN = 'test-token-0123456789abcdef';
const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const dir = mkdtempSync(join(tmpdir(), 'society-serve-simulated-'));
const file = join(dir, 'ask.society.json');
writeFileSync(
  file,
  JSON.stringify(
    graph(
      [input('question'), agent('a', 'Answer: {{ question }}'), output('answer')],
      [edge('question.value', 'a.question'), edge('a.text', 'answer.value')],
      { models: { m: { provider: 'openai', model: 'gpt-4o-mini' } }, name: 'ask' },
    ),
  ),
);

async function start(db: string) {
  const flags: ServeFlags = {
    port: '0',
    host: '127.0.0.1',
    token: TOKEN,
    auth: true,
    concurrency: '2',
    queueLimit: '4',
    maxBody: '65536',
    provider: [],
    allowHost: [],
    simulate: true,
    db,
  };
  const { options, close } = await serveOptions([file], flags);
  const serving = await serve(options);
  return {
    url: serving.url,
    stop: async () => {
      await serving.close();
      close();
    },
  };
}

describe('a society served with --simulate', () => {
  it('says its runs are simulated in the API, as its chat answers do', async () => {
    const db = join(dir, 'runs.db');
    const first = await start(db);
    let id: string;
    try {
      const started = await fetch(`${first.url}/societies/ask/runs`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ inputs: { question: 'Is 17 prime?' } }),
      });
      id = ((await started.json()) as { id: string }).id;
      const run = await (await fetch(`${first.url}/runs/${id}?wait=1`, { headers: auth })).json();
      expect(run).toMatchObject({ id, status: 'succeeded', simulated: true });

      const chat = await fetch(`${first.url}/v1/chat/completions`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          model: 'ask',
          messages: [{ role: 'user', content: 'Is 17 prime?' }],
        }),
      });
      const reply = (await chat.json()) as { choices: Array<{ message: { content: string } }> };
      expect(reply.choices[0]!.message.content).toMatch(/^\[simulated\] /);
    } finally {
      await first.stop();
    }
    // Another server on the same store reads the run from it.
    const second = await start(db);
    try {
      const stored = await (await fetch(`${second.url}/runs/${id}`, { headers: auth })).json();
      expect(stored).toMatchObject({ id, status: 'succeeded', simulated: true });
    } finally {
      await second.stop();
    }
  });
});
