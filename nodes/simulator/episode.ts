/**
 * The episode a simulator node carries from round to round: where it stands as the environment
 * reports it (an outside simulator's URL and session first), the last step's view and reward,
 * and what the environment saved to go on from it. It is a plain JSON value on the node's
 * `episode` output, so it goes round to round over a previousRound edge, is stored with the run
 * like any output, and is read back here with a schema (a value that is not one of ours fails
 * with its field named).
 */
import { z } from 'zod';
import { isSimulatedText, SIMULATED_LABEL } from '../../app/schema/simulated.ts';

// Loose: where the episode stands (`url`, `session`) is the environment's to say.
export const episodeValue = z.looseObject({
  /** Steps played so far. */
  step: z.number().int().min(0),
  done: z.boolean(),
  /** True when the episode ended at its maxSteps, not by the world's own end. */
  truncated: z.boolean().default(false),
  observation: z.string(),
  actions: z.array(z.string()),
  /** The last step's reward (0 before the first). */
  reward: z.number(),
  /** Every reward so far, summed. */
  totalReward: z.number(),
  state: z.record(z.string(), z.unknown()),
  /** True once an action came from a made-up (simulated) answer. */
  simulated: z.boolean().default(false),
  /**
   * What the environment saved, to go on from (`EnvironmentEpisode.save`). An outside
   * simulator's episode from before there was one is itself what it saved.
   */
  saved: z.unknown().optional(),
});
export type Episode = z.infer<typeof episodeValue>;

/** The node's outputs for an episode, as its ports name them. */
export function episodeOutputs(episode: Episode): Record<string, unknown> {
  return {
    observation: episode.observation,
    actions: episode.actions,
    reward: episode.reward,
    done: episode.done,
    state: episode.state,
    episode,
  };
}

/**
 * The action to send, read from the `action` input: the simulated label taken off (and noted),
 * and an option letter, `(b)` or `b` as an agent answering a choice gives it, read as that item
 * of the actions the simulator last offered, unless the simulator offers the letter itself.
 */
export function readAction(
  value: unknown,
  offered: readonly string[],
): { action: string; simulated: boolean } | undefined {
  if (value === undefined || value === null) return undefined;
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  const simulated = isSimulatedText(text);
  if (simulated) text = text.slice(SIMULATED_LABEL.length);
  text = text.trim();
  if (text === '') return undefined;
  const letter = /^\(?([a-z])\)?$/i.exec(text)?.[1];
  if (letter && !offered.includes(text)) {
    const chosen = offered[letter.toLowerCase().charCodeAt(0) - 97];
    if (chosen !== undefined) return { action: chosen, simulated };
  }
  return { action: text, simulated };
}
