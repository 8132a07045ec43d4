/**
 * MCP server profiles: how to reach a server whose tools a document's agents may use, kept in
 * the user's settings like model providers. A document names a profile, never a command line or
 * a URL, so loading one starts nothing. A profile names the environment variables a server's
 * environment or headers take their values from, never the values: those are read when a run
 * connects, and the run's redactor learns them.
 */
import { z } from 'zod';
import type { ToolPolicy } from '../providers/tools.ts';
import { isPrototypeName } from '../schema/names.ts';

/** The setting that holds every profile (a list, so a profile's name is never a JSON key). */
export const MCP_SETTING = 'mcp.servers';

const Name = z
  .string()
  .regex(
    /^[A-Za-z][A-Za-z0-9_-]{0,39}$/,
    'a profile name is a letter then letters, digits, - or _',
  );
const Variable = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'name an environment variable (letters, digits, _)');
/** One value a server is given, read from a variable when the run connects. */
const FromVariable = z.object({ name: z.string().min(1).max(200), env: Variable }).strict();

const Policy = z.enum(['allow', 'ask', 'deny']);
/** The user's policies for a server's tools: one for all, and per tool by name. */
const policies = {
  policy: Policy.optional(),
  tools: z
    .record(
      z
        .string()
        .min(1)
        .max(64)
        .refine((n) => !isPrototypeName(n), 'not a tool name'),
      Policy,
    )
    .optional(),
};

const HttpUrl = z
  .string()
  .url()
  .refine((u) => /^https?:$/.test(new URL(u).protocol), 'an MCP server URL is http:// or https://');

export const McpProfileSchema = z.discriminatedUnion('transport', [
  z
    .object({
      name: Name,
      transport: z.literal('stdio'),
      command: z.string().min(1),
      args: z.array(z.string()).default([]),
      env: z.array(FromVariable).default([]),
      ...policies,
    })
    .strict(),
  z
    .object({
      name: Name,
      transport: z.literal('http'),
      url: HttpUrl,
      headers: z.array(FromVariable).default([]),
      ...policies,
    })
    .strict(),
]);

/** How to reach one MCP server: a program to start (stdio) or a URL (Streamable HTTP). */
export type McpProfile = z.infer<typeof McpProfileSchema>;

/** Where profiles are kept: the run store's settings (any store with these two methods). */
export interface SettingsStore {
  getSetting(key: string): unknown;
  setSetting(key: string, value: unknown): void;
}

/** Parses a profile, or throws one line saying what is wrong with it. */
export function parseMcpProfile(input: unknown): McpProfile {
  const parsed = McpProfileSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new Error(`${issue.path.join('.') || 'profile'}: ${issue.message}`);
}

/** The user's profiles, by name; one that no longer parses is skipped, not fatal. */
export function listMcpProfiles(store: SettingsStore): McpProfile[] {
  const stored = store.getSetting(MCP_SETTING);
  if (!Array.isArray(stored)) return [];
  return stored
    .flatMap((p) => {
      const parsed = McpProfileSchema.safeParse(p);
      return parsed.success ? [parsed.data] : [];
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Adds or replaces a profile (validated first). */
export function saveMcpProfile(store: SettingsStore, input: unknown): McpProfile {
  const profile = parseMcpProfile(input);
  const others = listMcpProfiles(store).filter((p) => p.name !== profile.name);
  store.setSetting(MCP_SETTING, [...others, profile]);
  return profile;
}

/** Forgets a profile; false when there was none of that name. */
export function removeMcpProfile(store: SettingsStore, name: string): boolean {
  const profiles = listMcpProfiles(store);
  const kept = profiles.filter((p) => p.name !== name);
  if (kept.length === profiles.length) return false;
  store.setSetting(MCP_SETTING, kept);
  return true;
}

/** The user's policy for one of a profile's tools: its own entry, else the profile's. */
export function profilePolicy(profile: McpProfile, tool: string): ToolPolicy | undefined {
  return profile.tools?.[tool] ?? profile.policy;
}

/**
 * Sets the policy of a stored profile (`tool` undefined) or of one of its tools; `undefined`
 * as the policy removes the setting. Returns the profile as saved; throws for an unknown name.
 */
export function setMcpPolicy(
  store: SettingsStore,
  name: string,
  tool: string | undefined,
  policy: ToolPolicy | undefined,
): McpProfile {
  if (tool !== undefined && (!/^[A-Za-z0-9_.-]{1,64}$/.test(tool) || isPrototypeName(tool)))
    throw new Error(`"${tool}" is not a tool's name`);
  const profile = listMcpProfiles(store).find((p) => p.name === name);
  if (!profile)
    throw new Error(`no MCP server "${name}": add it with society mcp --add ${name}=URL`);
  const next: McpProfile = { ...profile };
  if (tool === undefined) {
    if (policy) next.policy = policy;
    else delete next.policy;
  } else {
    const tools = { ...(profile.tools ?? {}) };
    if (policy) tools[tool] = policy;
    else delete tools[tool];
    if (Object.keys(tools).length) next.tools = tools;
    else delete next.tools;
  }
  return saveMcpProfile(store, next);
}

/** A profile's policies as one phrase (`ask; echo: deny`), empty when it sets none. */
export function describePolicies(profile: McpProfile): string {
  return [
    ...(profile.policy ? [`policy ${profile.policy}`] : []),
    ...Object.entries(profile.tools ?? {}).map(([tool, p]) => `${tool} ${p}`),
  ].join(', ');
}

/** The variables a profile reads (its environment's or headers'), in order. */
export function variablesOf(profile: McpProfile): string[] {
  return (profile.transport === 'stdio' ? profile.env : profile.headers).map((v) => v.env);
}

/** A profile as one line: where it is and what it reads, never a value. */
export function describeMcpProfile(
  profile: McpProfile,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const where =
    profile.transport === 'stdio'
      ? `stdio  ${[profile.command, ...profile.args].join(' ')}`
      : `http   ${profile.url}`;
  const reads = (profile.transport === 'stdio' ? profile.env : profile.headers).map(
    (v) => `${v.name} from ${v.env}${env[v.env] === undefined ? ' (not set)' : ' (set)'}`,
  );
  const label = profile.transport === 'stdio' ? 'env' : 'headers';
  const policies = describePolicies(profile);
  return `${profile.name.padEnd(12)} ${where}${reads.length ? `  ${label}: ${reads.join(', ')}` : ''}${policies ? `  tools: ${policies}` : ''}`;
}
