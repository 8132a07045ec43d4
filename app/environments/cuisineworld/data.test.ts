import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BASE_INGREDIENTS, LEVELS, RECIPES, TOOL_TYPES, TOOLS } from './data.ts';
import {
  checkLevel,
  dishTiming,
  findLevel,
  getLevel,
  kitchenLocations,
  levelTiming,
  recipeNodes,
  TAU_ALPHAS,
  toolsFor,
} from './levels.ts';

// The public MindAgent files, kept outside the project for testing only.
const DIR = fileURLToPath(new URL('../../../../shared/external-data/mindagent/', import.meta.url));
const hasData = existsSync(DIR);
if (!hasData) console.warn(`skipping CuisineWorld data comparisons: ${DIR} is absent`);
const readJson = (name: string) => JSON.parse(readFileSync(`${DIR}${name}`, 'utf8'));

type SourceLevel = {
  task_list: Record<string, unknown>;
  kitchen: string[];
  num_agents: number;
};

const sorted = (items: readonly string[]) => [...items].sort();

/** Our kitchen as the source writes it: one entry per location, storage and serving table included. */
function kitchenList(levelId: string): string[] {
  return sorted(kitchenLocations(getLevel(levelId)).map((l) => l.tool));
}

describe('CuisineWorld data', () => {
  it('has the paper’s counts: 10 location types, 27 base ingredients, 33 ordered dishes', () => {
    expect(TOOL_TYPES).toHaveLength(10);
    expect(new Set(BASE_INGREDIENTS).size).toBe(27);
    const ordered = new Set(LEVELS.filter((l) => l.source === 'final').flatMap((l) => l.dishes));
    expect(ordered.size).toBe(33);
    expect(LEVELS.filter((l) => l.class !== null)).toHaveLength(12);
    expect(RECIPES).toHaveLength(63);
    expect(new Set(RECIPES.map((r) => r.product)).size).toBe(63);
  });

  it('groups the levels into the paper’s four classes', () => {
    const byClass = (c: string) =>
      LEVELS.filter((l) => l.class === c)
        .map((l) => l.title)
        .join(' ');
    expect(byClass('very-simple')).toBe('L0 L1 L7');
    expect(byClass('simple')).toBe('L2 L4 L8');
    expect(byClass('intermediate')).toBe('L3 L9 L10');
    expect(byClass('advanced')).toBe('L5 L11 L12');
    expect(getLevel('L6').class).toBeNull();
  });

  it('only uses items it can make or fetch, and tools it knows', () => {
    const products = new Set(RECIPES.map((r) => r.product));
    for (const r of RECIPES) {
      expect(TOOLS[r.tool].role).toBe('cooking');
      for (const i of r.ingredients) {
        expect(products.has(i) || (BASE_INGREDIENTS as readonly string[]).includes(i)).toBe(true);
      }
    }
    for (const level of LEVELS)
      for (const dish of level.dishes) expect(products.has(dish)).toBe(true);
  });

  it.skipIf(!hasData)('matches recipe.json: every dish with the same tool and ingredients', () => {
    const source = readJson('recipe.json') as Record<
      string,
      { ingredients: string[]; location: string }
    >;
    expect(Object.keys(source)).toHaveLength(63);
    const ours = new Map(RECIPES.map((r) => [r.product, r]));
    for (const [dish, recipe] of Object.entries(source)) {
      const mine = ours.get(dish);
      expect(mine, dish).toBeDefined();
      expect(mine!.tool, dish).toBe(recipe.location);
      expect(sorted(mine!.ingredients), dish).toEqual(sorted(recipe.ingredients));
    }
  });

  it.skipIf(!hasData)(
    'matches tasks_level_final.json: same kitchens, dishes and agent counts',
    () => {
      const source = readJson('tasks_level_final.json') as Record<string, SourceLevel>;
      const finals = LEVELS.filter((l) => l.source === 'final');
      expect(finals.map((l) => l.id).sort()).toEqual(Object.keys(source).sort());
      for (const [id, level] of Object.entries(source)) {
        const mine = getLevel(id);
        expect(kitchenList(id), id).toEqual(sorted(level.kitchen));
        expect([...mine.dishes], id).toEqual(Object.keys(level.task_list));
        expect(mine.defaultAgents, id).toBe(level.num_agents);
      }
    },
  );

  it.skipIf(!hasData)(
    'keeps the older levels the recorded games ran on, which differ from the final ones',
    () => {
      const older = readJson('tasks_level.json') as Record<string, SourceLevel>;
      const final = readJson('tasks_level_final.json') as Record<string, SourceLevel>;
      for (const n of [1, 2]) {
        const source = older[`level_${n}`]!;
        const mine = getLevel(`trace_level_${n}`);
        expect(kitchenList(mine.id)).toEqual(sorted(source.kitchen));
        expect([...mine.dishes]).toEqual(Object.keys(source.task_list));
        expect(Object.keys(source.task_list)).not.toEqual(
          Object.keys(final[`level_${n}`]!.task_list),
        );
      }
    },
  );
});

describe('CuisineWorld levels', () => {
  it('finds levels by id or short name', () => {
    expect(findLevel('L3')?.id).toBe('level_3');
    expect(findLevel('3')?.id).toBe('level_3');
    expect(findLevel('level_12')?.title).toBe('L12');
    expect(findLevel('level_13')).toBeUndefined();
    expect(() => getLevel('nowhere')).toThrow(/unknown CuisineWorld level "nowhere"/);
  });

  it('names the kitchen’s locations by type and index', () => {
    expect(kitchenLocations(getLevel('level_3')).map((l) => l.id)).toEqual([
      'storage0',
      'servingtable0',
      'chopboard0',
      'chopboard1',
      'mixer0',
      'mixer1',
      'pot0',
      'pot1',
    ]);
  });

  it('flags L12’s French fries (no fryer) and L6 (in no paper table), and nothing else', () => {
    const issues = LEVELS.flatMap((l) => checkLevel(l));
    expect(issues.map((i) => `${i.level}:${i.kind}:${i.dish ?? ''}`)).toEqual([
      'level_6:not-in-paper:',
      'level_12:missing-tool:frenchFries',
    ]);
    expect(issues[1]!.message).toBe(
      'frenchFries needs fryer, which this kitchen does not have; its orders can only fail',
    );
    expect(toolsFor('smashedPotato').sort()).toEqual(['blender', 'chopboard', 'steamer']);
  });

  it('walks a recipe graph down to its base ingredients', () => {
    expect(recipeNodes('salmonSushi').sort()).toEqual(
      ['cookedRice', 'rice', 'salmon', 'salmonSashimi', 'salmonSushi'].sort(),
    );
  });

  it('times orders: wait = busy time + 3 per node; τ1…τ5 are α 1.0…3.0', () => {
    expect(TAU_ALPHAS).toEqual([1.0, 1.5, 2.0, 2.5, 3.0]);
    // salmonSushi: 5 nodes, a pot (3 busy steps, 2 of them waiting) → wait 17.
    expect(dishTiming('salmonSushi', 1.0)).toEqual({ waitTime: 17, lifetime: 13, interval: 6 });
    // The recorded games: meatcakes at α 2.2 (lifetime 17, every 7) and α 1.5 (12, every 5).
    expect(dishTiming('porkMeatcake', 2.2)).toMatchObject({ lifetime: 17, interval: 7 });
    expect(dishTiming('chickenMeatcake', 1.5)).toMatchObject({ lifetime: 12, interval: 5 });
    // A level adds orders at its slowest dish's pace.
    const l12 = getLevel('level_12');
    const timing = levelTiming(l12, 1.0);
    expect(timing.interval).toBe(5); // smashedPotato's; frenchFries alone would be every 3
    expect(timing.interval).toBe(Math.max(...l12.dishes.map((d) => dishTiming(d, 1.0).interval)));
    expect(timing.lifetimes).toEqual({ potatoSalad: 9, smashedPotato: 12, frenchFries: 8 });
  });

  it.skipIf(!hasData)(
    'matches derived-task-timing.json for all 63 dishes at every α it gives',
    () => {
      const derived = readJson('derived-task-timing.json') as {
        dishes: Record<
          string,
          Record<string, unknown> & { total_wait_time: number; dag_nodes: string[] }
        >;
      };
      const dishes = Object.entries(derived.dishes);
      expect(dishes).toHaveLength(63);
      let checked = 0;
      const alphas = new Set<number>();
      for (const [dish, row] of dishes) {
        expect(sorted(recipeNodes(dish)), dish).toEqual(sorted(row.dag_nodes));
        for (const [key, value] of Object.entries(row)) {
          const m = /^alpha_(\d+(?:\.\d+)?)$/.exec(key);
          if (!m) continue;
          const alpha = Number(m[1]);
          alphas.add(alpha);
          const t = dishTiming(dish, alpha);
          expect(t.waitTime, dish).toBe(row.total_wait_time);
          expect({ lifetime: t.lifetime, interval: t.interval }, `${dish} α=${alpha}`).toEqual(
            value,
          );
          checked++;
        }
      }
      expect([...alphas].sort()).toEqual([1.0, 1.5, 2.0, 2.2, 2.5, 3.0]);
      expect(checked).toBe(63 * 6);
    },
  );
});
