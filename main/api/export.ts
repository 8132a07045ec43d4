/**
 * Export: the document as a file to share, with a manifest of what it needs to run — the
 * provider profiles its models use and the key each of those needs, the models, the node types,
 * the inputs, and the worst-case cost — so whoever opens it knows what to set up. An export
 * never carries a key: a document holding one (a key pasted into a prompt, a known key's value
 * anywhere) is refused, naming where it is, so nothing is silently changed or leaked.
 */
import { readFileSync } from 'node:fs';
import { compileGraph } from '../../app/compiler/index.ts';
import { estimateRun } from '../../app/costs/estimate.ts';
import type { PriceTable } from '../../app/costs/prices.ts';
import type { NodeSpec } from '../../app/node-sdk/define.ts';
import { readNodeData } from '../../app/node-sdk/lenient-data.ts';
import { documentProviders } from '../../app/node-sdk/providers.ts';
import type { NodeRegistry } from '../../app/node-sdk/registry.ts';
import { builtinProfiles } from '../../app/providers/profiles.ts';
import type { ProviderProfile } from '../../app/providers/types.ts';
import { parseDocument, serializeDocument } from '../../app/schema/parse.ts';
import { keyShapedPath } from '../../app/store/index.ts';
import { ApiError } from './errors.ts';

/** This app and its version, as package.json has it. */
const APP = (() => {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    return `Society Studio ${String(pkg.version ?? '')}`.trim();
  } catch {
    return 'Society Studio';
  }
})();

/** What an exported document says it needs (its top-level `manifest`). */
export interface ExportManifest {
  exportedBy: string;
  exportedAt: string;
  /**
   * Provider profiles its models and nodes use (an expert model's Hugging Face profile too), and
   * the environment variable each one's key is read from.
   */
  providers: Array<{ name: string; builtin: boolean; keyVariable?: string }>;
  models: Array<{ profile: string; provider: string; model: string; vision: boolean }>;
  nodeTypes: string[];
  inputs: Array<{ name: string; modality: string; required: boolean }>;
  /** Worst case at the exporter's price table; absent when the graph does not compile. */
  estimate?: { calls: number; tokens: number; costUsd: number };
  /** Problems the compiler found; a work in progress may be shared too. */
  problems: number;
}

export interface ExportOptions {
  registry: NodeRegistry;
  prices: PriceTable;
  /** Provider profiles the user added (society providers --add). */
  customProviders: ProviderProfile[];
  /** Key values the backend knows (environment and vault). */
  secrets: string[];
  /** Image tokens for the estimate, as the gallery counts them. */
  imageTokens: number;
  /** Who made the file; default: this app and its version. */
  app?: string;
  now?: Date;
}

/** Builds the exported file's text and its manifest, or refuses a document that holds a key. */
export async function exportDocument(
  document: unknown,
  options: ExportOptions,
): Promise<{ text: string; manifest: ExportManifest }> {
  const parsed = parseDocument(document);
  if (!parsed.ok) {
    throw new ApiError('the document is not valid, so it cannot be exported', parsed.problems);
  }
  const { manifest: _previous, ...doc } = parsed.doc as typeof parsed.doc & {
    manifest?: unknown;
  };
  const holding = keyShapedPath(doc, options.secrets);
  if (holding) {
    throw new ApiError(
      `not exported: ${holding} holds what looks like a key. Keys belong in Settings, never in a document; remove it and export again.`,
    );
  }

  const compiled = await compileGraph(doc, options.registry);
  const builtins = builtinProfiles({});
  const custom = new Map(options.customProviders.map((p) => [p.name, p]));
  const models = Object.entries(doc.models ?? {}).map(([profile, m]) => ({
    profile,
    provider: m.provider,
    model: m.model,
    vision: m.vision === true,
  }));
  const providers = documentProviders(doc, options.registry).map((name) => {
    const profile = builtins[name] ?? custom.get(name);
    return {
      name,
      builtin: name in builtins,
      ...(profile?.apiKeyEnv ? { keyVariable: profile.apiKeyEnv } : {}),
    };
  });
  const manifest: ExportManifest = {
    exportedBy: options.app ?? APP,
    exportedAt: (options.now ?? new Date()).toISOString(),
    providers,
    models,
    // The library's graphs run wherever a node stands for one: their types are needed too.
    nodeTypes: [
      ...new Set(
        [...doc.nodes, ...Object.values(doc.graphs ?? {}).flatMap((g) => g.nodes)].map(
          (n) => n.type,
        ),
      ),
    ].sort(),
    inputs: doc.nodes.flatMap((n) => {
      const input = runInputOf(options.registry.get(n.type), n.data);
      if (!input) return [];
      return [
        {
          name: String(input.name ?? n.id),
          modality: typeof input.modality === 'string' ? input.modality : 'text',
          required: input.default === undefined,
        },
      ];
    }),
    problems: compiled.ok ? 0 : compiled.problems.length,
  };
  if (compiled.ok) {
    const estimate = estimateRun(compiled.plan, options.prices, {
      imageTokens: options.imageTokens,
    });
    manifest.estimate = {
      calls: estimate.calls,
      tokens: estimate.promptTokens + estimate.completionTokens,
      costUsd: estimate.costUsd,
    };
  }
  const text = serializeDocument({ ...doc, manifest } as typeof doc);
  // The manifest is built from the document and our own tables; check the whole text again.
  if (keyShapedPath(JSON.parse(text), options.secrets)) {
    throw new ApiError('not exported: the file would hold a key');
  }
  return { text, manifest };
}

/**
 * The run input a node declares (its spec's `runInput`), read from data that may not be valid
 * (a work in progress may be shared too); undefined for other nodes.
 */
function runInputOf(spec: NodeSpec<unknown> | undefined, data: unknown) {
  if (!spec?.runInput) return undefined;
  const record = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
  try {
    return spec.runInput(readNodeData(spec, record));
  } catch {
    return undefined;
  }
}
