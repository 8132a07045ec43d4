/**
 * Every template in the gallery runs in the studio as a newcomer would run it: open it, leave the
 * Inputs form as it comes (the document's examples filled in, read by the page's own code), press
 * Replay cassette, and see it succeed, with no key anywhere.
 */
import { describe, expect, it } from 'vitest';
import { compileGraph } from '../../app/compiler/index.ts';
import { isFileModality } from '../../app/node-sdk/example.ts';
import { loadNodeRegistry } from '../../app/node-sdk/registry.ts';
import { runExamples } from '../../app/runtime/examples.ts';
import type { Modality } from '../../app/schema/modality.ts';
import { call, finished, withApi } from './handlers.test-helper.ts';

/** The page's own document code (renderer/model/document.ts), as much of it as this test uses. */
interface PageDocuments {
  readDocument(text: string): { ok: true; doc: { name: string } } | { ok: false };
  fromDocument(doc: unknown): unknown;
  toDocument(canvas: unknown): Record<string, unknown>;
}

/**
 * Loaded at run time: the renderer is type-checked under its own tsconfig (DOM, Vite), which a
 * static import would pull into this one.
 */
const PAGE_DOCUMENTS = '../../renderer/model/document.ts';

// No keys at all: a template's Run must not need one.
withApi({ name: 'templates', workspace: 'ws' });

describe('the gallery', () => {
  it('lists every template as runnable without a key', async () => {
    const listed = await call('templates.list', {});
    expect(listed.length).toBeGreaterThan(10);
    expect(listed.filter((t) => !t.hasCassette).map((t) => t.file)).toEqual([]);
  });

  it('runs each template from its cassette with the Inputs form as it comes', async () => {
    const listed = await call('templates.list', {});
    const registry = await loadNodeRegistry();
    const page = (await import(PAGE_DOCUMENTS)) as PageDocuments;
    const failures: string[] = [];
    for (const template of listed) {
      const { text } = await call('templates.open', { file: template.file });
      // The document as the page sends it: read, put on the canvas, taken back off it.
      const read = page.readDocument(text);
      if (!read.ok) {
        failures.push(`${template.file}: the page cannot read it`);
        continue;
      }
      const document = page.toDocument(
        page.fromDocument({ ...read.doc, name: `${read.doc.name} (copy)` }),
      );
      const compiled = await compileGraph(document, registry);
      if (!compiled.ok) {
        failures.push(`${template.file}: does not compile`);
        continue;
      }
      // What the Inputs form sends when nobody types (renderer/model/run-inputs.ts): each
      // input's example as it reads, a file's as "example" for the API to take from the document.
      const examples = runExamples(compiled.plan.nodes.values());
      const inputs: Record<string, unknown> = {};
      const missing: string[] = [];
      for (const node of compiled.plan.nodes.values()) {
        const field = node.spec.runInput?.(node.data);
        if (!field) continue;
        const example = examples.get(field.name);
        if (example?.value === undefined) {
          if (field.default === undefined) missing.push(field.name);
          continue;
        }
        inputs[field.name] = isFileModality(field.modality as Modality) ? 'example' : example.value;
      }
      if (missing.length) {
        failures.push(`${template.file}: no example for ${missing.join(', ')}`);
        continue;
      }
      const { runId } = await call('run.start', {
        document,
        inputs,
        mode: 'replay',
        replayTemplate: template.file,
      });
      const end = await finished(runId);
      if (end.status !== 'succeeded') {
        failures.push(`${template.file}: ${end.status} ${JSON.stringify(end.error ?? '')}`);
      }
      // The NLSOM societies also run with simulated answers (Run simulated), as they come.
      if (template.file.startsWith('nlsom-')) {
        const simulated = await call('run.start', { document, inputs, mode: 'simulated' });
        const done = await finished(simulated.runId);
        if (done.status !== 'succeeded') {
          failures.push(
            `${template.file} simulated: ${done.status} ${JSON.stringify(done.error ?? '')}`,
          );
        }
      }
    }
    expect(failures).toEqual([]);
    // Every template once from its cassette and each NLSOM one once simulated (the
    // Artist–Critic twice 259 calls): about 5 s on an idle machine.
  }, 60_000);
});
