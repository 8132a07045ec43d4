import { describe, expect, it } from 'vitest';
import { Page, VQA_TEXT, vqaDocument, withStudio } from './server.test-helper.ts';

withStudio();

describe('the studio API', () => {
  it('lists the VQA template with its cassette and a likely estimate, and opens it by name only', async () => {
    const page = await Page.open();
    try {
      const templates = await page.call<Array<Record<string, unknown>>>('templates.list');
      const vqa = templates.find((t) => t.file === 'nlsom-vqa.society.json');
      expect(vqa).toMatchObject({
        name: 'NLSOM visual question answering (monarchy)',
        providers: ['openai'],
        hasCassette: true,
        estimate: { calls: 17 },
      });
      // Expert models need Hugging Face live, though the document has no model profile for it.
      expect(
        templates.find((t) => t.file === 'openagi-image-restoration.society.json'),
      ).toMatchObject({
        providers: ['hf-inference'],
        hasCassette: true,
      });
      const estimate = vqa!.estimate as { calls: number; tokens: number; costUsd: number };
      expect(estimate.tokens).toBeGreaterThan(0);
      expect(estimate.costUsd).toBeGreaterThan(0);
      const opened = await page.call<{ text: string }>('templates.open', {
        file: 'nlsom-vqa.society.json',
      });
      expect(opened.text).toBe(VQA_TEXT);
      await expect(page.call('templates.open', { file: '../package.json' })).rejects.toThrow(
        /no template/,
      );
    } finally {
      page.close();
    }
  });

  it('validates and compiles documents; problems name the node', async () => {
    const page = await Page.open();
    try {
      const broken = vqaDocument();
      (broken.edges as Array<{ id: string }>).splice(
        (broken.edges as Array<{ id: string }>).findIndex((e) => e.id === 'q-leader'),
        1,
      );
      const checked = await page.call<{ ok: boolean; problems: Array<Record<string, string>> }>(
        'document.validate',
        { document: broken },
      );
      expect(checked.ok).toBe(false);
      expect(checked.problems).toContainEqual({
        path: 'nodes[7]',
        node: 'leader',
        message: 'required input "question" (text) is not connected',
      });
      const compiled = await page.call<{ ok: boolean; machines: { compilerVersion: number } }>(
        'document.compile',
        { document: vqaDocument() },
      );
      expect(compiled.ok).toBe(true);
      expect(compiled.machines.compilerVersion).toBeTypeOf('number');
      // A run of a broken document is refused with the same problems.
      const refused = await page
        .call('run.start', { document: broken, mode: 'simulated' })
        .catch((error: Error) => error);
      expect((refused as Error).message).toBe('the document has problems');
      expect((refused as Error).cause).toEqual(checked.problems);
    } finally {
      page.close();
    }
  });

  it('answers another page while a run renders a slow template, and stops it at once', async () => {
    // Nine million loop passes: seconds of rendering within the limits this document sets.
    const slow = {
      version: 1,
      name: 'slow template',
      settings: { limits: { templateMs: 10_000, templateIterations: 5_000_000 } },
      nodes: [
        {
          id: 't',
          type: 'transform',
          position: { x: 0, y: 0 },
          data: {
            template: '{% for a in (1..3000) %}{% for b in (1..3000) %}{% endfor %}{% endfor %}',
          },
        },
        { id: 'o', type: 'output', position: { x: 200, y: 0 }, data: { name: 'o' } },
      ],
      edges: [{ id: 'e', source: 't', sourceHandle: 'value', target: 'o', targetHandle: 'value' }],
    };
    const runner = await Page.open();
    const other = await Page.open();
    try {
      const { runId } = await runner.call<{ runId: string }>('run.start', {
        document: slow,
        mode: 'simulated',
      });
      await runner.event(runId, (e) => e.type === 'node.started' && e.node === 't');
      const checked = await other.call<{ ok: boolean }>('document.validate', {
        document: vqaDocument(),
      });
      expect(checked.ok).toBe(true);
      // The other page was answered while the template was still rendering.
      expect(runner.eventsOf(runId).some((e) => e.type === 'run.finished')).toBe(false);
      await runner.call('run.control', { runId, action: 'cancel' });
      const finished = await runner.event(runId, (e) => e.type === 'run.finished');
      expect(finished.status).toBe('cancelled');
    } finally {
      runner.close();
      other.close();
    }
  });

  it('writes and reads workspace files by name, and refuses paths', async () => {
    const page = await Page.open();
    try {
      expect(await page.call('files.list')).toEqual([]);
      await page.call('files.write', { name: 'mine.society.json', text: VQA_TEXT });
      expect(await page.call('files.read', { name: 'mine.society.json' })).toEqual({
        text: VQA_TEXT,
      });
      const listed = await page.call<Array<{ name: string; modifiedAt: number }>>('files.list');
      expect(listed.map((f) => f.name)).toEqual(['mine.society.json']);
      expect(listed[0]!.modifiedAt).toBeGreaterThan(0);
      for (const name of [
        '../x.society.json',
        '..\\x.society.json',
        'sub/x.society.json',
        '/tmp/x.society.json',
        'C:\\x.society.json',
        'x.json',
        '.society.json',
        '..society.json',
      ]) {
        await expect(page.call('files.write', { name, text: '{}' }), name).rejects.toThrow(
          /not a (plain file name|document name)|may not start with a dot/,
        );
        await expect(page.call('files.read', { name }), name).rejects.toThrow();
      }
      await expect(page.call('files.read', { name: 'missing.society.json' })).rejects.toThrow(
        'there is no document "missing.society.json" in the workspace',
      );
    } finally {
      page.close();
    }
  });
});
