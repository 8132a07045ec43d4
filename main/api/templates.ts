/**
 * The templates shipped with the app: `templates.list` (each with its likely estimate, the keys
 * it needs, its gallery metadata, its outline to draw, and whether it ships a cassette to replay) and `templates.open`, and what a template replay needs from the
 * folder (`base`). A template's example inputs are in the template itself, not beside it.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ApiResult } from '../../app/api/contract.ts';
import { compileGraph } from '../../app/compiler/index.ts';
import { estimateRun, LIKELY_ANSWER_SHARE } from '../../app/costs/estimate.ts';
import type { PriceTable } from '../../app/costs/prices.ts';
import { documentProviders } from '../../app/node-sdk/providers.ts';
import { builtinProfiles } from '../../app/providers/profiles.ts';
import { type ApiContext, type ApiMethods, IMAGE_TOKENS } from './context.ts';
import { ApiError } from './errors.ts';
import { GALLERY_FILE, readGallery } from './gallery.ts';

/** The templates shipped with the app. */
export const DEFAULT_TEMPLATES_DIR = fileURLToPath(new URL('../../templates/', import.meta.url));

const TEMPLATE_EXTENSION = '.society.json';

/** The templates folder as the run methods use it. */
export interface TemplateShelf {
  /** The template files, by file name. */
  files(): Promise<string[]>;
  /**
   * A template's base name (`nlsom-vqa`) from its file name or base name, if it is one of the
   * templates; never a path.
   */
  base(name: string): Promise<string>;
}

/** The shelf over `templatesDir`. */
export function templateShelf(templatesDir: string): TemplateShelf {
  const files = async (): Promise<string[]> => {
    try {
      return (await readdir(templatesDir))
        .filter((f) => f.endsWith(TEMPLATE_EXTENSION))
        .sort((a, b) => a.localeCompare(b));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  };

  const base = async (name: string): Promise<string> => {
    const file = name.endsWith(TEMPLATE_EXTENSION) ? name : `${name}${TEMPLATE_EXTENSION}`;
    const all = await files();
    if (!all.includes(file)) {
      throw new ApiError(
        `there is no template "${name}"${all.length ? ` (templates: ${all.join(', ')})` : ''}`,
      );
    }
    return file.slice(0, -TEMPLATE_EXTENSION.length);
  };

  return { files, base };
}

/** The gallery's entries for `files`, each compiled and estimated (broken ones left out). */
async function listTemplates(
  ctx: ApiContext,
  files: readonly string[],
  table: PriceTable,
): Promise<ApiResult<'templates.list'>> {
  const { templatesDir } = ctx;
  const registry = await ctx.nodeRegistry();
  const gallery = await readGallery(templatesDir);
  const overrides = ctx.storedOverrides();
  const builtins = builtinProfiles({});
  const list: ApiResult<'templates.list'> = [];
  for (const file of files) {
    const base = file.slice(0, -TEMPLATE_EXTENSION.length);
    const text = await readFile(path.join(templatesDir, file), 'utf8');
    const compiled = await compileGraph(text, registry);
    if (!compiled.ok) {
      // A broken template is the app's bug; the others are still offered.
      ctx.log(
        `society studio: template ${file} does not compile: ${compiled.problems[0]?.message}`,
      );
      continue;
    }
    // The likely run, as `society run --estimate` puts it first.
    const likely = estimateRun(compiled.plan, table, {
      imageTokens: IMAGE_TOKENS,
      answerShare: LIKELY_ANSWER_SHARE,
      weighBranches: true,
    }).firstAttempts;
    const providers = documentProviders(compiled.doc, registry);
    const keys = providers.flatMap((name) => {
      const variable = overrides[name]?.apiKeyEnv ?? builtins[name]?.apiKeyEnv;
      return variable ? [variable] : [];
    });
    const meta = gallery.templates[base];
    const featured = gallery.featured.indexOf(base);
    list.push({
      file,
      name: compiled.doc.name,
      description: compiled.doc.description ?? '',
      summary: meta?.summary ?? '',
      paper: meta?.paper ?? 'other',
      kind: meta?.kind ?? null,
      featured: featured >= 0 ? featured : null,
      providers,
      keys: [...new Set(keys)].sort(),
      estimate: {
        calls: likely.calls,
        tokens: likely.promptTokens + likely.completionTokens,
        costUsd: likely.costUsd,
      },
      hasCassette: existsSync(path.join(templatesDir, `${base}.cassette.json`)),
      outline: {
        nodes: compiled.doc.nodes.map((n) => ({
          id: n.id,
          type: n.type,
          position: { x: n.position.x, y: n.position.y },
          ...(n.parentId ? { parentId: n.parentId } : {}),
        })),
        edges: compiled.doc.edges.map((e) => ({ source: e.source, target: e.target })),
      },
    });
  }
  return list;
}

/** `templates.list` and `templates.open`. */
export function templateMethods(
  ctx: ApiContext,
  shelf: TemplateShelf,
): ApiMethods<'templates.list' | 'templates.open'> {
  const { templatesDir } = ctx;
  let cached: { key: string; list: Promise<ApiResult<'templates.list'>> } | null = null;
  return {
    async 'templates.list'() {
      // Compiling and estimating every template takes a while: the answer is kept until a
      // template, the gallery's file or the price table changes, so the gallery opens at once.
      const files = await shelf.files();
      const stamps = await Promise.all(
        [...files, GALLERY_FILE].map(async (f) => {
          const info = await stat(path.join(templatesDir, f)).catch(() => null);
          return `${f}:${info?.mtimeMs ?? '-'}`;
        }),
      );
      const table = ctx.prices();
      const key = `${stamps.join('|')}|${JSON.stringify(table)}|${JSON.stringify(ctx.storedOverrides())}`;
      if (cached?.key !== key) cached = { key, list: listTemplates(ctx, files, table) };
      const { list } = cached;
      // A failed listing is not kept: the next call tries again.
      list.catch(() => {
        if (cached?.list === list) cached = null;
      });
      return list;
    },

    async 'templates.open'({ file }) {
      const files = await shelf.files();
      // Only names from the list: a path, or anything else, is refused (S9).
      if (!files.includes(file)) throw new ApiError(`there is no template "${file}"`);
      return { text: await readFile(path.join(templatesDir, file), 'utf8') };
    },
  };
}
