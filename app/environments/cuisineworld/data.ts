/**
 * CuisineWorld's facts: the kitchen tools, the base ingredients, the recipes and the levels.
 *
 * Provenance: the world is the one of MindAgent (Gong et al., "MindAgent: Emergent Gaming
 * Interaction"). The paper gives the shape (storage, serving table and eight cooking tools,
 * 27 ingredients, 33 ordered dishes, 12 levels in four classes); the numbers it leaves to its
 * appendix (tool capacities and busy times, recipes, kitchens) come from the authors' public
 * code. Everything here is re-authored by hand in our own format; the tests compare it with
 * the original files so a slip shows up.
 */

/** Every kind of location a kitchen can have. */
export const TOOL_TYPES = [
  'storage',
  'servingtable',
  'chopboard',
  'blender',
  'pan',
  'fryer',
  'mixer',
  'pot',
  'steamer',
  'oven',
] as const;
export type ToolType = (typeof TOOL_TYPES)[number];

/** What a location is for. */
export type ToolRole = 'storage' | 'serving' | 'cooking';

export interface ToolSpec {
  id: ToolType;
  title: string;
  role: ToolRole;
  /** What activating it does, as a verb for recipe text ("blends"). */
  does?: string;
  /** How many different items fit inside; `null` is no limit. */
  capacity: number | null;
  /**
   * Steps the tool stays busy once activated, counting the step it was switched on: it is
   * shown occupied for `busySteps - 1` later steps (a blender's 2 blocks one step; a
   * chopboard's 1 blocks none).
   */
  busySteps: number;
  /** Whether the agent that activates it is busy for as long (it has to stand and watch). */
  keepsAgentBusy: boolean;
  /**
   * Whether an agent may take things out before the tool has been activated (a chopboard:
   * yes; a blender: only once it has blended). Storage always gives, the serving table never.
   */
  pickableBeforeActivation: boolean;
}

/** The ten location types, with the public code's capacities and timings. */
export const TOOLS: Record<ToolType, ToolSpec> = {
  storage: {
    id: 'storage',
    title: 'Storage',
    role: 'storage',
    capacity: null,
    busySteps: 0,
    keepsAgentBusy: false,
    pickableBeforeActivation: true,
  },
  servingtable: {
    id: 'servingtable',
    title: 'Serving table',
    role: 'serving',
    capacity: null,
    busySteps: 0,
    keepsAgentBusy: false,
    pickableBeforeActivation: false,
  },
  chopboard: {
    id: 'chopboard',
    title: 'Chopping board',
    role: 'cooking',
    does: 'chops',
    capacity: 1,
    busySteps: 1,
    keepsAgentBusy: true,
    pickableBeforeActivation: true,
  },
  blender: {
    id: 'blender',
    title: 'Blender',
    role: 'cooking',
    does: 'blends',
    capacity: 5,
    busySteps: 2,
    keepsAgentBusy: false,
    pickableBeforeActivation: false,
  },
  pan: {
    id: 'pan',
    title: 'Pan',
    role: 'cooking',
    does: 'sautés',
    capacity: 5,
    busySteps: 2,
    keepsAgentBusy: false,
    pickableBeforeActivation: false,
  },
  fryer: {
    id: 'fryer',
    title: 'Fryer',
    role: 'cooking',
    does: 'fries',
    capacity: 5,
    busySteps: 2,
    keepsAgentBusy: false,
    pickableBeforeActivation: false,
  },
  mixer: {
    id: 'mixer',
    title: 'Mixer',
    role: 'cooking',
    does: 'mixes',
    capacity: 5,
    busySteps: 0,
    keepsAgentBusy: false,
    pickableBeforeActivation: false,
  },
  pot: {
    id: 'pot',
    title: 'Pot',
    role: 'cooking',
    does: 'boils',
    capacity: 5,
    busySteps: 3,
    keepsAgentBusy: false,
    pickableBeforeActivation: false,
  },
  steamer: {
    id: 'steamer',
    title: 'Steamer',
    role: 'cooking',
    does: 'steams',
    capacity: 5,
    busySteps: 3,
    keepsAgentBusy: false,
    pickableBeforeActivation: false,
  },
  oven: {
    id: 'oven',
    title: 'Oven',
    role: 'cooking',
    does: 'bakes',
    capacity: 5,
    busySteps: 3,
    keepsAgentBusy: false,
    pickableBeforeActivation: false,
  },
};

/** The 27 raw ingredients storage hands out (the paper's count; the list is the code's). */
export const BASE_INGREDIENTS = [
  // meat, fish and egg
  'pork',
  'beef',
  'tuna',
  'salmon',
  'lamb',
  'chicken',
  'turkey',
  'egg',
  'duck',
  'lobster',
  'pepperoni',
  // vegetables
  'potato',
  'carrot',
  'onion',
  'lettuce',
  'tomato',
  'cucumber',
  'leek',
  'broccoli',
  // staples and the rest
  'flour',
  'rice',
  'pasta',
  'dough',
  'cheese',
  'seaweedSheet',
  'bread',
  'tortilla',
] as const;
export type BaseIngredient = (typeof BASE_INGREDIENTS)[number];

/** What a failed cook or a bad mixture turns into. */
export const WASTE = 'waste';

/** One recipe: activating `tool` holding exactly `ingredients` gives `product`. */
export interface Recipe {
  product: string;
  tool: ToolType;
  ingredients: readonly string[];
}

const make = (tool: ToolType, product: string, ...ingredients: string[]): Recipe => ({
  product,
  tool,
  ingredients,
});

/**
 * All 63 recipes of the public code, dishes and intermediates alike, grouped by tool. Only
 * 33 of them are ever ordered; the others (porkMeatcake, the demo dish, among them) serve the
 * older levels, the demonstrations or nothing at all.
 */
export const RECIPES: readonly Recipe[] = [
  // blender
  make('blender', 'beefMeatcake', 'beef', 'flour'),
  make('blender', 'porkMeatcake', 'pork', 'flour'),
  make('blender', 'salmonMeatcake', 'salmon', 'flour'),
  make('blender', 'lambMeatcake', 'lamb', 'flour'),
  make('blender', 'chickenMeatcake', 'chicken', 'flour'),
  make('blender', 'turkeyMeatcake', 'turkey', 'flour'),
  make('blender', 'duckMeatcake', 'duck', 'flour'),
  make('blender', 'lobsterMeatcake', 'lobster', 'flour'),
  make('blender', 'cake', 'egg', 'flour'),
  make('blender', 'mixedGroundMeat', 'pork', 'beef', 'chicken'),
  make('blender', 'groundBeef', 'beef'),
  make('blender', 'groundPork', 'pork'),
  make('blender', 'groundSalmon', 'salmon'),
  make('blender', 'rawSmashedPotato', 'potatoSlice'),
  make('blender', 'tomatoSauce', 'tomato'),
  // chopboard
  make('chopboard', 'potatoSlice', 'potato'),
  make('chopboard', 'onionSlice', 'onion'),
  make('chopboard', 'carrotSlice', 'carrot'),
  make('chopboard', 'lettuceSlice', 'lettuce'),
  make('chopboard', 'tomatoSlice', 'tomato'),
  make('chopboard', 'cucumberSlice', 'cucumber'),
  make('chopboard', 'salmonSashimi', 'salmon'),
  make('chopboard', 'tunaSashimi', 'tuna'),
  // fryer
  make('fryer', 'frenchFries', 'potatoSlice'),
  // pot
  make('pot', 'boiledLobster', 'potato', 'lobster'),
  make('pot', 'cookedRice', 'rice'),
  make('pot', 'cookedPasta', 'pasta'),
  make('pot', 'onionPotatoLeekSoup', 'onion', 'potato', 'leek'),
  make('pot', 'onionPotatoCarrotSoup', 'onion', 'potato', 'carrot'),
  make('pot', 'onionBroccoliCheeseSoup', 'onion', 'broccoli', 'cheese'),
  // steamer
  make('steamer', 'smashedPotato', 'rawSmashedPotato'),
  make('steamer', 'beefDumpling', 'groundBeef', 'flour'),
  make('steamer', 'porkDumpling', 'groundPork', 'flour'),
  make('steamer', 'salmonDumpling', 'groundSalmon', 'flour'),
  // pan
  make('pan', 'sauteedTomato', 'tomatoSlice'),
  make('pan', 'sauteedPork', 'pork'),
  make('pan', 'sauteedBeef', 'beef'),
  make('pan', 'sauteedChicken', 'chicken'),
  make('pan', 'sauteedGroundPork', 'groundPork'),
  make('pan', 'sauteedGroundBeef', 'groundBeef'),
  // mixer
  make('mixer', 'potatoSalad', 'potatoSlice', 'egg'),
  make('mixer', 'tomatoPasta', 'cookedPasta', 'sauteedTomato'),
  make('mixer', 'porkPasta', 'cookedPasta', 'sauteedGroundPork'),
  make('mixer', 'beefPasta', 'cookedPasta', 'sauteedGroundBeef'),
  make('mixer', 'lettuceSalad', 'lettuceSlice'),
  make('mixer', 'tomatoSalad', 'tomatoSlice'),
  make('mixer', 'tomatoLettuceSalad', 'tomatoSlice', 'lettuceSlice'),
  make('mixer', 'tomatoCucumberSalad', 'tomatoSlice', 'cucumberSlice'),
  make('mixer', 'mixedSalad', 'tomatoSlice', 'lettuceSlice', 'cucumberSlice'),
  make('mixer', 'mixedSashimi', 'salmonSashimi', 'tunaSashimi'),
  make('mixer', 'salmonSushi', 'salmonSashimi', 'cookedRice'),
  make('mixer', 'salmonRoll', 'salmonSashimi', 'cookedRice', 'seaweedSheet'),
  make('mixer', 'tunaRoll', 'tunaSashimi', 'cookedRice', 'seaweedSheet'),
  make('mixer', 'tunaSushi', 'tunaSashimi', 'cookedRice'),
  make('mixer', 'cheeseBurger', 'cheese', 'sauteedBeef', 'bread'),
  make('mixer', 'MaxJr', 'lettuceSlice', 'sauteedBeef', 'cheese', 'bread'),
  make('mixer', 'Hopper', 'tomatoSlice', 'lettuceSlice', 'sauteedBeef', 'bread'),
  make('mixer', 'BurritodePastor', 'sauteedPork', 'cookedRice', 'tortilla'),
  make('mixer', 'BurritodeAsada', 'sauteedBeef', 'cookedRice', 'tortilla'),
  make('mixer', 'BurritodePollo', 'sauteedChicken', 'cookedRice', 'tortilla'),
  // oven
  make('oven', 'pepperoniPizza', 'tomatoSauce', 'pepperoni', 'cheese', 'dough'),
  make('oven', 'hawaiianPizza', 'tomatoSauce', 'pork', 'cheese', 'dough'),
  make('oven', 'chickenPizza', 'tomatoSauce', 'chicken', 'cheese', 'dough'),
];

/** The paper's four difficulty classes (Tables 4–6 group the levels three by three). */
export type LevelClass = 'very-simple' | 'simple' | 'intermediate' | 'advanced';

export interface LevelSpec {
  /** The id commands and runs use (`level_3`). */
  id: string;
  /** A short name (`L3`). */
  title: string;
  /** The paper's class; `null` for a level no table of the paper reports. */
  class: LevelClass | null;
  /**
   * The cooking tools and how many of each. Every kitchen also has one storage and one
   * serving table (`storage0`, `servingtable0`), not listed here.
   */
  kitchen: Partial<Record<ToolType, number>>;
  /** The dishes orders are drawn from, in the order the public code lists them. */
  dishes: readonly string[];
  /** How many agents the public code plays the level with by default. */
  defaultAgents: number;
  /** Where the level comes from: the final level file, or the older file the recorded games use. */
  source: 'final' | 'trace';
  note?: string;
}

/** The 13 levels of the public code's final level file (the paper reports 12 of them). */
export const LEVELS: readonly LevelSpec[] = [
  {
    id: 'level_0',
    title: 'L0',
    class: 'very-simple',
    kitchen: { blender: 1 },
    dishes: ['salmonMeatcake'],
    defaultAgents: 2,
    source: 'final',
  },
  {
    id: 'level_1',
    title: 'L1',
    class: 'very-simple',
    kitchen: { blender: 2 },
    dishes: ['salmonMeatcake', 'lambMeatcake', 'lobsterMeatcake'],
    defaultAgents: 2,
    source: 'final',
  },
  {
    id: 'level_2',
    title: 'L2',
    class: 'simple',
    kitchen: { chopboard: 2, mixer: 2 },
    dishes: ['salmonSashimi', 'tunaSashimi', 'mixedSashimi'],
    defaultAgents: 2,
    source: 'final',
  },
  {
    id: 'level_3',
    title: 'L3',
    class: 'intermediate',
    kitchen: { pot: 2, chopboard: 2, mixer: 2 },
    dishes: ['salmonSushi', 'tunaSushi'],
    defaultAgents: 3,
    source: 'final',
  },
  {
    id: 'level_4',
    title: 'L4',
    class: 'simple',
    kitchen: { chopboard: 2, mixer: 2 },
    dishes: ['tomatoSalad', 'tomatoLettuceSalad', 'tomatoCucumberSalad', 'lettuceSalad'],
    defaultAgents: 3,
    source: 'final',
  },
  {
    id: 'level_5',
    title: 'L5',
    class: 'advanced',
    kitchen: { pan: 2, pot: 2, mixer: 2, blender: 2, chopboard: 2 },
    dishes: ['tomatoPasta', 'beefPasta', 'porkPasta'],
    defaultAgents: 3,
    source: 'final',
  },
  {
    id: 'level_6',
    title: 'L6',
    class: null,
    kitchen: { blender: 2, oven: 2 },
    dishes: ['pepperoniPizza', 'hawaiianPizza', 'chickenPizza'],
    defaultAgents: 4,
    source: 'final',
    note: 'In the public code but in none of the paper’s result tables.',
  },
  {
    id: 'level_7',
    title: 'L7',
    class: 'very-simple',
    kitchen: { pot: 2 },
    dishes: ['onionPotatoCarrotSoup', 'onionPotatoLeekSoup', 'onionBroccoliCheeseSoup'],
    defaultAgents: 4,
    source: 'final',
  },
  {
    id: 'level_8',
    title: 'L8',
    class: 'simple',
    kitchen: { steamer: 2, blender: 2 },
    dishes: ['porkDumpling', 'beefDumpling', 'salmonDumpling'],
    defaultAgents: 4,
    source: 'final',
  },
  {
    id: 'level_9',
    title: 'L9',
    class: 'intermediate',
    kitchen: { pan: 2, mixer: 2, chopboard: 2 },
    dishes: ['cheeseBurger', 'MaxJr', 'Hopper'],
    defaultAgents: 4,
    source: 'final',
  },
  {
    id: 'level_10',
    title: 'L10',
    class: 'intermediate',
    kitchen: { pan: 2, mixer: 2, pot: 2 },
    dishes: ['BurritodePastor', 'BurritodeAsada', 'BurritodePollo'],
    defaultAgents: 4,
    source: 'final',
  },
  {
    id: 'level_11',
    title: 'L11',
    class: 'advanced',
    kitchen: { pan: 2, mixer: 2, pot: 2, chopboard: 2 },
    dishes: ['BurritodePastor', 'BurritodeAsada', 'BurritodePollo', 'salmonSushi', 'tunaSushi'],
    defaultAgents: 4,
    source: 'final',
  },
  {
    id: 'level_12',
    title: 'L12',
    class: 'advanced',
    kitchen: { pan: 2, blender: 2, mixer: 2, steamer: 2, chopboard: 2 },
    dishes: ['potatoSalad', 'smashedPotato', 'frenchFries'],
    defaultAgents: 4,
    source: 'final',
    note: 'frenchFries needs a fryer and this kitchen has none: those orders cannot be met.',
  },
  // The two levels of the older level file that the recorded human games were played on;
  // both differ from the final levels of the same number.
  {
    id: 'trace_level_1',
    title: 'T1',
    class: null,
    kitchen: { blender: 1 },
    dishes: ['porkMeatcake', 'beefMeatcake'],
    defaultAgents: 2,
    source: 'trace',
    note: 'Level 1 of the older level file, on which the recorded 1- and 2-agent games ran.',
  },
  {
    id: 'trace_level_2',
    title: 'T2',
    class: null,
    kitchen: { blender: 2 },
    dishes: ['porkMeatcake', 'beefMeatcake', 'chickenMeatcake'],
    defaultAgents: 2,
    source: 'trace',
    note: 'Level 2 of the older level file, on which the recorded 3- and 4-agent games ran.',
  },
];
