/**
 * `society eval-export ID DIR`: an eval as a folder anyone can read, publish and open again
 * elsewhere. It holds the documents each variant ran (as run), every item's inputs, prediction,
 * reference and score (JSONL), the model names the providers answered with, the report page,
 * the table as text, CSV, Markdown and LaTeX, the charts as SVG and PNG, each finished run as a
 * run export (the debugger opens it), and a manifest with the sha256 of every file.
 *
 * The dataset file itself is not copied (it may be large, or not ours to publish): its name and
 * hash are recorded, and each item's inputs are in items.jsonl. Every text written passes
 * through the caller's redactor, so no key leaves in a bundle.
 */
import { basename } from 'node:path';
import { exportRun } from '../../runs/export.ts';
import type { RunRecord, RunStore } from '../../store/index.ts';
import { evalReport } from '../report.ts';
import type { EvalItemRecord, EvalRating, EvalRecord, EvalSummary } from '../types.ts';
import { BUNDLE_FORMAT, BUNDLE_VERSION, type BundleManifest, sha256Of } from './manifest.ts';
import { chartSvgs, svgToPng } from './plots.ts';
import { tableCaption, tableRows, toCsv, toLatex, toMarkdown } from './tables.ts';

/** What a bundle is made from: the eval as its store holds it, and its table as printed. */
export interface BundleSource {
  store: RunStore;
  record: EvalRecord;
  items: readonly EvalItemRecord[];
  ratings: readonly EvalRating[];
  summary: EvalSummary;
  /** The table exactly as `society eval-show` prints it (the paper's layout first, if any). */
  tableText: string;
  /** The paper's layout alone, when the eval names one. */
  paperText?: string;
  /** Every text written passes through this (the process's one redactor). */
  redact: (text: string) => string;
}

/** Per variant: each model asked for, the profiles naming it, and what the providers answered with. */
export interface ModelUse {
  variant: string;
  requested: string;
  profiles: string[];
  /** The `model` field of the answers, with how many answers gave each. */
  answered: Record<string, number>;
  calls: number;
  kind: 'chat' | 'expert';
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
const finished = (run: RunRecord) => run.status !== 'running' && run.status !== 'interrupted';

/** The profiles of a document (its `models`) that name `model`. */
function profilesNaming(documentText: string, model: string): string[] {
  try {
    const models = (JSON.parse(documentText) as { models?: Record<string, { model?: string }> })
      .models;
    return Object.entries(models ?? {})
      .filter(([, m]) => m?.model === model)
      .map(([name]) => name)
      .sort();
  } catch {
    return [];
  }
}

function modelUses(
  store: RunStore,
  runs: ReadonlyMap<string, RunRecord>,
  items: readonly EvalItemRecord[],
): ModelUse[] {
  const uses = new Map<string, ModelUse>();
  for (const item of items) {
    const run = item.runId ? runs.get(item.runId) : undefined;
    if (!run) continue;
    const calls = store.callRecord(run.id);
    const note = (kind: ModelUse['kind'], requested: string, answered: readonly string[]) => {
      const key = `${item.variant}\u0000${kind}\u0000${requested}`;
      const use = uses.get(key) ?? {
        variant: item.variant,
        requested,
        profiles: profilesNaming(run.documentText, requested),
        answered: {},
        calls: 0,
        kind,
      };
      use.calls++;
      for (const model of answered) use.answered[model] = (use.answered[model] ?? 0) + 1;
      uses.set(key, use);
    };
    for (const entry of calls.entries)
      note(
        'chat',
        entry.request.model,
        entry.responses.map((r) => r.model),
      );
    for (const entry of calls.experts ?? []) note('expert', entry.request.model, []);
  }
  return [...uses.values()].sort(
    (a, b) => a.variant.localeCompare(b.variant) || a.requested.localeCompare(b.requested),
  );
}

/** Every file of the bundle by its path in the folder, the manifest last. */
export async function buildBundle(source: BundleSource): Promise<Map<string, Buffer>> {
  const { store, record, items, summary, redact } = source;
  const files = new Map<string, Buffer>();
  const text = (path: string, content: string) => files.set(path, Buffer.from(redact(content)));

  const runs = new Map<string, RunRecord>();
  for (const item of items) {
    const run = item.runId ? store.getRun(item.runId) : undefined;
    if (run) runs.set(run.id, run);
  }

  // The documents as each variant ran them, once per distinct text.
  const documents: Record<string, string[]> = {};
  for (const item of items) {
    const run = item.runId ? runs.get(item.runId) : undefined;
    if (!run) continue;
    const path = `documents/${sha256Of(run.documentText).slice(0, 16)}.society.json`;
    if (!files.has(path)) text(path, `${run.documentText}\n`);
    const list = documents[item.variant] ?? [];
    if (!list.includes(path)) list.push(path);
    documents[item.variant] = list;
  }

  text('eval.json', json({ ...record, ratings: source.ratings }));
  text(
    'items.jsonl',
    items
      .map((item) => {
        const run = item.runId ? runs.get(item.runId) : undefined;
        return JSON.stringify({
          ...item,
          ...(run ? { inputs: run.inputs, outputs: run.outputs } : {}),
        });
      })
      .join('\n') + (items.length ? '\n' : ''),
  );
  text('models.json', json(modelUses(store, runs, items)));
  text('report.html', evalReport(summary, items));

  const rows = tableRows(summary);
  const caption = tableCaption(summary);
  text('tables/table.txt', `${source.tableText}\n`);
  if (source.paperText !== undefined) text('tables/paper-layout.txt', `${source.paperText}\n`);
  text('tables/table.csv', toCsv(rows));
  text('tables/table.md', toMarkdown(rows, caption));
  text('tables/table.tex', toLatex(rows, caption));

  for (const [stem, svg] of Object.entries(chartSvgs(summary.variants))) {
    const clean = redact(svg);
    files.set(`plots/${stem}.svg`, Buffer.from(clean));
    files.set(`plots/${stem}.png`, await svgToPng(clean));
  }

  const runFiles: string[] = [];
  for (const run of runs.values()) {
    if (!finished(run)) continue;
    const path = `runs/${run.id}.run.json`;
    text(path, `${JSON.stringify(exportRun(store, run))}\n`);
    runFiles.push(path);
  }

  const manifest: BundleManifest = {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    eval: { id: record.id, name: record.name },
    data: { file: basename(record.config.data), hash: record.config.dataHash, included: false },
    documents,
    runs: runFiles,
    files: Object.fromEntries([...files].map(([path, bytes]) => [path, sha256Of(bytes)])),
  };
  text('manifest.json', json(manifest));
  return files;
}
