/**
 * The text-world file format, `society-world/1`: areas joined by doors, furniture in the areas,
 * items on furniture or in someone's hands, agents with a place and a goal, and an optional
 * script of actions that happen at given steps. A world is shared data (people edit and swap
 * these files), so every list and text has a bound, and unknown fields are refused rather
 * than ignored: a misspelt field is a mistake the author should hear about.
 *
 * This module checks shape only; references between parts (an item on furniture that exists,
 * a door to a known area) are checked in load.ts.
 */
import { z } from 'zod';

/** The format tag a world file carries. */
export const WORLD_FORMAT = 'society-world/1';

/** Upper bounds on a world's size. */
export const WORLD_BOUNDS = {
  areas: 64,
  furniturePerArea: 40,
  items: 1000,
  agents: 32,
  script: 2000,
  doors: 64,
  states: 16,
  idLength: 40,
  titleLength: 80,
  goalLength: 500,
  descriptionLength: 4000,
  /** The longest chat text an action may carry; longer text is cut. */
  chatLength: 1000,
  /** The latest step a script entry may name. */
  maxStep: 100_000,
} as const;

/**
 * Ids are the names agents type in actions (`take toy 1 from table 6`, `go to LL's home`):
 * letters, digits, spaces and a few marks, no colon (it starts a chat's text), no line break,
 * single spaces only. They are matched without regard to case, so two ids differing only in
 * case are refused as duplicates.
 */
const ID_PATTERN = /^[A-Za-z0-9$£€#][A-Za-z0-9$£€#'’&.,_-]*(?: [A-Za-z0-9$£€#'’&.,_-]+)*$/;

const Id = z
  .string()
  .min(1, 'an id cannot be empty')
  .max(WORLD_BOUNDS.idLength, `an id is at most ${WORLD_BOUNDS.idLength} characters`)
  .regex(
    ID_PATTERN,
    "an id is letters, digits, single spaces and the marks $ £ € # ' & . , _ - (no colon, no line break)",
  );

/** A one-line text: it is spliced into sentences of an observation. */
const Line = (max: number) =>
  z
    .string()
    .max(max, `at most ${max} characters`)
    .regex(/^[^\r\n]*$/, 'must be one line');

/** A longer text that may run over several lines. */
const Prose = (max: number) => z.string().max(max, `at most ${max} characters`);

/** A state flag an item can have: a lower-case word or two (`clean`, `damp`, `hot`). */
const StateName = z
  .string()
  .regex(/^[a-z][a-z -]{0,23}$/, 'a state is a lower-case word of at most 24 letters (e.g. clean)');

const States = z.array(StateName).max(WORLD_BOUNDS.states);

/** What using a piece of furniture does to the items on (or in) it. */
export const FurnitureUseSchema = z.strictObject({
  /** States every item on it gains. */
  sets: States.optional(),
  /** States every item on it loses (applied before `sets`). */
  clears: States.optional(),
  /** How others see the agent using it (`washing up at sink basin 1`); default `using ID`. */
  doing: Line(WORLD_BOUNDS.titleLength).optional(),
});

export const FurnitureSchema = z.strictObject({
  id: Id,
  /** What it is, in words (`table`, `sink basin`); descriptive only, the rules read `use`. */
  kind: Line(WORLD_BOUNDS.titleLength).min(1),
  /** Whether things go `on` it (a table, the default) or `in` it (a bookshelf, a bin). */
  holds: z.enum(['on', 'in']).optional(),
  /** Present when the furniture can be used; absent, `use ID` is not an action. */
  use: FurnitureUseSchema.optional(),
});

export const AreaSchema = z.strictObject({
  id: Id,
  /** How the area is named in sentences (`the canteen`); default: its id. */
  title: Line(WORLD_BOUNDS.titleLength).min(1).optional(),
  /** `home` (someone's house), `public` (a shared room) or `outdoor` (where `leave` leads). */
  kind: z.enum(['home', 'public', 'outdoor']),
  /** The agent whose home this is (shown in observations; it grants no rights). */
  owner: Id.optional(),
  description: Prose(WORLD_BOUNDS.descriptionLength).optional(),
  /** Areas one step away. A door works both ways, whichever side lists it. */
  doors: z.array(Id).max(WORLD_BOUNDS.doors),
  furniture: z.array(FurnitureSchema).max(WORLD_BOUNDS.furniturePerArea),
});

export const ItemSchema = z.strictObject({
  id: Id,
  /** The furniture it is on or in, or the agent holding it. */
  at: Id,
  states: States.optional(),
});

export const AgentSpecSchema = z.strictObject({
  /** The code used in actions and logs (`AY`). */
  id: Id,
  /** A longer name; actions may use it too (`chat with Suzuran`). */
  name: Id.optional(),
  /** The area it starts in. */
  at: Id,
  /** What it is trying to do, for its prompts and its action filter. */
  goal: Line(WORLD_BOUNDS.goalLength).min(1),
});

export const ScriptEntrySchema = z.strictObject({
  /** The step it happens in (the first step is 1), before the agents' own turns. */
  step: z.number().int().min(1).max(WORLD_BOUNDS.maxStep),
  agent: Id,
  /** An action in the same words an agent would use. */
  action: Line(WORLD_BOUNDS.chatLength + 100).min(1),
});

export const WorldSpecSchema = z.strictObject({
  format: z.literal(WORLD_FORMAT, { error: `format must be "${WORLD_FORMAT}"` }),
  name: Line(WORLD_BOUNDS.titleLength).min(1),
  description: Prose(WORLD_BOUNDS.descriptionLength).optional(),
  areas: z.array(AreaSchema).min(1).max(WORLD_BOUNDS.areas),
  items: z.array(ItemSchema).max(WORLD_BOUNDS.items),
  agents: z.array(AgentSpecSchema).min(1).max(WORLD_BOUNDS.agents),
  script: z.array(ScriptEntrySchema).max(WORLD_BOUNDS.script).optional(),
});

export type FurnitureUse = z.infer<typeof FurnitureUseSchema>;
export type FurnitureSpec = z.infer<typeof FurnitureSchema>;
export type AreaSpec = z.infer<typeof AreaSchema>;
export type ItemSpec = z.infer<typeof ItemSchema>;
export type AgentSpec = z.infer<typeof AgentSpecSchema>;
export type ScriptEntry = z.infer<typeof ScriptEntrySchema>;
/** A world as its file describes it, shape-checked. */
export type WorldSpec = z.infer<typeof WorldSpecSchema>;
