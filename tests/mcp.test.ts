/**
 * MCP servers as tool sources, against the reference server `@modelcontextprotocol/server-
 * everything` (from npm, not written here) over stdio and Streamable HTTP: its tools listed with
 * their schemas and hints, calls answered (text, structured content, errors, images), a stdio
 * server's process ended on close, keys read for a server learned by the redactor; and the
 * `society mcp` command that keeps profiles and lists a server's tools.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redactor } from '../app/providers/secrets.ts';
import type { ToolSource } from '../app/providers/tools.ts';
import { connectMcp } from '../app/tools/mcp-source.ts';
import type { McpProfile } from '../app/tools/profiles.ts';
import { mcpOverrides, mcpRefusalLines, mcpToolSources } from '../app/tools/sources.ts';
import { spec as agentSpec } from '../nodes/agent/spec.ts';
import { societyHere } from './support/cli.ts';
import { everythingStdio, startEverythingHttp } from './support/mcp-everything.ts';

const signal = new AbortController().signal;
let http: Awaited<ReturnType<typeof startEverythingHttp>>;
const sources: Record<'stdio' | 'http', ToolSource> = {} as never;

beforeAll(async () => {
  http = await startEverythingHttp();
  const stdio: McpProfile = { name: 'ev', transport: 'stdio', ...everythingStdio, env: [] };
  const web: McpProfile = { name: 'web', transport: 'http', url: http.url, headers: [] };
  [sources.stdio, sources.http] = await Promise.all([
    connectMcp(stdio, { signal }),
    connectMcp(web, { signal }),
  ]);
});

afterAll(async () => {
  await Promise.all(Object.values(sources).map((s) => s?.close()));
  await http?.stop();
});

describe.each(['stdio', 'http'] as const)('an MCP server over %s', (transport) => {
  it('lists its tools with their argument schemas and hints', async () => {
    const tools = await sources[transport].list(signal);
    const echo = tools.find((t) => t.name === 'echo');
    expect(echo).toMatchObject({
      description: 'Echoes back the input string',
      parameters: { type: 'object', properties: { message: { type: 'string' } } },
      hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    });
    expect(tools.map((t) => t.name)).toContain('get-sum');
    expect(sources[transport].id).toBe(transport === 'stdio' ? 'mcp:ev' : 'mcp:web');
  });

  it('answers echo and get-sum, keeps structured content and reports a failed call', async () => {
    const source = sources[transport];
    const echo = await source.call('echo', { message: 'hello there' }, { signal });
    expect(echo).toEqual({ content: 'Echo: hello there', source: 'live' });
    const sum = await source.call('get-sum', { a: 19, b: 23 }, { signal });
    expect(sum.content).toContain('42');
    const weather = await source.call(
      'get-structured-content',
      { location: 'Chicago' },
      { signal },
    );
    expect(weather.structured).toMatchObject({ temperature: expect.any(Number) });
    const bad = await source.call('echo', {}, { signal });
    expect(bad.isError).toBe(true);
    const image = await source.call('get-tiny-image', {}, { signal });
    expect(image.content).toMatch(/\[image: image\/png, \d+ bytes\]/);
  });
});

it('refuses a result over the size limit', async () => {
  await expect(
    sources.stdio.call('echo', { message: 'x'.repeat(200) }, { signal, maxResultBytes: 50 }),
  ).rejects.toThrow(/over the limit of 50/);
});

it('ends a stdio server’s process when the source closes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-pid-'));
  const pidFile = join(dir, 'pid');
  // `exec` keeps the shell's pid, so the file names the server's own process.
  const script = `echo $$ > ${pidFile}; exec "${everythingStdio.command}" "${everythingStdio.args[0]}" stdio`;
  const source = await connectMcp(
    { name: 'pid', transport: 'stdio', command: 'sh', args: ['-c', script], env: [] },
    { signal },
  );
  const pid = Number(readFileSync(pidFile, 'utf8'));
  expect(() => process.kill(pid, 0)).not.toThrow();
  await source.close();
  await expect.poll(() => alive(pid), { timeout: 3000 }).toBe(false);
});

it('gives a server the variables its profile names, and the redactor learns their values', async () => {
  const value = `lab-${Math.random().toString(36).slice(2)}${Date.now()}`;
  const redactor = new Redactor();
  const tools = mcpToolSources({
    profiles: [
      {
        name: 'ev',
        transport: 'stdio',
        ...everythingStdio,
        env: [{ name: 'SERVICE_PASS', env: 'MY_LAB_VAR' }],
      },
    ],
    env: { ...process.env, MY_LAB_VAR: value, OTHER_SECRET_KEY: 'sk-not-for-the-server' },
    redactor,
  });
  const source = await tools.open({ kind: 'mcp', profile: 'ev' }, { signal });
  try {
    const env = JSON.parse((await source.call('get-env', {}, { signal })).content);
    expect(env.SERVICE_PASS).toBe(value);
    // The rest of our environment stays with us.
    expect(env.OTHER_SECRET_KEY).toBeUndefined();
    expect(redactor.text(`got ${value}`)).not.toContain(value);
  } finally {
    await source.close();
  }
  await expect(tools.open({ kind: 'mcp', profile: 'nope' }, { signal })).rejects.toThrow(
    'no MCP server "nope": add it with society mcp --add nope=URL',
  );
});

describe('what a document names', () => {
  const planNaming = (...profiles: string[]) => ({
    nodes: new Map([
      [
        'a',
        {
          id: 'a',
          spec: {
            toolSources: () => profiles.map((profile) => ({ kind: 'mcp' as const, profile })),
          },
          data: {},
        },
      ],
    ]),
  });

  it('refuses a profile the user lacks, naming the command that adds it, and an unset variable', () => {
    const keyed: McpProfile = {
      name: 'search',
      transport: 'http',
      url: 'http://127.0.0.1:9/mcp',
      headers: [{ name: 'Authorization', env: 'SEARCH_BEARER' }],
    };
    expect(mcpRefusalLines(planNaming('tools', 'search'), [keyed], {})).toEqual([
      'society: no MCP server "tools": add it with society mcp --add tools=URL (or --mcp tools=URL for one run) (for a)',
      'society: SEARCH_BEARER is not set: the MCP server "search" reads it (for a)',
    ]);
    expect(mcpRefusalLines(planNaming('search'), [keyed], { SEARCH_BEARER: 'x' })).toEqual([]);
    const [override] = mcpOverrides(['tools=http://127.0.0.1:9/mcp']);
    expect(mcpRefusalLines(planNaming('tools'), [override!], {})).toEqual([]);
    expect(() => mcpOverrides(['tools=file:///bin/sh'])).toThrow(/http:\/\/ or https:\/\//);
  });
});

describe('society mcp', () => {
  const dir = mkdtempSync(join(tmpdir(), 'society-mcp-'));
  const db = join(dir, 'runs.db');

  it('adds, lists and removes profiles; a program only from a terminal or with --yes', async () => {
    expect((await societyHere(['mcp', '--db', db])).stdout).toContain('no MCP servers');
    const command = `"${everythingStdio.command}" "${everythingStdio.args[0]}" stdio`;
    const refused = await societyHere(['mcp', '--db', db, '--add', 'ev', '--command', command]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('added only from a terminal; add --yes');
    const added = await societyHere([
      'mcp',
      '--db',
      db,
      '--add',
      'ev',
      '--command',
      command,
      '--env',
      'API_KEY=EV_LAB_VAR',
      '--yes',
    ]);
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(
      /^ev\s+stdio\s+.*server-everything\/dist\/index\.js stdio\s+env: API_KEY from EV_LAB_VAR \(not set\)$/m,
    );
    const web = await societyHere([
      'mcp',
      '--db',
      db,
      '--add',
      'web=http://127.0.0.1:9/mcp',
      '--header',
      'Authorization=WEB_LAB_VAR',
    ]);
    expect(web.stdout).toMatch(
      /^web\s+http\s+http:\/\/127\.0\.0\.1:9\/mcp\s+headers: Authorization from WEB_LAB_VAR/m,
    );
    const bad = await societyHere(['mcp', '--db', db, '--add', 'x=ftp://host/']);
    expect(bad).toMatchObject({ code: 2 });
    expect(bad.stderr).toContain('--add x: url: an MCP server URL is http:// or https://');
    // A key written into a command line or a URL is refused: keys are given by variable.
    const keyed = await societyHere([
      'mcp',
      '--db',
      db,
      '--add',
      'k',
      '--command',
      `srv --key sk-${'x'.repeat(20)}`,
      '--yes',
    ]);
    expect(keyed.code).toBe(2);
    expect(keyed.stderr).toContain('give a key by its variable: --env NAME=ENV_VAR');
    const removed = await societyHere(['mcp', '--db', db, '--remove', 'web']);
    expect(removed.stdout).not.toContain('web');
    expect((await societyHere(['mcp', '--db', db, '--remove', 'web'])).code).toBe(2);
  });

  it('lists a server’s tools over stdio and over HTTP (--mcp), with --json', async () => {
    await societyHere([
      'mcp',
      '--db',
      db,
      '--add',
      'plain',
      '--command',
      `"${everythingStdio.command}" "${everythingStdio.args[0]}"`,
      '--yes',
    ]);
    const listed = await societyHere(['mcp', 'tools', 'plain', '--db', db]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(
      /^echo\s+Echoes back the input string {2}\[readOnly, idempotent\]$/m,
    );
    expect(listed.stdout).toMatch(/^get-sum\s+Returns the sum of two numbers/m);
    expect(listed.stderr).toMatch(/\d+ tools on mcp:plain/);
    const json = await societyHere([
      'mcp',
      'tools',
      'web',
      '--mcp',
      `web=${http.url}`,
      '--json',
      '--db',
      db,
    ]);
    expect(json.code).toBe(0);
    const tools = JSON.parse(json.stdout) as { name: string; hints?: object }[];
    expect(tools.find((t) => t.name === 'get-sum')).toMatchObject({ hints: { readOnly: true } });
    const unset = await societyHere(['mcp', 'tools', 'ev', '--db', db]);
    expect(unset).toMatchObject({ code: 1 });
    expect(unset.stderr).toContain('EV_LAB_VAR is not set');
    const missing = await societyHere(['mcp', 'tools', 'nope', '--db', db]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('society mcp --add nope=URL');
  });

  it('starts nothing and contacts nothing when a document naming profiles is validated', async () => {
    let requests = 0;
    const stub: Server = createServer((_req, res) => {
      requests++;
      res.end();
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    const port = (stub.address() as { port: number }).port;
    const marker = join(dir, 'started');
    await societyHere([
      'mcp',
      '--db',
      db,
      '--add',
      'launcher',
      '--command',
      `sh -c "touch ${marker}"`,
      '--yes',
    ]);
    await societyHere(['mcp', '--db', db, '--add', `remote=http://127.0.0.1:${port}/mcp`]);
    const file = join(dir, 'tools.society.json');
    writeFileSync(file, JSON.stringify(documentNaming(['launcher', 'remote'])));
    await societyHere(['validate', file]);
    await societyHere(['inspect', file]);
    stub.close();
    expect(existsSync(marker)).toBe(false);
    expect(requests).toBe(0);
  });

  it('refuses a document whose tools entry carries a command line', async () => {
    const file = join(dir, 'launch.society.json');
    const doc = documentNaming(['x']);
    (doc.nodes[1]!.data as { tools: object[] }).tools = [
      { mcp: 'x', command: 'sh', args: ['-c', 'id'] },
    ];
    writeFileSync(file, JSON.stringify(doc));
    const result = await societyHere(['validate', file]);
    expect(result.code).toBe(2);
    const said = result.stdout + result.stderr;
    // Until the agent takes `tools`, the whole field is refused; then its check names the field.
    if (agentNamesToolSources()) {
      expect(said).toContain('nodes[1].data.tools[0].command');
      expect(said).toContain('society mcp --add');
    } else expect(said).toContain('Unrecognized key: "tools"');
  });
});

describe('society run with MCP servers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'society-mcp-run-'));
  const db = join(dir, 'runs.db');

  it('refuses a --mcp that is not an HTTP server', async () => {
    const file = join(dir, 'plain.society.json');
    writeFileSync(file, JSON.stringify(documentNaming([])));
    const result = await societyHere(['run', file, '--mcp', 'tools=stdio:sh', '--db', db]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--mcp tools=stdio:sh: url:');
  });

  it('takes --mcp on eval too, and refuses one that is not an HTTP server', async () => {
    const file = join(dir, 'eval.society.json');
    writeFileSync(file, JSON.stringify(documentNaming([])));
    const data = join(dir, 'rows.jsonl');
    writeFileSync(data, '{"q":"hi","a":"x"}\n');
    const common = ['eval', file, '--data', data, '--map', 'question=q', '--expect', 'a'];
    const bad = await societyHere([...common, '--simulate', '--mcp', 'x=ftp://h', '--db', db]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--mcp x=ftp://h: url: an MCP server URL is http:// or https://');
    const good = await societyHere([
      ...common,
      '--simulate',
      '--mcp',
      'x=http://127.0.0.1:5/mcp',
      '--db',
      db,
      '--quiet',
    ]);
    expect(good.code, good.stderr).toBe(0);
  });

  // The agent names its servers through the spec hook `toolSources` once it takes `tools`.
  it.skipIf(!agentNamesToolSources())(
    'refuses a document naming a server the user lacks, naming the add command, before anything is sent',
    async () => {
      const file = join(dir, 'tools.society.json');
      writeFileSync(file, JSON.stringify(documentNaming(['tools'])));
      const result = await societyHere(['run', file, '--input', 'question=hi', '--db', db]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        'no MCP server "tools": add it with society mcp --add tools=URL',
      );
    },
  );
});

/** Whether the agent's spec names the MCP profiles its `tools` field gives. */
function agentNamesToolSources(): boolean {
  return typeof agentSpec.toolSources === 'function';
}

/** A question, an agent offered the tools of these MCP profiles, an answer. */
function documentNaming(profiles: string[]) {
  return {
    version: 1,
    name: 'tools',
    models: { m: { provider: 'openai', model: 'gpt-4o-mini' } },
    nodes: [
      { id: 'q', type: 'input', position: { x: 0, y: 0 }, data: { name: 'question' } },
      {
        id: 'a',
        type: 'agent',
        position: { x: 0, y: 0 },
        data: {
          model: 'm',
          prompt: '{{ question }}',
          ...(profiles.length ? { tools: profiles.map((mcp) => ({ mcp })) } : {}),
        },
      },
      { id: 'out', type: 'output', position: { x: 0, y: 0 }, data: { name: 'answer' } },
    ],
    edges: [
      { id: 'e1', source: 'q', sourceHandle: 'value', target: 'a', targetHandle: 'question' },
      { id: 'e2', source: 'a', sourceHandle: 'text', target: 'out', targetHandle: 'value' },
    ],
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
