/**
 * Tool policies as the gateway applies them: which policy a tool offered to an instance has
 * (the user's setting for an MCP server's tool, the document's for the graph's own tools, else
 * `ask` for a tool that says it is destructive and `allow` for the rest), which tools a run's
 * `--approve-tools` names, and the refusal of a run no one can answer an `ask` in.
 */
import type { ToolOffer } from '../node-sdk/define.ts';
import type { ToolDefinition, ToolPolicy, ToolSourceRef, ToolSources } from '../providers/tools.ts';

/**
 * The policy of one offered tool. An MCP tool's comes from the user's settings only (a shared
 * document cannot loosen it); the graph's own tools may take the document's.
 */
export function toolPolicy(
  offer: ToolOffer,
  definition: ToolDefinition,
  sources: ToolSources | undefined,
): ToolPolicy {
  const user = sources?.policy?.(offer.source, definition.name);
  const own = offer.source.kind === 'mcp' ? undefined : offer.policy;
  return own ?? user ?? (definition.hints?.destructive ? 'ask' : 'allow');
}

/** How `--approve-tools` and messages name a source's tool: `PROFILE/TOOL`, `graph:NAME/TOOL`. */
export function toolLabel(ref: ToolSourceRef, tool: string): string {
  return `${sourceName(ref)}/${tool}`;
}

/** A source's name in `--approve-tools`: an MCP profile's own, a library graph's `graph:NAME`. */
function sourceName(ref: ToolSourceRef): string {
  return ref.kind === 'mcp' ? ref.profile : `graph:${ref.graph}`;
}

/** Whether `approved` (`PROFILE/TOOL`, `PROFILE/*`, `all`) names a source's tool. */
export function approvedTool(
  approved: readonly string[] | undefined,
  ref: ToolSourceRef,
  tool: string,
): boolean {
  if (!approved) return false;
  return approved.some(
    (name) => name === 'all' || name === toolLabel(ref, tool) || name === `${sourceName(ref)}/*`,
  );
}

/** The one line a run with no one to answer says when `asked` tools would wait for a person. */
export function unansweredLine(asked: readonly string[]): string {
  return `${asked.length === 1 ? 'the tool' : 'the tools'} ${asked.join(', ')} ${asked.length === 1 ? 'asks' : 'ask'} before ${asked.length === 1 ? 'it runs' : 'they run'} and no one is here to answer: run with --step, or approve ${asked.length === 1 ? 'it' : 'them'} with --approve-tools ${asked.join(',')}`;
}
