/**
 * The templates shipped with the app: `templates.list` (each with its estimate and whether it
 * ships a cassette to replay) and `templates.open`, and what a template replay needs from the
 * folder (`base`). A template's example inputs are in the template itself, not beside it.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ApiResult } from '../../app/api/contract.ts';
import { compileGraph } from '../../app/compiler/index.ts';
import { estimateRun } from '../../app/costs/estimate.ts';
import { documentProviders } from '../../app/node-sdk/providers.ts';
import { type ApiContext, type ApiMethods, IMAGE_TOKENS } from './context.ts';
import { ApiError } from './errors.ts';

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

/** `templates.list` and `templates.open`. */
export function templateMethods(
  ctx: ApiContext,
  shelf: TemplateShelf,
): ApiMethods<'templates.list' | 'templates.open'> {
  const { templatesDir } = ctx;
  return {
    async 'templates.list'() {
      const registry = await ctx.nodeRegistry();
      const table = ctx.prices();
      const list: ApiResult<'templates.list'> = [];
      for (const file of await shelf.files()) {
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
        const estimate = estimateRun(compiled.plan, table, { imageTokens: IMAGE_TOKENS });
        const providers = documentProviders(compiled.doc, registry);
        list.push({
          file,
          name: compiled.doc.name,
          description: compiled.doc.description ?? '',
          providers,
          estimate: {
            calls: estimate.calls,
            tokens: estimate.promptTokens + estimate.completionTokens,
            costUsd: estimate.costUsd,
          },
          hasCassette: existsSync(path.join(templatesDir, `${base}.cassette.json`)),
        });
      }
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
