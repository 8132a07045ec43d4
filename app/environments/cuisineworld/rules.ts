/**
 * The rules of the kitchen: what each command needs to run and what it changes, the recipes a
 * tool cooks, and a step's commands run one after another on the state.
 */
import type { Rejection, Validation } from '../types.ts';
import { type ParsedCommand, parseCommand } from './commands.ts';
import type { WorldConfig } from './config.ts';
import { type Recipe, type ToolType, WASTE } from './data.ts';
import { isBaseIngredient } from './levels.ts';
import type { PlaceState, WorldState } from './state.ts';

function cookKey(contents: readonly string[], tool: ToolType): string {
  return `${[...contents].sort().join('&')}@${tool}`;
}

/** Items of `items` left after taking out `taken` (as multisets). */
export function without(items: readonly string[], taken: readonly string[]): string[] {
  const rest = [...items];
  for (const t of taken) {
    const i = rest.indexOf(t);
    if (i >= 0) rest.splice(i, 1);
  }
  return rest;
}

/** Items joined for a message: `a & b`, or `nothing`. */
export function names(items: readonly string[]): string {
  return items.length === 0 ? 'nothing' : items.join(' & ');
}

/**
 * The rules of one command, checked against the state as it is when the command's turn comes
 * and applied if they hold. Checks come in the public code's order, and the first that fails is
 * the one reported (the public code sometimes reports several at once).
 */
function apply(state: WorldState, config: WorldConfig, cmd: ParsedCommand): Rejection | null {
  const refuse = (reason: string, message: string): Rejection => ({
    command: cmd.text,
    agent: cmd.agent,
    stage: 'precondition',
    reason,
    message,
  });
  const agent = state.agents[cmd.agentIndex]!;
  if (cmd.verb === 'noop') return null;
  const loc = cmd.location!;
  const place = state.places.find((p) => p.id === loc)!;
  const tool = config.tools[place.tool];
  const busyAgent = () =>
    refuse('agent-busy', `${agent.id} is occupied and can only noop until it is free`);
  if (cmd.verb === 'goto') {
    if (agent.busy > 0) return busyAgent();
    agent.at = loc;
    return null;
  }
  if (agent.at !== loc) return refuse('not-at-location', `${agent.id} is not at ${loc}`);

  if (cmd.verb === 'get') {
    const pickable =
      tool.role === 'storage' ||
      (tool.role === 'cooking' && (tool.pickableBeforeActivation || place.cooked));
    if (!pickable) {
      return refuse(
        'not-pickable',
        tool.role === 'serving'
          ? `nothing can be taken back from ${loc}`
          : `${agent.id} cannot take anything from ${loc} before it has been activated`,
      );
    }
    if (agent.busy > 0) return busyAgent();
    if (agent.hold) {
      return refuse(
        'hands-full',
        `${agent.id} is holding ${agent.hold} and cannot take anything more`,
      );
    }
    if (place.busy > 0) {
      return refuse(
        'location-busy',
        `${loc} is occupied, so ${agent.id} cannot take anything from it`,
      );
    }
    if (tool.role === 'storage') {
      if (!cmd.item || !isBaseIngredient(cmd.item)) {
        return refuse(
          'not-base-ingredient',
          `${agent.id} can only take base ingredients from ${loc}, and ${cmd.item} is not one`,
        );
      }
      agent.hold = cmd.item;
      return null;
    }
    if (place.contents.length === 0) {
      return refuse('empty-location', `${loc} is empty, there is nothing to take`);
    }
    // The public code takes whatever is inside (the item named in the command is ignored). A
    // mixture comes out as waste, the rule of an older version of that code; under the refusal
    // rule a tool never holds a mixture that can be taken, only the cooking rule makes one.
    agent.hold = place.contents.length === 1 ? place.contents[0]! : WASTE;
    place.contents = [];
    place.cooked = false;
    return null;
  }

  if (cmd.verb === 'put') {
    const held = agent.hold;
    if (tool.role === 'serving' && held && !config.level.dishes.includes(held)) {
      return refuse(
        'not-level-dish',
        `${held} is not a dish this level needs, so it cannot go on ${loc}`,
      );
    }
    if (
      tool.role === 'cooking' &&
      held &&
      config.wasteRule === 'refuse' &&
      !fits(config, place, held)
    ) {
      return refuse('put-waste', `putting ${held} into ${loc} would make waste`);
    }
    if (agent.busy > 0) return busyAgent();
    if (!held) return refuse('hands-empty', `${agent.id} holds nothing to put into ${loc}`);
    if (place.busy > 0) {
      return refuse('location-busy', `${loc} is occupied, so nothing can be put into it now`);
    }
    const merges = tool.role !== 'serving' && place.contents.includes(held);
    if (tool.capacity !== null && place.contents.length >= tool.capacity && !merges) {
      return refuse('full', `${loc} is full (it holds at most ${tool.capacity})`);
    }
    agent.hold = null;
    // Storage takes anything back (it is gone). Elsewhere a second copy of an item already
    // inside merges with it, so it is lost too; only the serving table keeps duplicates (an
    // order may be for two of a dish). Both as in the public code.
    if (tool.role === 'storage' || merges) return null;
    place.contents.push(held);
    return null;
  }

  // activate
  if (tool.role !== 'cooking') {
    // The public code answers "is empty" or "would make waste" here; we say what is meant.
    return refuse('not-activatable', `${loc} is not a cooking tool and cannot be activated`);
  }
  if (agent.busy > 0) return busyAgent();
  if (agent.hold) {
    return refuse('hands-full', `${agent.id} is holding ${agent.hold} and cannot activate ${loc}`);
  }
  if (place.busy > 0)
    return refuse('location-busy', `${loc} is occupied and cannot be activated again yet`);
  if (place.contents.length === 0)
    return refuse('empty-location', `${loc} is empty, there is nothing to activate`);
  const product = cookedProduct(config, place.contents, place.tool);
  if (product === WASTE && config.wasteRule === 'refuse') {
    return refuse(
      'activate-waste',
      `activating ${loc} would make waste: ${names(place.contents)} is no recipe of this level for a ${place.tool}`,
    );
  }
  // The content turns into the product at once; the tool (and, for a chopboard, the agent)
  // is then occupied for its busy steps.
  place.contents = [product];
  place.cooked = true;
  place.busy = tool.busySteps;
  if (tool.keepsAgentBusy) agent.busy = Math.max(agent.busy, tool.busySteps);
  return null;
}

const cookBooks = new WeakMap<readonly Recipe[], Map<string, string>>();

/** What activating a tool of `type` holding `contents` makes (waste when no recipe fits). */
export function cookedProduct(
  config: WorldConfig,
  contents: readonly string[],
  type: ToolType,
): string {
  let book = cookBooks.get(config.recipes);
  if (!book) {
    book = new Map(config.recipes.map((r) => [cookKey(r.ingredients, r.tool), r.product]));
    cookBooks.set(config.recipes, book);
  }
  return book.get(cookKey(contents, type)) ?? WASTE;
}

/**
 * Whether `item` can go into a tool without spoiling it: some recipe of this level for the
 * tool still lacks it, given what is inside; or the same item is already inside (it merges).
 */
export function fits(config: WorldConfig, place: PlaceState, item: string): boolean {
  for (const recipe of config.recipes) {
    if (recipe.tool !== place.tool) continue;
    if (!place.contents.every((c) => recipe.ingredients.includes(c))) continue;
    if (without(recipe.ingredients, place.contents).includes(item)) return true;
  }
  return place.contents.includes(item);
}

/** Runs commands on `state` in order; returns the validation and the commands that ran. */
export function runCommands(
  state: WorldState,
  config: WorldConfig,
  commands: readonly string[],
): { validation: Validation; ran: ParsedCommand[]; parsed: ParsedCommand[] } {
  const rejections: Rejection[] = [];
  const parsed: ParsedCommand[] = [];
  for (const raw of commands) {
    const result = parseCommand(raw, config);
    if (result.ok) parsed.push(result.command);
    else rejections.push(result.rejection);
  }
  // A step with a malformed or unknown command is refused whole, as in the public code.
  if (rejections.length === 0) {
    const seen = new Set<string>();
    for (const cmd of parsed) {
      if (seen.has(cmd.agent)) {
        rejections.push({
          command: cmd.text,
          agent: cmd.agent,
          stage: 'assignment',
          reason: 'duplicate-agent',
          message: `agent ids cannot be the same: ${cmd.agent} was given more than one command`,
        });
      }
      seen.add(cmd.agent);
    }
  }
  if (rejections.length > 0) {
    return { validation: { ok: false, accepted: [], rejections }, ran: [], parsed };
  }
  const ran: ParsedCommand[] = [];
  for (const cmd of parsed) {
    const refused = apply(state, config, cmd);
    if (refused) rejections.push(refused);
    else ran.push(cmd);
  }
  return {
    validation: { ok: rejections.length === 0, accepted: ran.map((c) => c.text), rejections },
    ran,
    parsed,
  };
}
