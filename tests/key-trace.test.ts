/**
 * The key-trace matrix: every source a key can come from (a fixed variable, a stored provider's
 * key variable, a `--provider ...,key=VAR` key, an MCP server's header or environment) against every path out of the process (the
 * database and its WAL, events files, the cassette, the export, `show`, stdout and stderr),
 * through run → kill -9 → resume → fork → export → replay → show, against a server that
 * echoes the Authorization header in every answer (streamed in small pieces, so a key is split
 * across deltas) and in its error bodies; MCP servers that echo their header or environment key
 * in a tool's result, in a tool's error and in a failed request; and in the studio, a key entered in Settings against
 * every frame sent to the page. Not one copy of any key may appear anywhere.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { studioProtocols } from '../app/api/studio-auth.ts';
import { openRunStore } from '../app/store/index.ts';
import { saveMcpProfile } from '../app/tools/profiles.ts';
import { startStudio } from '../main/studio/server.ts';
import { type CliResult, society } from './support/cli.ts';
import { startCountingMcp } from './support/mcp-counting.ts';
import { startStubOpenAI } from './support/stub-openai.ts';

const BIN = fileURLToPath(new URL('../bin/society.js', import.meta.url));
/** A stdio MCP server that echoes its environment's key in a result and in an error. */
const ECHO_STDIO = fileURLToPath(new URL('./support/mcp-echo-stdio.ts', import.meta.url));

// Made up at run time so no key-shaped text is ever committed. The variable names of the
// stored and flagged providers are deliberately not credential-like (no _KEY or _TOKEN), so
// only knowing the providers' key variables can hide them.
const MARKERS = {
  fixed: `sk-fixed${randomBytes(16).toString('hex')}`,
  stored: `lab2-${randomBytes(16).toString('hex')}`,
  flagged: `flag-${randomBytes(16).toString('hex')}`,
};
/** Keys read for an MCP server's header, and for a stdio server's environment. */
const MCP_MARKERS = {
  mcpHeader: `Bearer hdr-${randomBytes(16).toString('hex')}`,
  mcpEnv: `env-${randomBytes(16).toString('hex')}`,
};

const agent = (id: string, model: string, prompt: string) => ({
  id,
  type: 'agent',
  position: { x: 0, y: 0 },
  data: { model, prompt, stream: true },
});

/** Three agents in a chain, one per key source; each passes the echoed key on to the next. */
const doc = {
  version: 1,
  name: 'key trace',
  models: {
    viaFixed: { provider: 'openai', model: 'model-fixed' },
    viaStored: { provider: 'lab2', model: 'model-stored' },
    viaFlag: { provider: 'local', model: 'model-flagged' },
  },
  settings: { retry: { attempts: 1 } },
  nodes: [
    { id: 'q', type: 'input', position: { x: 0, y: 0 }, data: { name: 'q' } },
    agent('a', 'viaFixed', 'Answer: {{ q }}'),
    agent('b', 'viaStored', 'Check: {{ x }}'),
    agent('c', 'viaFlag', 'Summarize: {{ y }}'),
    { id: 'out', type: 'output', position: { x: 0, y: 0 }, data: { name: 'answer' } },
  ],
  edges: [
    { id: 'e1', source: 'q', sourceHandle: 'value', target: 'a', targetHandle: 'q' },
    { id: 'e2', source: 'a', sourceHandle: 'text', target: 'b', targetHandle: 'x' },
    { id: 'e3', source: 'b', sourceHandle: 'text', target: 'c', targetHandle: 'y' },
    { id: 'e4', source: 'c', sourceHandle: 'text', target: 'out', targetHandle: 'value' },
  ],
};

let stub: Awaited<ReturnType<typeof startStubOpenAI>>;
/** While set, the call to the third agent hangs, so the run can be killed in the middle. */
let holdThird = true;
let dir: string;
let file: string;
let db: string;
let env: Record<string, string>;
const printed: Array<{ step: string; out: CliResult }> = [];

beforeAll(async () => {
  stub = await startStubOpenAI({
    respond: async (body, ctx) => {
      const said = JSON.stringify(body.messages);
      const echo = `you sent ${ctx.headers.authorization} (${body.model})`;
      if (said.includes('FAIL')) {
        return {
          status: 401,
          body: { error: { message: `bad key ${ctx.headers.authorization}` } },
        };
      }
      if (body.model === 'model-flagged' && holdThird) {
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      }
      // Seven characters a piece: every key is cut across several deltas.
      const chunks = echo.match(/.{1,7}/gs) ?? [echo];
      return { text: echo, chunks };
    },
  });
  dir = mkdtempSync(join(tmpdir(), 'society-key-trace-'));
  file = join(dir, 'doc.json');
  writeFileSync(file, JSON.stringify(doc));
  db = join(dir, 'runs.db');
  env = {
    OPENAI_API_KEY: MARKERS.fixed,
    OPENAI_BASE_URL: stub.url,
    LAB2_ACCESS: MARKERS.stored,
    BENCH_PASSPHRASE: MARKERS.flagged,
  };
});
afterAll(() => stub.close());

const flagged = () => ['--provider', `local=${stub.url},key=BENCH_PASSPHRASE`];

async function step(name: string, args: string[], extraEnv: Record<string, string> = env) {
  const out = await society([...args, '--db', db], extraEnv);
  printed.push({ step: name, out });
  return out;
}

/** Every file the commands wrote (the database, its WAL, events, cassette, export), as text. */
function writtenFiles(): Array<{ name: string; text: string }> {
  return readdirSync(dir).map((name) => ({
    name,
    text: readFileSync(join(dir, name)).toString('latin1'),
  }));
}

/** Fails naming the step, file and source of any key copy found. */
function expectNoKeys() {
  for (const [source, marker] of Object.entries({ ...MARKERS, ...MCP_MARKERS })) {
    for (const { name, text } of writtenFiles()) {
      expect(text.includes(marker), `the ${source} key is in ${name}`).toBe(false);
    }
    for (const { step, out } of printed) {
      expect(out.stdout.includes(marker), `the ${source} key is on stdout of ${step}`).toBe(false);
      expect(out.stderr.includes(marker), `the ${source} key is on stderr of ${step}`).toBe(false);
    }
  }
}

/** `society run` killed with SIGKILL once the third call is in flight. */
function runAndKill(): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [BIN, 'run', file, '--input', 'q=hello', ...flagged(), '--events', join(dir, 'run.ndjson')],
      { env: { ...process.env, ...env, SOCIETY_DB: db, NO_COLOR: '1' }, stdio: 'pipe' },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const poll = setInterval(() => {
      if (stub.requests.some((r) => r.model === 'model-flagged')) child.kill('SIGKILL');
    }, 20);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(poll);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('keys from every source, through every output', () => {
  let runId = '';

  it('a run killed mid-way holds no key in its store, events or output', {
    timeout: 30_000,
  }, async () => {
    const added = await step('providers --add', [
      'providers',
      '--add',
      `lab2=${stub.url}`,
      '--key-env',
      'LAB2_ACCESS',
    ]);
    expect(added.code, added.stderr).toBe(0);

    const killed = await runAndKill();
    printed.push({ step: 'run (killed)', out: killed });
    expect(killed.code).toBe(null);
    // The keys did go over the wire: what follows proves they were hidden, not absent.
    const sent = stub.headers.map((h) => String(h.authorization));
    expect(sent).toContain(`Bearer ${MARKERS.fixed}`);
    expect(sent).toContain(`Bearer ${MARKERS.stored}`);
    expect(sent).toContain(`Bearer ${MARKERS.flagged}`);
    const runs = await step('runs', ['runs']);
    runId = /^(\S+)/.exec(runs.stdout.split('\n')[1] ?? '')?.[1] ?? '';
    expect(runs.stdout).toContain('interrupted');
    expectNoKeys();
  });

  it('resume, fork, export, replay and show keep them out too', {
    timeout: 60_000,
  }, async () => {
    holdThird = false;
    const resumed = await step('resume', [
      'resume',
      runId,
      ...flagged(),
      '--events',
      join(dir, 'resume.ndjson'),
      '--json',
    ]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const result = JSON.parse(resumed.stdout);
    // The third agent's answer echoed its key: it is there, scrubbed.
    expect(result.outputs.answer).toContain('[redacted]');
    expect(stub.headers.at(-1)?.authorization).toBe(`Bearer ${MARKERS.flagged}`);

    const forked = await step('fork', [
      'fork',
      runId,
      '--edit',
      'a=It is a square',
      ...flagged(),
      '--events',
      join(dir, 'fork.ndjson'),
      '--json',
    ]);
    expect(forked.code, forked.stderr).toBe(0);
    const exported = await step('export', ['export', runId, '-o', join(dir, 'run.export.json')]);
    expect(exported.code, exported.stderr).toBe(0);
    // A replay needs no key at all.
    const replayed = await step('replay', ['replay', join(dir, 'run.export.json'), '--json'], {});
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(JSON.parse(replayed.stdout).outputs).toEqual(result.outputs);
    await step('show', ['show', runId]);
    await step('show --json', ['show', runId, '--json']);
    expectNoKeys();
  });

  it('a recorded cassette and a failing call whose error body echoes the key hold none', {
    timeout: 40_000,
  }, async () => {
    const recorded = await step('run --record', [
      'run',
      file,
      '--input',
      'q=again',
      ...flagged(),
      '--record',
      join(dir, 'calls.cassette.json'),
      '--json',
    ]);
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(readFileSync(join(dir, 'calls.cassette.json'), 'utf8')).toContain('[redacted]');
    const failed = await step('run (401)', ['run', file, '--input', 'q=FAIL', ...flagged()]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('[redacted]');
    expectNoKeys();
  });
});

describe('keys given to MCP servers', () => {
  it('stay out of the store and of what `society mcp` prints, even when a server echoes them', {
    timeout: 30_000,
  }, async () => {
    // A server that answers every request with the Authorization header it was sent.
    const echo = createServer((req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`refused ${req.headers.authorization}`);
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(echo.address() as { port: number }).port}/mcp`;
    const mcpEnv = { ...env, WEB_LAB_HDR: MCP_MARKERS.mcpHeader, EV_LAB_CFG: MCP_MARKERS.mcpEnv };
    try {
      const added = await step(
        'mcp --add (http)',
        ['mcp', '--add', `web=${url}`, '--header', 'Authorization=WEB_LAB_HDR'],
        mcpEnv,
      );
      expect(added.stdout).toContain('Authorization from WEB_LAB_HDR (set)');
      // A stdio server that says its variable on its error output, then fails to start.
      await step(
        'mcp --add (stdio)',
        [
          'mcp',
          '--add',
          'ev',
          '--command',
          `sh -c 'echo "got $SERVICE_PASS" >&2; exit 3'`,
          '--env',
          'SERVICE_PASS=EV_LAB_CFG',
          '--yes',
        ],
        mcpEnv,
      );
      const web = await step('mcp tools web', ['mcp', 'tools', 'web'], mcpEnv);
      expect(web.code).toBe(1);
      expect(web.stderr).toContain('refused [redacted]');
      const ev = await step('mcp tools ev', ['mcp', 'tools', 'ev'], mcpEnv);
      expect(ev.code).toBe(1);
      expect(ev.stderr).toContain('(it said: got [redacted])');
      await step('mcp', ['mcp'], mcpEnv);
      expectNoKeys();
    } finally {
      echo.close();
    }
  });
});

describe('keys a tool-using run was given', () => {
  it('stay out of its store, events, cassette, export and output, echoed in results and errors', {
    timeout: 40_000,
  }, async () => {
    const mcpEnv = { ...env, WEB_LAB_HDR: MCP_MARKERS.mcpHeader, EV_LAB_CFG: MCP_MARKERS.mcpEnv };
    // An HTTP server whose tools answer with the Authorization header, and fail quoting it.
    const hdr = await startCountingMcp([
      {
        name: 'whoami',
        input: {},
        answer: (_, { headers }) => `you sent ${headers.authorization}`,
      },
      {
        name: 'refuse',
        input: {},
        answer: (_, { headers }) => {
          throw new Error(`refused ${headers.authorization}`);
        },
      },
    ]);
    // A server that fails every request quoting the header: the run's own error carries it.
    const down = createServer((req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`down ${req.headers.authorization}`);
    });
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    const downUrl = `http://127.0.0.1:${(down.address() as { port: number }).port}/mcp`;
    const all = ['whoami', 'refuse', 'printenv', 'failenv'];
    // Calls every tool it is offered, then answers quoting every result.
    const model = await startStubOpenAI({
      respond: (body) => {
        const results = body.messages.filter((m: { role: string }) => m.role === 'tool');
        if (results.length > 0)
          return {
            text: `tools said: ${results.map((m: { content: string }) => m.content).join(' | ')}`,
          };
        const offered = (body.tools ?? []).map(
          (t: { function: { name: string } }) => t.function.name,
        );
        return { text: '', toolCalls: offered.map((name: string) => ({ name, arguments: {} })) };
      },
    });
    const toolDoc = (profiles: string[]) => ({
      version: 1,
      name: 'key trace with tools',
      models: { m: { provider: 'toolstub', model: 'model-tools' } },
      nodes: [
        { id: 'q', type: 'input', position: { x: 0, y: 0 }, data: { name: 'q' } },
        {
          id: 't',
          type: 'agent',
          position: { x: 0, y: 0 },
          data: {
            model: 'm',
            prompt: 'Use the tools: {{ q }}',
            tools: profiles.map((mcp) => ({ mcp })),
          },
        },
        { id: 'out', type: 'output', position: { x: 0, y: 0 }, data: { name: 'answer' } },
      ],
      edges: [
        { id: 'e1', source: 'q', sourceHandle: 'value', target: 't', targetHandle: 'q' },
        { id: 'e2', source: 't', sourceHandle: 'text', target: 'out', targetHandle: 'value' },
      ],
    });
    const toolFile = join(dir, 'tools.json');
    const downFile = join(dir, 'tools-down.json');
    writeFileSync(toolFile, JSON.stringify(toolDoc(['hdr', 'envd'])));
    writeFileSync(downFile, JSON.stringify(toolDoc(['down'])));
    const stub = ['--provider', `toolstub=${model.url}`];
    try {
      // The profiles as `society mcp --add` keeps them (that command is traced above).
      const profiles = openRunStore(db);
      const header = [{ name: 'Authorization', env: 'WEB_LAB_HDR' }];
      saveMcpProfile(profiles, { name: 'hdr', transport: 'http', url: hdr.url, headers: header });
      saveMcpProfile(profiles, { name: 'down', transport: 'http', url: downUrl, headers: header });
      saveMcpProfile(profiles, {
        name: 'envd',
        transport: 'stdio',
        command: process.execPath,
        args: [ECHO_STDIO],
        env: [{ name: 'SERVICE_PASS', env: 'EV_LAB_CFG' }],
      });
      profiles.close();
      const ran = await step(
        'run (tools)',
        [
          'run',
          toolFile,
          '--input',
          'q=go',
          ...stub,
          '--events',
          join(dir, 'tools.ndjson'),
          '--record',
          join(dir, 'tools.cassette.json'),
          '--json',
        ],
        mcpEnv,
      );
      expect(ran.code, ran.stderr).toBe(0);
      const runId = JSON.parse(ran.stdout).runId;
      // Every tool was called and echoed its key: the model was sent them (they did go out).
      expect(hdr.calls.map((c) => c.tool).sort()).toEqual(['refuse', 'whoami']);
      const sent = JSON.stringify(model.requests.at(-1)?.messages);
      expect(sent).toContain(`you sent ${MCP_MARKERS.mcpHeader}`);
      expect(sent).toContain(`refused ${MCP_MARKERS.mcpHeader}`);
      expect(sent).toContain(`my pass is ${MCP_MARKERS.mcpEnv}`);
      expect(sent).toContain(`refused with pass ${MCP_MARKERS.mcpEnv}`);
      expect(JSON.parse(ran.stdout).outputs.answer).toContain('you sent [redacted]');
      expect(readFileSync(join(dir, 'tools.ndjson'), 'utf8')).toContain('my pass is [redacted]');
      const cassette = readFileSync(join(dir, 'tools.cassette.json'), 'utf8');
      expect(cassette).toContain('refused with pass [redacted]');
      const exported = await step(
        'export (tools)',
        ['export', runId, '-o', join(dir, 'tools.export.json')],
        mcpEnv,
      );
      expect(exported.code, exported.stderr).toBe(0);
      await step('show (tools)', ['show', runId], mcpEnv);
      // In the store, in the order the run left them: every result and error, scrubbed.
      const store = openRunStore(db);
      try {
        const events = store.events(runId).filter((e) => e.type.startsWith('tool.'));
        expect(events.filter((e) => e.type === 'tool.result')).toHaveLength(all.length);
        const record = JSON.stringify(store.callRecord(runId));
        expect(record).toContain('you sent [redacted]');
        expect(record).toContain('my pass is [redacted]');
      } finally {
        store.close();
      }
      const failed = await step(
        'run (tool server down)',
        ['run', downFile, '--input', 'q=go', ...stub, '--events', join(dir, 'tools-down.ndjson')],
        mcpEnv,
      );
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain('down [redacted]');
      expectNoKeys();
    } finally {
      await hdr.close();
      await model.close();
      down.close();
    }
  });
});

describe('keys in the studio', () => {
  it('reach no frame sent to the page and no byte of its store', { timeout: 30_000 }, async () => {
    holdThird = false;
    const studioDir = mkdtempSync(join(tmpdir(), 'society-key-trace-studio-'));
    const dbFile = join(studioDir, 'studio.db');
    const store = openRunStore(dbFile);
    // Providers a user added from the terminal: the studio refuses to redirect keys itself.
    store.saveProviderProfile({
      name: 'lab2',
      kind: 'openai-compatible',
      baseUrl: stub.url,
      apiKeyEnv: 'LAB2_ACCESS',
    });
    store.saveProviderProfile({
      name: 'local',
      kind: 'openai-compatible',
      baseUrl: stub.url,
      apiKeyEnv: 'BENCH_PASSPHRASE',
    });
    const studio = await startStudio({
      store,
      workspaceDir: join(studioDir, 'workspace'),
      rendererDir: studioDir,
      env: {
        OPENAI_API_KEY: MARKERS.fixed,
        OPENAI_BASE_URL: stub.url,
        BENCH_PASSPHRASE: MARKERS.flagged,
      },
      log: () => {},
    });
    const frames: string[] = [];
    const ws = new WebSocket(`ws://127.0.0.1:${studio.port}/api`, studioProtocols(studio.token), {
      origin: `http://127.0.0.1:${studio.port}`,
    });
    const answers = new Map<number, (message: Record<string, unknown>) => void>();
    let finished = 0;
    const onFinished: Array<() => void> = [];
    ws.on('message', (data) => {
      const text = data.toString();
      frames.push(text);
      const message = JSON.parse(text);
      if (message.push === 'run.events') {
        for (const push of message.pushes) if (push.event.type === 'run.finished') finished++;
        for (const wake of onFinished.splice(0)) wake();
      } else answers.get(message.id)?.(message);
    });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    let next = 1;
    const call = (method: string, params: unknown) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const id = next++;
        answers.set(id, (m) => resolve(m));
        ws.send(JSON.stringify({ id, method, params }));
      });
    const runEnds = async (count: number) => {
      while (finished < count) await new Promise<void>((wake) => onFinished.push(wake));
    };
    try {
      // The stored provider's key is entered in Settings (the vault), not in the environment.
      const set = await call('settings.setKey', { name: 'LAB2_ACCESS', value: MARKERS.stored });
      expect(set.result).toMatchObject({ configured: true });
      const sentBefore = stub.headers.length;
      const started = await call('run.start', {
        document: doc,
        mode: 'live',
        inputs: { q: 'hello' },
      });
      const runId = (started.result as { runId: string }).runId;
      await runEnds(1);
      const forked = await call('runs.fork', {
        runId,
        edits: [{ instance: 'a', text: 'A square' }],
      });
      expect(forked.error).toBeUndefined();
      await runEnds(2);
      const shown = await call('runs.show', { runId });
      expect(JSON.stringify(shown)).toContain('[redacted]');
      const sent = stub.headers.slice(sentBefore).map((h) => String(h.authorization));
      for (const marker of Object.values(MARKERS)) expect(sent).toContain(`Bearer ${marker}`);
    } finally {
      ws.close();
      await studio.close();
    }
    expect(frames.join('\n')).toContain('[redacted]');
    for (const [source, marker] of Object.entries(MARKERS)) {
      for (const frame of frames)
        expect(frame.includes(marker), `the ${source} key in a frame`).toBe(false);
      for (const name of readdirSync(studioDir)) {
        if (!name.startsWith('studio.db')) continue;
        const bytes = readFileSync(join(studioDir, name)).toString('latin1');
        expect(bytes.includes(marker), `the ${source} key in ${name}`).toBe(false);
      }
    }
    store.close();
  });
});
