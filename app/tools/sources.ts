/**
 * A run's MCP tool sources: the user's server profiles, with `--mcp NAME=URL` adding or
 * overriding HTTP ones for one run, opened only when the run asks (never when a document is
 * loaded, validated or estimated), and what a document names checked before anything is sent.
 */
import type { ToolSourceRef, ToolSources } from '../providers/tools.ts';
import { connectMcp, type LearnsSecrets } from './mcp-source.ts';
import { type McpProfile, parseMcpProfile, profilePolicy } from './profiles.ts';

/** A plan's nodes as far as the tool sources they name go (app/compiler's GraphPlan fits). */
export interface NamesToolSources {
  nodes: Map<
    string,
    { id: string; spec: { toolSources?(data: never): ToolSourceRef[] }; data: unknown }
  >;
}

export interface McpSourcesOptions {
  /** The user's profiles, then `--mcp` overrides (later ones win by name). */
  profiles: readonly McpProfile[];
  env?: NodeJS.ProcessEnv;
  /** Learns every value read for a server's environment or headers. */
  redactor?: LearnsSecrets;
}

/** Opens `mcp:NAME` sources from the given profiles; an unknown name fails the open. */
export function mcpToolSources(options: McpSourcesOptions): ToolSources {
  const byName = new Map(options.profiles.map((p) => [p.name, p]));
  return {
    async open(ref, { signal }) {
      const profile = byName.get(ref.profile);
      if (!profile) throw new Error(missingProfileLine(ref.profile));
      return connectMcp(profile, {
        signal,
        ...(options.env ? { env: options.env } : {}),
        ...(options.redactor ? { redactor: options.redactor } : {}),
      });
    },
    policy(ref, tool) {
      const profile = ref.kind === 'mcp' ? byName.get(ref.profile) : undefined;
      return profile && profilePolicy(profile, tool);
    },
  };
}

/** `--mcp NAME=URL` flags (HTTP only) as profiles for one run; throws one line for a bad one. */
export function mcpOverrides(flags: readonly string[]): McpProfile[] {
  return flags.map((flag) => {
    const eq = flag.indexOf('=');
    if (eq <= 0) throw new Error(`--mcp expects NAME=URL, got "${flag}"`);
    try {
      return parseMcpProfile({
        name: flag.slice(0, eq),
        transport: 'http',
        url: flag.slice(eq + 1),
      });
    } catch (error) {
      throw new Error(`--mcp ${flag}: ${(error as Error).message}`);
    }
  });
}

/**
 * Stored profiles with a run's overrides laid over them by name. An override keeps the stored
 * profile's tool policies: pointing a server elsewhere for one run does not loosen them.
 */
export function withOverrides(
  stored: readonly McpProfile[],
  overrides: readonly McpProfile[],
): McpProfile[] {
  const byName = new Map(stored.map((p) => [p.name, p]));
  const kept = overrides.map((o) => {
    const s = byName.get(o.name);
    return {
      ...o,
      ...(s?.policy ? { policy: s.policy } : {}),
      ...(s?.tools ? { tools: s.tools } : {}),
    };
  });
  return [...stored.filter((p) => !overrides.some((o) => o.name === p.name)), ...kept];
}

/** Every MCP profile a plan's nodes name, with the nodes naming each, in document order. */
export function namedMcpProfiles(plan: NamesToolSources): Map<string, string[]> {
  const named = new Map<string, string[]>();
  for (const node of plan.nodes.values()) {
    const refs = node.spec.toolSources?.(node.data as never) ?? [];
    for (const ref of refs) {
      if (ref.kind !== 'mcp') continue;
      const nodes = named.get(ref.profile) ?? [];
      if (!nodes.includes(node.id)) nodes.push(node.id);
      named.set(ref.profile, nodes);
    }
  }
  return named;
}

/**
 * The lines refusing a run whose document names MCP profiles the user lacks, or whose profiles
 * read variables that are not set; none when every one can be opened. Nothing is started.
 */
export function mcpRefusalLines(
  plan: NamesToolSources,
  profiles: readonly McpProfile[],
  env: NodeJS.ProcessEnv = process.env,
  oneRunFlag = true,
): string[] {
  const byName = new Map(profiles.map((p) => [p.name, p]));
  const lines: string[] = [];
  for (const [name, nodes] of namedMcpProfiles(plan)) {
    const profile = byName.get(name);
    const by = `(for ${nodes.slice(0, 3).join(', ')}${nodes.length > 3 ? ', …' : ''})`;
    if (!profile) {
      lines.push(`society: ${missingProfileLine(name, oneRunFlag)} ${by}`);
      continue;
    }
    const pairs = profile.transport === 'stdio' ? profile.env : profile.headers;
    for (const { env: variable } of pairs) {
      if (!env[variable]) {
        lines.push(`society: ${variable} is not set: the MCP server "${name}" reads it ${by}`);
      }
    }
  }
  return lines;
}

/**
 * What to say of a profile the user lacks: its name and the command that adds it, and the
 * `--mcp` flag unless the command asking takes none (`oneRunFlag` false).
 */
export function missingProfileLine(name: string, oneRunFlag = true): string {
  const add = `no MCP server "${name}": add it with society mcp --add ${name}=URL`;
  return oneRunFlag ? `${add} (or --mcp ${name}=URL for one run)` : add;
}
