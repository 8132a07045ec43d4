/**
 * `--estimate` against what a run really sends: every template is estimated and run with the
 * simulated provider; the calls must be the run's (model and expert calls alike), and the
 * estimate's prompt tokens within 2× of the run's. The simulated provider counts no image tokens, so neither does the side compared here
 * (`imagePromptTokens` is left out). CuisineWorld episodes are cut to 12 steps in both, to keep
 * the test quick: the estimate reads the episode length from the same document.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { estimateReport } from '../app/cli/commands/estimate.ts';
import { fillExamples } from '../app/cli/inputs.ts';
import type { GraphPlan } from '../app/compiler/analyze.ts';
import { estimateRun, LIKELY_ANSWER_SHARE } from '../app/costs/estimate.ts';
import { DEFAULT_PRICES } from '../app/costs/prices.ts';
import { expertProviders } from '../app/experts/providers.ts';
import { BlobStore } from '../app/runtime/blobs.ts';
import { startRun } from '../app/runtime/engine.ts';
import { compile, registry } from './support/graphs.ts';

const TEMPLATES = new URL('../templates/', import.meta.url);
const EPISODE_STEPS = 12;

/** The inputs the README runs each template with, by input name. */
const README_INPUTS: Record<string, Record<string, string>> = {
  'nlsom-vqa.society.json': {
    question:
      'What is the large shape in the picture? (a) a red circle (b) a blue square (c) a green triangle (d) a yellow star',
    image: '@nlsom-vqa.example.png',
  },
  'openagi-auto-plan.society.json': {
    question: 'What number is on the jersey?',
    image: '@openagi.example.png',
  },
  'openagi-vqa-german.society.json': {
    question: 'What number is on the jersey?',
    image: '@openagi.example.png',
  },
  'openagi-image-restoration.society.json': { image: '@openagi.example.png' },
  'openagi-clozed-translation.society.json': { text: 'The capital of France is [MASK].' },
};

/**
 * How far above the simulated run's prompt tokens a template's estimate may be, where not 2×.
 * The role-play's user and assistant re-send every earlier turn (`history: all`) for up to 25
 * rounds: the estimate's answer length (half of max tokens: 200 for the assistant, who writes
 * code) is carried into every later prompt, while a simulated answer is one sentence.
 */
const WITHIN: Record<string, number> = {
  'nlsom-camel.society.json': 5,
  // A tool round's prompt counts the call and its result as an answer's length each (half the
  // max tokens, likely), while a simulated call is a few tokens of JSON and the tool's result
  // (a calculator's line, a caption) hardly more.
  'calculator-debate.society.json': 3,
  'openagi-tool-agent.society.json': 3,
  'expert-tools.society.json': 3,
};

const files = readdirSync(TEMPLATES)
  .filter((f) => f.endsWith('.society.json'))
  .sort();

/** The template as a document, with any episode cut to `EPISODE_STEPS`. */
function template(file: string): { nodes: Array<{ data: Record<string, unknown> }> } {
  const doc = JSON.parse(readFileSync(new URL(file, TEMPLATES), 'utf8'));
  for (const node of doc.nodes) {
    if (typeof node.data?.maxSteps === 'number') node.data.maxSteps = EPISODE_STEPS;
  }
  return doc;
}

function inputsFor(file: string, blobs: BlobStore, plan: GraphPlan): Record<string, unknown> {
  // Templates the README does not run with inputs run with the examples they carry.
  if (!README_INPUTS[file]) {
    const examples = { inputs: {}, humanAnswers: {} };
    fillExamples(examples, plan, blobs);
    return examples.inputs;
  }
  const given = README_INPUTS[file];
  return Object.fromEntries(
    Object.entries(given).map(([name, value]) => [
      name,
      value.startsWith('@')
        ? blobs.putImage(readFileSync(new URL(value.slice(1), TEMPLATES)), 'image/png')
        : value,
    ]),
  );
}

describe('--estimate against a simulated run of every template', () => {
  it('finds the templates', () => {
    expect(files.length).toBeGreaterThan(5);
  });

  for (const file of files) {
    it(`${file}: prompt tokens within 2× of the run's`, async () => {
      const compiled = await compile(template(file));
      const blobs = new BlobStore();
      const inputs = inputsFor(file, blobs, compiled.plan);
      let estimate = estimateReport(compiled.plan, DEFAULT_PRICES, inputs);
      const run = await startRun(compiled, {
        experts: expertProviders,
        registry,
        inputs,
        blobs,
        simulate: true,
        // A person answers with the document's example, a seat with "wait", at every step.
        askHuman: async ({ name, example }) => example ?? `noop_${name.split('@')[0]}`,
      });
      const result = await run.result;
      expect(result.status, result.error).toBe('succeeded');

      // A loop that ended early (a role-play's task-done word) ran fewer rounds than the
      // estimate counts, as it says it does: estimate again for the rounds that ran. An MCP
      // profile this machine lacks offered the simulated agent none of its tools: estimate
      // again without that source, as the run had it.
      const stops = run.events.filter((e) => e.type === 'round.finished' && e.stop);
      const unopened = new Set(
        run.events.flatMap((e) =>
          e.type === 'tool.error' && e.error.includes('is offered no tools of mcp:')
            ? [e.source.replace(/^mcp:/, '')]
            : [],
        ),
      );
      if (stops.length > 0 || unopened.size > 0) {
        const doc = template(file);
        for (const node of doc.nodes) {
          const tools = node.data?.tools;
          if (Array.isArray(tools)) {
            node.data.tools = tools.filter((t: { mcp?: string }) => !unopened.has(t.mcp ?? ''));
          }
        }
        for (const stop of stops) {
          if (stop.type !== 'round.finished') continue;
          const loop = doc.nodes.find((n) => (n as { id?: string }).id === stop.loop);
          if (loop) loop.data.maxRounds = stop.round;
        }
        estimate = estimateReport((await compile(doc)).plan, DEFAULT_PRICES, inputs);
      }
      let estimated = estimate.total.promptTokens - estimate.total.imagePromptTokens;
      let { calls, expertCalls } = estimate.total;
      // Branches not taken (a judge asked only on a tie): the likely estimate weighs them by
      // their odds, while this run took one; compare the nodes that ran, each counted in full.
      const skipped = new Set(
        run.events.flatMap((e) => (e.type === 'node.skipped' ? [e.node] : [])),
      );
      if (skipped.size > 0) {
        const rows = estimateRun(compiled.plan, DEFAULT_PRICES, {
          inputs,
          imageTokens: 0,
          answerShare: LIKELY_ANSWER_SHARE,
        }).byNode.filter((r) => !r.retry && !skipped.has(r.node));
        estimated = rows.reduce((sum, r) => sum + r.promptTokens, 0);
        calls = rows.reduce((sum, r) => sum + r.calls, 0);
        expertCalls = rows.reduce((sum, r) => sum + (r.expert ? r.calls : 0), 0);
      }
      const used = result.usage.promptTokens;
      // Tool-using templates too: the likely run makes one tool round a turn and calls one of
      // the turn's tools, as the simulated model does; a graph tool's own calls count as its run.
      // (A share of a call is weighed in thirds or halves: float dust, not a call.)
      expect(calls).toBeCloseTo(result.usage.calls, 9);
      expect(expertCalls).toBeCloseTo(result.usage.expertCalls ?? 0, 9);
      if (used === 0) {
        // Experts only, or no model at all: nothing is sent to a chat model either way.
        expect(estimated).toBe(0);
        return;
      }
      const within = WITHIN[file] ?? 2;
      expect(estimated, `estimated ${estimated}, used ${used}`).toBeGreaterThanOrEqual(used / 2);
      expect(estimated, `estimated ${estimated}, used ${used}`).toBeLessThanOrEqual(used * within);
    });
  }
});
