/**
 * Running a shipped template the way its cassette is made and used: with the example inputs the
 * template carries, from the simulated provider while recording, from the cassette alone when
 * replaying. `npm run cassettes` records every template's cassette with it, and a test replays
 * every template with it, so the two cannot drift apart.
 */

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fillExamples } from '../app/cli/inputs.ts';
import { compileGraph } from '../app/compiler/index.ts';
import { expertProviders } from '../app/experts/providers.ts';
import { loadNodeRegistry } from '../app/node-sdk/registry.ts';
import type { Cassette } from '../app/providers/cassette.ts';
import { BlobStore } from '../app/runtime/blobs.ts';
import { type RunResult, startRun } from '../app/runtime/engine.ts';
import { mcpToolSources, namedMcpProfiles } from '../app/tools/sources.ts';
import { everythingStdio } from '../tests/support/mcp-everything.ts';

/** The templates folder. */
export const TEMPLATES_DIR = fileURLToPath(new URL('../templates/', import.meta.url));

/** Every template's base name (`nlsom-vqa`), sorted. */
export function templateBases(dir = TEMPLATES_DIR): string[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.society.json'))
    .map((file) => file.slice(0, -'.society.json'.length))
    .sort();
}

/** Where a template's cassette lives. */
export function cassettePath(base: string, dir = TEMPLATES_DIR): string {
  return path.join(dir, `${base}.cassette.json`);
}

/**
 * The person a recording seats where a template asks one and the document offers no example
 * answer (a human node's `examples` answer first): a stand-in, so the recording is the same
 * every time. A seat in a kitchen (`agent1@t3`) waits every step (`noop_agent1`); any other
 * question is answered "yes". Its answers go into the cassette as a person's, and the README
 * says who made them.
 */
export function standInAnswer(name: string): string {
  const seat = /^(.+)@t\d+$/.exec(name)?.[1];
  if (seat) return `noop_${seat}`;
  return 'yes';
}

/**
 * Runs template `base` with its example inputs: `record` asks the simulated provider and
 * writes every answer (a stand-in person's too) into `cassette`; `replay` answers only from it.
 * An MCP server profile a template names is recorded against the reference server
 * `@modelcontextprotocol/server-everything` over stdio: its tools are listed into the cassette,
 * and, the run being simulated, none is called (their results are made up and labelled).
 */
export async function runTemplate(
  base: string,
  cassette: Cassette,
  mode: 'record' | 'replay',
  dir = TEMPLATES_DIR,
): Promise<RunResult> {
  const registry = await loadNodeRegistry();
  const file = path.join(dir, `${base}.society.json`);
  const compiled = await compileGraph(readFileSync(file, 'utf8'), registry);
  if (!compiled.ok) throw new Error(`${file}: ${compiled.problems[0]?.message}`);
  const blobs = new BlobStore();
  const given = { inputs: {}, humanAnswers: {} };
  fillExamples(given, compiled.plan, blobs);
  const run = startRun(compiled, {
    experts: expertProviders,
    registry,
    inputs: given.inputs,
    blobs,
    cassette: { cassette, mode },
    ...(mode === 'record'
      ? {
          simulate: true,
          askHuman: async ({ name, example }) => example ?? standInAnswer(name),
          tools: mcpToolSources({
            profiles: [...namedMcpProfiles(compiled.plan).keys()].map((name) => ({
              name,
              transport: 'stdio' as const,
              ...everythingStdio,
              env: [],
            })),
          }),
        }
      : { humanAnswers: cassette.answers() }),
  });
  const result = await run.result;
  if (mode === 'record') {
    for (const event of run.events)
      if (event.type === 'human.response') cassette.recordAnswer(event.name, event.answer);
  }
  return result;
}
