/**
 * Tool policies from the command line: `society mcp --policy` keeps them in a server's profile
 * (and the studio's Settings method the same), and `society run` with no terminal debugger fails
 * before its agent asks anything when a tool of the MCP reference server asks before it runs,
 * unless `--approve-tools` names it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { societyHere } from './support/cli.ts';
import { agent, edge, graph, input, output } from './support/graphs.ts';
import { startEverythingHttp } from './support/mcp-everything.ts';
import type { StubOpenAI } from './support/stub-openai.ts';
import { startEchoModel } from './support/tool-source.ts';

const dir = mkdtempSync(join(tmpdir(), 'society-approval-'));
const db = join(dir, 'runs.db');
let stub: StubOpenAI;
let server: Awaited<ReturnType<typeof startEverythingHttp>>;

beforeAll(async () => {
  [stub, server] = await Promise.all([startEchoModel('hi'), startEverythingHttp()]);
});
afterAll(async () => {
  await stub?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('society mcp --policy', () => {
  it('sets a server’s policy and one tool’s, lists them, forgets one; refuses what it cannot read', async () => {
    expect((await societyHere(['mcp', '--db', db, '--add', `ev=${server.url}`])).code).toBe(0);
    const set = await societyHere([
      'mcp',
      '--db',
      db,
      '--policy',
      'ev=ask',
      '--policy',
      'ev/echo=deny',
    ]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('tools: policy ask, echo deny');
    const back = await societyHere(['mcp', '--db', db, '--policy', 'ev=default']);
    expect(back.stdout).toMatch(/tools: echo deny\n$/);
    const bad = await societyHere(['mcp', '--db', db, '--policy', 'ev=maybe']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      '--policy ev=maybe: give NAME=POLICY or NAME/TOOL=POLICY, POLICY one of allow, ask, deny, default',
    );
    const none = await societyHere(['mcp', '--db', db, '--policy', 'nobody=ask']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no MCP server "nobody"');
    // --add again (a new URL) keeps what was decided about the tools.
    await societyHere(['mcp', '--db', db, '--add', `ev=${server.url}`]);
    expect((await societyHere(['mcp', '--db', db])).stdout).toContain('tools: echo deny');
    await societyHere(['mcp', '--db', db, '--remove', 'ev']);
  });
});

describe('society run with a tool that asks', () => {
  const doc = graph(
    [
      input('q'),
      agent('asker', 'Echo: {{ q }}', { tools: [{ mcp: 'ev', allow: ['echo'] }] }),
      output('answer'),
    ],
    [edge('q.value', 'asker.q'), edge('asker.text', 'answer.value')],
    { models: { m: { provider: 'openai', model: 'gpt-4o-mini' } } },
  );
  const file = join(dir, 'echo.society.json');

  it('fails before the model is asked (exit 1) naming the tool; --approve-tools runs it, on resume too', async () => {
    writeFileSync(file, JSON.stringify(doc));
    await societyHere(['mcp', '--db', db, '--add', `ev=${server.url}`, '--policy', 'ev/echo=ask']);
    const base = ['run', file, '--provider', `openai=${stub.url}`, '--input', 'q=hi', '--db', db];
    const before = stub.count();
    const refused = await societyHere([...base, '-q']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'the tool ev/echo asks before it runs and no one is here to answer: run with --step, or approve it with --approve-tools ev/echo',
    );
    expect(stub.count()).toBe(before);
    // What the refusal advises works: the same run, resumed with the tool approved.
    const runId = /society resume (\w+)/.exec(refused.stderr)?.[1];
    expect(runId, refused.stderr).toBeDefined();
    const resumed = await societyHere([
      'resume',
      runId!,
      '--db',
      db,
      '--provider',
      `openai=${stub.url}`,
      '-q',
      '--json',
      '--approve-tools',
      'ev/echo',
    ]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout).outputs.answer).toBe('The server said: Echo: hi');
    expect(stub.count()).toBe(before + 2);

    const badFlag = await societyHere([...base, '--approve-tools', 'echo']);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain('--approve-tools: "echo" is not NAME/TOOL');

    const approved = await societyHere([...base, '-q', '--json', '--approve-tools', 'ev/echo']);
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout).outputs.answer).toBe('The server said: Echo: hi');
    expect(stub.count()).toBe(before + 4);
  });

  it('eval: each run fails naming the tool; --approve-tools lets them run', async () => {
    const data = join(dir, 'rows.jsonl');
    writeFileSync(data, '{"q":"hi","a":"The server said: Echo: hi"}\n');
    const common = [
      'eval',
      file,
      '--data',
      data,
      '--map',
      'q=q',
      '--expect',
      'a',
      '--provider',
      `openai=${stub.url}`,
      '--db',
      db,
      '--quiet',
      '--json',
    ];
    const before = stub.count();
    const refused = await societyHere(common);
    expect(refused.stdout + refused.stderr).toContain('the tool ev/echo asks before it runs');
    expect(stub.count()).toBe(before);
    const approved = await societyHere([...common, '--approve-tools', 'ev/*']);
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout).variants[0]).toMatchObject({
      failed: 0,
      score: { mean: 1 },
    });
  });
});
