/**
 * The editor's documents: checking and compiling one (`document.*`), exporting it, and the
 * workspace folder's files (`files.*`, by name only; see workspace.ts).
 */
import { compileGraph } from '../../app/compiler/index.ts';
import { type ApiContext, type ApiMethods, IMAGE_TOKENS } from './context.ts';
import { exportDocument } from './export.ts';
import { listDocuments, readDocument, writeDocument } from './workspace.ts';

/** `document.validate`, `document.compile`, `document.export` and `files.*`. */
export function documentMethods(
  ctx: ApiContext,
): ApiMethods<
  | 'document.validate'
  | 'document.compile'
  | 'document.export'
  | 'files.list'
  | 'files.read'
  | 'files.write'
> {
  const { workspaceDir } = ctx;
  return {
    async 'document.validate'({ document }) {
      const compiled = await compileGraph(document, await ctx.nodeRegistry());
      return { ok: compiled.ok, problems: compiled.ok ? [] : compiled.problems };
    },

    async 'document.compile'({ document }) {
      const compiled = await compileGraph(document, await ctx.nodeRegistry());
      return compiled.ok
        ? { ok: true, problems: [], machines: compiled.machines }
        : { ok: false, problems: compiled.problems };
    },

    async 'document.export'({ document }) {
      return exportDocument(document, {
        registry: await ctx.nodeRegistry(),
        prices: ctx.prices(),
        customProviders: ctx.store.listProviderProfiles(),
        secrets: ctx.secrets(),
        imageTokens: IMAGE_TOKENS,
      });
    },

    async 'files.list'() {
      return listDocuments(workspaceDir);
    },

    async 'files.read'({ name }) {
      return { text: await readDocument(workspaceDir, name) };
    },

    async 'files.write'({ name, text }) {
      await writeDocument(workspaceDir, name, text);
      return { name };
    },
  };
}
