/**
 * MCP server profiles: how to reach a server whose tools a document's agents may use, kept in
 * the user's settings like model providers. A document names a profile, never a command line or
 * a URL, so loading one starts nothing. A profile names the environment variables a server's
 * environment or headers take their values from, never the values: those are read when a run
 * connects, and the run's redactor learns them.
 */
import { z } from 'zod';

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
    })
    .strict(),
  z
    .object({
      name: Name,
      transport: z.literal('http'),
      url: HttpUrl,
      headers: z.array(FromVariable).default([]),
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
  return `${profile.name.padEnd(12)} ${where}${reads.length ? `  ${label}: ${reads.join(', ')}` : ''}`;
}
