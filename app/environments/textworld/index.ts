/**
 * The text-world environment: a world file (areas, furniture, items, agents, a script) loaded
 * and checked, played step by step with the ITCMA-S primitives, observed as text and JSON, and
 * saved as plain JSON between steps. docs/textworld.md describes the format and the rules.
 */
export { ACTION_FORMS, type Action, formatAction, readAction } from './actions.ts';
export { BUILTIN_WORLDS, builtinWorld, irollanValley } from './builtin.ts';
export {
  type AgentSpec,
  type AreaSpec,
  type FurnitureSpec,
  type ItemSpec,
  type ScriptEntry,
  WORLD_BOUNDS,
  WORLD_FORMAT,
  type WorldSpec,
  WorldSpecSchema,
} from './format.ts';
export { type LoadResult, loadWorld } from './load.ts';
export { doingPhrase, type Observation, type ObservedItem } from './observe.ts';
export type { ActionResult } from './rules.ts';
export {
  type Doing,
  type Interaction,
  STATE_FORMAT,
  TURN_ORDERS,
  type TurnOrder,
  type WorldState,
  WorldStateSchema,
} from './state.ts';
export { type Mood, topicOf, topics } from './topics.ts';
export {
  type CreateOptions,
  type StepAction,
  type StepResult,
  TextWorld,
  type TurnResult,
} from './world.ts';
