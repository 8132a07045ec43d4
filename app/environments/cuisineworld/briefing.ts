/**
 * What a dispatcher is told about a world, in our words: the rules, the level's recipes and a
 * few hints (MindAgent's "inference knowledge").
 */
import type { WorldConfig } from './config.ts';
import { BASE_INGREDIENTS } from './data.ts';

/** The briefing for a kitchen of `c` worked by `agents`. */
export function briefing(
  c: WorldConfig,
  agents: readonly string[],
): { rules: string; knowledge: string; hints: string[] } {
  const locations = c.locations.map((l) => l.id).join(', ');
  const tools = [...new Set(c.locations.map((l) => l.tool))]
    .filter((t) => c.tools[t].role === 'cooking')
    .map((t) => {
      const spec = c.tools[t];
      const busy = Math.max(spec.busySteps - 1, 0);
      return `- ${t}: holds up to ${spec.capacity ?? 'any number of'} items; ${
        busy > 0
          ? `occupied for ${busy} step${busy === 1 ? '' : 's'} after activation`
          : 'ready again at once'
      }${spec.keepsAgentBusy ? '; the agent works it by hand' : ''}${
        spec.pickableBeforeActivation ? '; things can be taken off it at any time' : ''
      }`;
    });
  const rules = [
    'You run a kitchen. Orders for dishes arrive over time and each must be served before its lifetime runs out.',
    `Agents: ${agents.join(', ')}. Locations: ${locations}.`,
    'Each step, give one command per agent; they run in the order given, so an agent can use what an earlier one has just done.',
    'Commands:',
    '- goto_agentN_location: walk to a location (one step, from anywhere).',
    '- get_agentN_ingredient_storage0: take one base ingredient from storage.',
    '- get_agentN_location: take what is inside a tool (cooking tools only after activation).',
    '- put_agentN_location: put what you hold into a tool, onto the serving table (ordered dishes only) or back into storage (it is thrown away).',
    '- activate_agentN_location: switch a cooking tool on; what is inside turns into the recipe’s product.',
    '- noop_agentN: do nothing.',
    'An agent holds one thing at a time, must stand at a location to use it, and cannot use an occupied tool.',
    `Base ingredients in storage: ${BASE_INGREDIENTS.join(', ')}.`,
    'Tools here:',
    ...tools,
  ].join('\n');
  const knowledge = c.recipes
    .map((r) => `${r.product}: put ${r.ingredients.join(' + ')} into a ${r.tool}, then activate it`)
    .join('\n');
  const hints = [
    'Only put into a tool what one of its recipes needs; anything else would make waste and is refused.',
    'Do not activate a tool until everything its recipe needs is inside.',
    'While a tool is occupied nothing can be put in or taken out; use the time for other work.',
    'Serve the most urgent order first, and split the fetching between agents.',
    'Read the feedback: a refused command did nothing.',
  ];
  return { rules, knowledge, hints };
}
