/**
 * Templates in a run: a template that reached the engine with a tag that reads files (past the
 * compiler) reads nothing, a pathological template fails its node fast with one line, the
 * document's `settings.limits` apply, and the process keeps answering while a slow template
 * renders.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expertProviders } from '../app/experts/providers.ts';
import { startRun } from '../app/runtime/engine.ts';
import type { RunSettings } from '../app/schema/document.ts';
import {
  agent,
  compile,
  edge,
  eventsOf,
  graph,
  input,
  nextEvent,
  node,
  output,
  registry,
  run,
} from './support/graphs.ts';

const MARKER = 'MARKER-never-in-a-run-91c2';
let dir: string;
let cwd: string;
beforeAll(() => {
  // The files an attacker would aim at, in the directory the run starts from.
  dir = mkdtempSync(path.join(tmpdir(), 'society-template-cwd-'));
  writeFileSync(path.join(dir, '.env'), `OPENAI_API_KEY=${MARKER}`);
  writeFileSync(path.join(dir, 'package.json'), `{"name":"${MARKER}"}`);
  cwd = process.cwd();
  process.chdir(dir);
});
afterAll(() => {
  process.chdir(cwd);
  rmSync(dir, { recursive: true, force: true });
});

/** Input q through a transform and an agent to two outputs. */
function society(settings?: RunSettings) {
  return graph(
    [
      input('q'),
      node('t', 'transform', { template: '{{ q }}' }),
      agent('a', 'Answer {{ q }}'),
      output('shaped'),
      output('answer'),
    ],
    [
      edge('q.value', 't.q'),
      edge('q.value', 'a.q'),
      edge('t.value', 'shaped.value'),
      edge('a.text', 'answer.value'),
    ],
    settings ? { settings } : {},
  );
}

/** Runs the society with one node's template replaced after compiling, as if it got past. */
async function runWith(id: 't' | 'a', template: string) {
  const compiled = await compile(society());
  const data = compiled.plan.nodes.get(id)!.data;
  data[id === 't' ? 'template' : 'prompt'] = `{{ q }} ${template}`;
  const r = startRun(compiled, {
    experts: expertProviders,
    registry,
    simulate: true,
    inputs: { q: 'hello' },
  });
  const result = await r.result;
  return { ...result, events: r.events };
}

describe('a template that slipped past validation', () => {
  const tags = [
    "{% include '.env' %}",
    "{% render 'package.json' %}",
    "{% layout '.env' %}",
    // By its full path, which a file system rooted at the working directory would allow.
    "{% include '<dir>/.env' %}",
  ];
  for (const tag of tags) {
    it(`reads no file: ${tag}`, async () => {
      for (const id of ['t', 'a'] as const) {
        const result = await runWith(id, tag.replace('<dir>', dir));
        expect(result.status).toBe('failed');
        expect(result.error).toMatch(
          new RegExp(
            `^node "${id}": its ${id === 't' ? '' : 'prompt '}template: templates cannot include other files`,
          ),
        );
        expect(JSON.stringify(result)).not.toContain(MARKER);
      }
    });
  }
});

describe('pathological templates in a run', () => {
  const cases: Array<[string, string, string]> = [
    [
      'a loop of 10^8 iterations',
      '{% for i in (1..100000000) %}{% endfor %}',
      'went past the 100,000-iteration loop limit (settings.limits.templateIterations)',
    ],
    [
      'nested loops',
      '{% for a in (1..100000) %}{% for b in (1..100000) %}x{% endfor %}{% endfor %}',
      'went past the 100,000-iteration loop limit (settings.limits.templateIterations)',
    ],
    [
      'a text that doubles',
      '{% assign s = q %}{% for i in (1..60) %}{% assign s = s | append: s %}{% endfor %}{{ s }}',
      'built a range or text of more than 4,194,304 items along the way (settings.limits.templateBytes)',
    ],
    [
      'a large output',
      `{% for i in (1..5000) %}${'x'.repeat(500)}{% endfor %}`,
      'produced more than 1,048,576 bytes of text (settings.limits.templateBytes)',
    ],
  ];
  for (const [what, template, message] of cases) {
    it(`fails the node on ${what}, in one line, and stores nothing large`, async () => {
      const compiled = await compile(society());
      compiled.plan.nodes.get('t')!.data.template = template;
      const r = startRun(compiled, {
        experts: expertProviders,
        registry,
        simulate: true,
        inputs: { q: 'hello' },
      });
      const result = await r.result;
      expect(result.status).toBe('failed');
      expect(result.error).toBe(`node "t": its template ${message}`);
      expect(eventsOf(r.events, 'node.failed')).toEqual([
        expect.objectContaining({ node: 't', error: `its template ${message}` }),
      ]);
      expect(JSON.stringify(r.events).length).toBeLessThan(20_000);
    });
  }

  it("uses the document's settings.limits, up to their ceilings", async () => {
    const loop = (n: number) => `{% for i in (1..${n}) %}.{% endfor %}`;
    const doc = (template: string, limits: NonNullable<RunSettings['limits']>) => {
      const d = society({ limits });
      d.nodes[1]!.data = { template: `{{ q }}${template}` };
      return d;
    };
    const tight = await run(doc(loop(20), { templateIterations: 10 }), {
      simulate: true,
      inputs: { q: 'x' },
    });
    expect(tight.error).toBe(
      'node "t": its template went past the 10-iteration loop limit (settings.limits.templateIterations)',
    );
    const within = await run(doc(loop(10), { templateIterations: 10 }), {
      simulate: true,
      inputs: { q: 'x' },
    });
    expect(within.outputs.shaped).toBe('x..........');
    const beyond = await run(doc(loop(100_000_000), { templateIterations: 1e12 }), {
      simulate: true,
      inputs: { q: 'x' },
    });
    expect(beyond.error).toMatch(/went past the 5,000,000-iteration loop limit/);
  });
});

describe('a slow template', () => {
  it('leaves the process answering, and Stop stops it at once', async () => {
    const compiled = await compile(
      society({ limits: { templateMs: 10_000, templateIterations: 5_000_000 } }),
    );
    compiled.plan.nodes.get('t')!.data.template =
      '{% for a in (1..3000) %}{% for b in (1..3000) %}{% endfor %}{% endfor %}';
    const r = startRun(compiled, {
      experts: expertProviders,
      registry,
      simulate: true,
      inputs: { q: 'x' },
    });
    await nextEvent(r, 'node.started', (e) => e.node === 't');
    // The template now renders for seconds; a timer set now still fires first.
    const first = await Promise.race([
      r.result.then(() => 'the run ended'),
      new Promise((resolve) => setTimeout(() => resolve('a timer fired'), 20)),
    ]);
    expect(first).toBe('a timer fired');
    r.cancel();
    expect((await r.result).status).toBe('cancelled');
  });
});
