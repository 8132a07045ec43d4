/**
 * MCP server profiles in the studio's Settings (spread into app/api/contract.ts): the same
 * profiles `society mcp` keeps. The page lists them and adds HTTP ones (a URL and the variables
 * its headers are read from); a server that runs a program is added only from a terminal.
 */
import { z } from 'zod';

/** A header or variable a server is given, read from an environment variable at connect time. */
const FromVariable = z.object({ name: z.string(), env: z.string() });

/** A profile as the page shows it: never a value, only where each one is read. */
const McpProfileView = z.object({
  name: z.string(),
  transport: z.enum(['stdio', 'http']),
  /** The URL, or the command line of a stdio server. */
  where: z.string(),
  /** Its headers (http) or environment (stdio), with whether each variable is set. */
  reads: z.array(FromVariable.extend({ set: z.boolean() })),
  /** The user's policy for all its tools, and per tool (allow, ask, deny). */
  policy: z.enum(['allow', 'ask', 'deny']).optional(),
  tools: z.record(z.string(), z.enum(['allow', 'ask', 'deny'])).optional(),
});

const McpProfiles = z.object({ profiles: z.array(McpProfileView) });

export const mcpContract = {
  'settings.mcp.list': { params: z.object({}), result: McpProfiles },
  /** As `society mcp --add NAME=URL --header NAME=ENV_VAR…`: a Streamable HTTP server only. */
  'settings.mcp.save': {
    params: z.object({
      name: z.string().min(1).max(40),
      url: z.string().min(1).max(2000),
      headers: z.array(FromVariable).max(20).default([]),
      /** Sent by a page that tries to add a program to start: always refused, with why. */
      command: z.string().max(2000).optional(),
    }),
    result: McpProfiles,
  },
  /**
   * As `society mcp --policy NAME[/TOOL]=POLICY`: whether a server's tools (or one of them) run
   * when a model calls them; `default` forgets the setting.
   */
  'settings.mcp.policy': {
    params: z.object({
      name: z.string().min(1).max(40),
      tool: z.string().min(1).max(64).optional(),
      policy: z.enum(['allow', 'ask', 'deny', 'default']),
    }),
    result: McpProfiles,
  },
  /** As `society mcp --remove NAME`. */
  'settings.mcp.remove': { params: z.object({ name: z.string().min(1) }), result: McpProfiles },
} as const;
