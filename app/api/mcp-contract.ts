/**
 * MCP server profiles in the studio's Settings (spread into app/api/contract.ts): the same
 * profiles `society mcp` keeps. The page lists them, adds HTTP ones (a URL and the variables
 * its headers are read from), lists a server's tools and sets their policies. A server that runs
 * a program is added from a terminal, or in the desktop app after the person confirms the exact
 * command line in a native dialog; never from the studio's page.
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

const McpProfiles = z.object({
  profiles: z.array(McpProfileView),
  /**
   * Whether this host adds a server that runs a program (`settings.mcp.saveProgram`): true in
   * the desktop app, which asks the person first; false in the studio, whose page could be anyone's.
   */
  programs: z.boolean(),
});

const Policy = z.enum(['allow', 'ask', 'deny']);

/** One of a server's tools as `society mcp tools NAME` lists it, with the policy it runs under. */
const McpToolView = z.object({
  name: z.string(),
  /** The first line of its description. */
  description: z.string(),
  /** It says it is destructive (MCP's `destructiveHint`): without a setting, it asks. */
  destructive: z.boolean(),
  /** The policy it runs under: its own setting, else the server's, else its default. */
  policy: Policy,
  /** Its own setting, when it has one. */
  setting: Policy.optional(),
});

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
   * As `society mcp --add NAME --command "CMD ARGS" --env NAME=ENV_VAR…`: a server that runs a
   * program. Only where the host can ask the person (the desktop app's native dialog, showing the
   * exact command line); refused elsewhere with the terminal command. Declined: nothing is saved.
   */
  'settings.mcp.saveProgram': {
    params: z.strictObject({
      name: z.string().min(1).max(40),
      command: z.string().min(1).max(2000),
      args: z.array(z.string().max(2000)).max(100).default([]),
      /** Its environment variables, each read from one of yours when a run starts it. */
      env: z.array(FromVariable).max(20).default([]),
    }),
    result: McpProfiles,
  },
  /** As `society mcp tools NAME`: connects (or starts the program) and lists the server's tools. */
  'settings.mcp.tools': {
    params: z.object({ name: z.string().min(1).max(40) }),
    result: z.object({ name: z.string(), tools: z.array(McpToolView) }),
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
