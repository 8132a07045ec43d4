/**
 * `society world show WORLD`: each agent's observation and the actions it can take at step 0,
 * as its prompts would see them (or as JSON with --json).
 */
import { listNames } from '../../../environments/textworld/layout.ts';
import { TextWorld } from '../../../environments/textworld/world.ts';
import { UsageError } from '../../errors.ts';
import { worldNamed } from './world-file.ts';

export interface ShowWorldFlags {
  agent?: string;
  json?: boolean;
}

export function showWorldCommand(name: string, flags: ShowWorldFlags): void {
  const world = TextWorld.create(worldNamed(name));
  const all = world.agents();
  if (flags.agent !== undefined && !all.includes(flags.agent))
    throw new UsageError(`no agent "${flags.agent}" in ${name} (agents: ${listNames(all)})`);
  const agents = flags.agent !== undefined ? [flags.agent] : all;
  if (flags.json) {
    const out = {
      world: world.spec.name,
      step: world.stepsPlayed(),
      agents: agents.map((agent) => ({
        agent,
        observation: world.observation(agent),
        text: world.observe(agent),
        actions: world.actionSpace(agent),
      })),
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return;
  }
  const { spec } = world;
  const blocks = [
    `${spec.name}: ${spec.areas.length} areas, ${spec.items.length} items, ${all.length} agents (step ${world.stepsPlayed()})`,
  ];
  for (const agent of agents) {
    const goal = spec.agents.find((a) => a.id === agent)!.goal;
    const actions = world.actionSpace(agent);
    blocks.push(
      [
        `${agent}: ${goal}`,
        world.observe(agent),
        `Actions (${actions.length}):`,
        ...actions.map((a) => `  ${a.startsWith('chat with ') ? `${a}: TEXT` : a}`),
      ].join('\n'),
    );
  }
  process.stdout.write(`${blocks.join('\n\n')}\n`);
}
