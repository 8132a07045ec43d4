/**
 * MCP servers in the studio: Settings → MCP servers (`settings.mcp.*`, the same profiles
 * `society mcp` keeps: listed, added, their tools listed and their policies set), the tool
 * sources a studio run is handed, and the refusal, before anything is recorded or sent, of a
 * run naming a server the user has no profile for. A server that runs a program is added in
 * mcp-program.ts, only where the host can ask the person.
 */
import type { GraphPlan } from '../../app/compiler/analyze.ts';
import type { ToolSources } from '../../app/providers/tools.ts';
import { connectMcp } from '../../app/tools/mcp-source.ts';
import {
  listMcpProfiles,
  type McpProfile,
  profilePolicy,
  removeMcpProfile,
  saveMcpProfile,
  setMcpPolicy,
} from '../../app/tools/profiles.ts';
import { mcpRefusalLines, mcpToolSources } from '../../app/tools/sources.ts';
import type { ApiContext, ApiMethods } from './context.ts';
import { ApiError } from './errors.ts';
import { saveMcpProgram } from './mcp-program.ts';

/** How long listing a server's tools may take, connecting (or starting it) included. */
const LIST_TOOLS_MS = 30_000;

/** What opens a studio run's MCP servers: the user's profiles, variables from the run's env. */
export function studioToolSources(ctx: Pick<ApiContext, 'store' | 'runEnv'>): ToolSources {
  return mcpToolSources({
    profiles: listMcpProfiles(ctx.store),
    env: ctx.runEnv(),
    redactor: ctx.store.redactor,
  });
}

/** Throws the refusal when a live run of `plan` names a server the user lacks. */
export function refuseMissingMcp(
  ctx: Pick<ApiContext, 'store' | 'runEnv'>,
  plan: GraphPlan,
  how: { simulate: boolean; replay?: boolean },
): void {
  if (how.simulate || how.replay) return;
  const lines = mcpRefusalLines(plan, listMcpProfiles(ctx.store), ctx.runEnv());
  if (lines.length) {
    throw new ApiError(
      `cannot run: ${lines.map((l) => l.replace(/^society: /, '')).join('; ')}. Add it in Settings → MCP servers`,
    );
  }
}

function view(profile: McpProfile, env: NodeJS.ProcessEnv) {
  const pairs = profile.transport === 'stdio' ? profile.env : profile.headers;
  return {
    name: profile.name,
    transport: profile.transport,
    where:
      profile.transport === 'stdio' ? [profile.command, ...profile.args].join(' ') : profile.url,
    reads: pairs.map((p) => ({ ...p, set: Boolean(env[p.env]) })),
    ...(profile.policy ? { policy: profile.policy } : {}),
    ...(profile.tools ? { tools: profile.tools } : {}),
  };
}

/** The `settings.mcp.*` methods. */
export function mcpMethods(
  ctx: ApiContext,
): ApiMethods<
  | 'settings.mcp.list'
  | 'settings.mcp.save'
  | 'settings.mcp.saveProgram'
  | 'settings.mcp.tools'
  | 'settings.mcp.policy'
  | 'settings.mcp.remove'
> {
  const { store } = ctx;
  const list = () => ({
    profiles: listMcpProfiles(store).map((p) => view(p, ctx.runEnv())),
    programs: ctx.confirm !== undefined,
  });
  return {
    async 'settings.mcp.list'() {
      return list();
    },
    async 'settings.mcp.save'({ name, url, headers, command }) {
      // A page could be anyone's: starting a program is a person's decision at their terminal.
      if (
        command !== undefined ||
        listMcpProfiles(store).some((p) => p.name === name && p.transport === 'stdio')
      ) {
        throw new ApiError(
          `a server that runs a program is added from a terminal, not from this page: society mcp --add ${name} --command "CMD ARGS"`,
        );
      }
      // Changing where a server is keeps what the user decided about its tools.
      const before = listMcpProfiles(store).find((p) => p.name === name);
      try {
        saveMcpProfile(store, {
          name,
          transport: 'http',
          url,
          headers,
          ...(before?.policy ? { policy: before.policy } : {}),
          ...(before?.tools ? { tools: before.tools } : {}),
        });
      } catch (error) {
        throw new ApiError(`MCP server "${name}": ${(error as Error).message}`);
      }
      ctx.secretsChanged();
      return list();
    },
    async 'settings.mcp.saveProgram'(request) {
      await saveMcpProgram(ctx, request);
      return list();
    },
    async 'settings.mcp.tools'({ name }) {
      const profile = listMcpProfiles(store).find((p) => p.name === name);
      if (!profile) throw new ApiError(`there is no MCP server "${name}"`);
      const signal = AbortSignal.timeout(LIST_TOOLS_MS);
      let source: Awaited<ReturnType<typeof connectMcp>>;
      try {
        source = await connectMcp(profile, {
          signal,
          env: ctx.runEnv(),
          redactor: store.redactor,
        });
      } catch (error) {
        throw new ApiError((error as Error).message);
      }
      try {
        const tools = await source.list(signal);
        return {
          name,
          tools: tools.map((t) => {
            const destructive = t.hints?.destructive === true;
            const setting = profile.tools?.[t.name];
            return {
              name: t.name,
              description: (t.description ?? '').split('\n')[0]!,
              destructive,
              // As a run decides it (app/runtime/tool-approval.ts): the user's, else the hint's.
              policy: profilePolicy(profile, t.name) ?? (destructive ? 'ask' : 'allow'),
              ...(setting ? { setting } : {}),
            };
          }),
        };
      } catch (error) {
        throw new ApiError(`MCP server "${name}": ${(error as Error).message}`);
      } finally {
        await source.close();
      }
    },
    async 'settings.mcp.policy'({ name, tool, policy }) {
      try {
        setMcpPolicy(store, name, tool, policy === 'default' ? undefined : policy);
      } catch (error) {
        throw new ApiError(`MCP server "${name}": ${(error as Error).message}`);
      }
      return list();
    },
    async 'settings.mcp.remove'({ name }) {
      if (!removeMcpProfile(store, name)) throw new ApiError(`there is no MCP server "${name}"`);
      return list();
    },
  };
}
