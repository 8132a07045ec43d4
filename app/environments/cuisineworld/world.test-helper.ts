/** What CuisineWorld's tests share: a quiet world, clean steps, a single refusal, lookups. */
import { expect } from 'vitest';
import type { Rejection } from '../types.ts';
import { type CuisineOptions, CuisineWorld } from './world.ts';

/** A quiet world: one order that stays open, none arriving (unless the test says otherwise). */
export function world(level = 'level_0', agents = 2, options: CuisineOptions = {}, maxSteps = 60) {
  return new CuisineWorld({
    level,
    agents,
    seed: 7,
    maxSteps,
    options: { lifetime: 50, interval: 0, ...options } as Record<string, unknown>,
  });
}

/** Plays steps that must all run cleanly. */
export function play(w: CuisineWorld, ...steps: string[][]) {
  for (const commands of steps) {
    const result = w.step(commands);
    expect(result.validation.rejections, commands.join(' ')).toEqual([]);
  }
}

/** The one refusal a step gets, checked both by validate() and by step(). */
export function refusal(w: CuisineWorld, commands: string[]): Omit<Rejection, 'command' | 'agent'> {
  const validation = w.validate(commands);
  expect(validation.ok).toBe(false);
  expect(validation.rejections).toHaveLength(1);
  const result = w.step(commands);
  expect(result.validation).toEqual(validation);
  expect(result.feedback).toContain(validation.rejections[0]!.message);
  const { stage, reason, message } = validation.rejections[0]!;
  return { stage, reason, message };
}

/** An agent of the world, by id. */
export const at = (w: CuisineWorld, agent: string) => w.view().agents.find((a) => a.id === agent)!;
/** A place of the kitchen, by id. */
export const place = (w: CuisineWorld, id: string) => w.view().places.find((p) => p.id === id)!;

/** L0: agent0 brings salmon and agent1 flour to blender0 (3 steps). */
export function loadBlender(w: CuisineWorld) {
  play(
    w,
    ['goto_agent0_storage0', 'goto_agent1_storage0'],
    ['get_agent0_salmon_storage0', 'get_agent1_flour_storage0'],
    ['goto_agent0_blender0', 'goto_agent1_blender0'],
    ['put_agent0_blender0', 'put_agent1_blender0'],
  );
}
