/**
 * The MCP project's own conformance suite (`@modelcontextprotocol/conformance`, its `server`
 * command) against `/mcp` of a template served as `society serve --no-auth` would serve it
 * (in-process, no token, 127.0.0.1 port 0, simulated models). One call of the suite runs every
 * active server scenario (about 2 s); `-o` leaves each scenario's checks as JSON, read here.
 *
 * The scenarios that apply to a server of our tools must pass. The others exercise the
 * reference server's own test fixtures (tools named `test_simple_text`, `test_image_content`, …,
 * its resources, prompts and argument completions), which a server of societies does not have:
 * they are given to the suite as expected failures, so the suite's exit code is 0 only when the
 * applicable ones pass and the others fail for that reason alone — and a new scenario, or one of
 * these starting to pass, makes it 1 and this test say so.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect, it } from 'vitest';
import { type ServeFlags, serveOptions } from '../app/cli/commands/serve/serve.ts';
import { serve } from '../app/serve/index.ts';

/** Scenarios a server of societies must pass: the protocol, its transport and its security. */
const APPLIES = [
  'server-initialize',
  'ping',
  'tools-list',
  'logging-set-level',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

/** Scenarios that call the reference server's fixtures, which a server of societies lacks. */
const NOT_APPLICABLE = [
  'completion-complete',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-error',
  'tools-call-with-progress',
  'tools-call-sampling',
  'tools-call-elicitation',
  'elicitation-sep1034-defaults',
  'elicitation-sep1330-enums',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'resources-subscribe',
  'resources-unsubscribe',
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
];

const require = createRequire(import.meta.url);
const CONFORMANCE = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO';
  errorMessage?: string;
}

it('passes the MCP conformance suite`s scenarios that apply to a server of societies', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'society-mcp-conformance-'));
  const flags: ServeFlags = {
    port: '0',
    host: '127.0.0.1',
    auth: false,
    concurrency: '2',
    queueLimit: '4',
    maxBody: '65536',
    simulate: true,
    provider: [],
    allowHost: [],
    db: join(dir, 'runs.db'),
  };
  const { options, close } = await serveOptions(['templates/tie-judge.society.json'], flags);
  const serving = await serve(options);
  try {
    const baseline = join(dir, 'not-applicable.yaml');
    writeFileSync(baseline, `server:\n${NOT_APPLICABLE.map((s) => `  - ${s}\n`).join('')}`);
    const out = join(dir, 'results');
    const run = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        process.execPath,
        [
          CONFORMANCE,
          'server',
          '--url',
          `${serving.url}/mcp`,
          '-o',
          out,
          '--expected-failures',
          baseline,
        ],
        { timeout: 50_000 },
        (error, stdout) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout }),
      );
    });
    // Each scenario's checks, by scenario (its folder is `server-NAME-TIMESTAMP`).
    const checks = new Map<string, Check[]>();
    for (const folder of readdirSync(out)) {
      const name = /^server-(.+)-\d{4}-\d{2}-\d{2}T/.exec(folder)?.[1];
      if (name)
        checks.set(name, JSON.parse(readFileSync(join(out, folder, 'checks.json'), 'utf8')));
    }
    for (const scenario of APPLIES) {
      const results = checks.get(scenario) ?? [];
      expect(results.length, `${scenario} ran no check`).toBeGreaterThan(0);
      const failed = results.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
      expect(failed, scenario).toEqual([]);
    }
    expect(
      [...checks.keys()].filter((s) => !APPLIES.includes(s) && !NOT_APPLICABLE.includes(s)),
      'scenarios this test does not know',
    ).toEqual([]);
    expect(run.code, run.stdout.slice(-2000)).toBe(0);
  } finally {
    await serving.close();
    close();
  }
}, 60_000);
