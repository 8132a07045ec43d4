/**
 * The gallery's words and figures: every template shipped has a one-line summary of its own
 * (not its citation again), the start page's few are one per paper and one that uses a tool, and
 * the list the gallery opens on carries each template's keys, likely cost and outline, kept
 * between calls.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GALLERY_FILE, GallerySchema, SUMMARY_MAX } from './gallery.ts';
import { call, withApi } from './handlers.test-helper.ts';
import { DEFAULT_TEMPLATES_DIR } from './templates.ts';

const gallery = GallerySchema.parse(
  JSON.parse(readFileSync(path.join(DEFAULT_TEMPLATES_DIR, GALLERY_FILE), 'utf8')),
);
const bases = readdirSync(DEFAULT_TEMPLATES_DIR)
  .filter((f) => f.endsWith('.society.json'))
  .map((f) => f.slice(0, -'.society.json'.length));
const descriptionOf = (base: string): string =>
  JSON.parse(readFileSync(path.join(DEFAULT_TEMPLATES_DIR, `${base}.society.json`), 'utf8'))
    .description ?? '';

withApi({ name: 'gallery' });

describe('the gallery metadata', () => {
  it('gives every template a summary of its own, one line, never its citation', () => {
    expect(Object.keys(gallery.templates).sort()).toEqual([...bases].sort());
    const summaries = Object.values(gallery.templates).map((t) => t.summary);
    expect(new Set(summaries).size).toBe(summaries.length);
    for (const base of bases) {
      const { summary } = gallery.templates[base]!;
      expect(summary.length, base).toBeLessThanOrEqual(SUMMARY_MAX);
      expect(summary, base).not.toMatch(/\n/);
      // The citation goes below the summary: the summary never says it again.
      const firstSentence = descriptionOf(base).split(/(?<=[.:])\s/)[0] ?? '';
      expect(summary.includes(firstSentence.slice(0, 40)), base).toBe(false);
      expect(summary, base).not.toMatch(/et al\.|Mindstorms in Natural|When LLM Meets/);
    }
  });

  it('offers five on the start page: one per paper and one using a tool', () => {
    expect(gallery.featured).toHaveLength(5);
    const papers = gallery.featured.map((b) => gallery.templates[b]?.paper);
    expect(new Set(papers)).toEqual(new Set(['nlsom', 'openagi', 'mindagent', 'itcma', 'other']));
    const usesTool = gallery.featured.some((b) =>
      /"tools"\s*:/.test(
        readFileSync(path.join(DEFAULT_TEMPLATES_DIR, `${b}.society.json`), 'utf8'),
      ),
    );
    expect(usesTool).toBe(true);
  });
});

describe('templates.list', () => {
  it('says which keys each template needs and what a likely run costs, and keeps the answer', async () => {
    const first = Date.now();
    const listed = await call('templates.list', {});
    const took = Date.now() - first;
    const byFile = new Map(listed.map((t) => [t.file, t]));
    expect(byFile.get('cuisineworld-greedy.society.json')).toMatchObject({
      keys: [],
      estimate: { calls: 0, costUsd: 0 },
      kind: 'games',
      paper: 'mindagent',
    });
    const clozed = byFile.get('openagi-clozed-translation.society.json');
    expect(clozed?.keys).toEqual(['HF_TOKEN']);
    const vqa = byFile.get('nlsom-vqa.society.json');
    expect(vqa?.keys).toEqual(['OPENAI_API_KEY']);
    expect(vqa?.estimate.calls).toBeGreaterThan(0);
    expect(vqa?.featured).toBe(0);
    expect(vqa?.summary).toBe(gallery.templates['nlsom-vqa']?.summary);
    expect(vqa?.outline.nodes).toHaveLength(10);
    expect(vqa?.outline.nodes.filter((n) => !n.parentId)).toHaveLength(5);
    // Asked again, the list comes from memory: far faster than compiling every template.
    const again = Date.now();
    expect(await call('templates.list', {})).toEqual(listed);
    expect(Date.now() - again).toBeLessThan(Math.max(50, took / 4));
  });
});
