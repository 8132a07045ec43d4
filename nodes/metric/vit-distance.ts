/**
 * OpenAGI's image score (`image_similarity` in `research/benchmark_tasks/agi_utils.py` at
 * 22190c5, and the evaluation loops that divide it by 100): both pictures go through
 * `nateraw/vit-base-beans` (`AutoModel`, so a `ViTModel`), its first output, the last hidden
 * state (one 768-number vector for the class token and each of the 196 patches), is taken for
 * each, and the score is the Frobenius norm of their difference, divided by 100. It is a
 * distance: 0 for the same picture, and lower is better.
 */

/** The divisor OpenAGI's evaluation loops apply (`task_rewards.append(dist/100)`). */
export const VIT_DISTANCE_DIVISOR = 100;

/**
 * ‖A − B‖_F / 100 for two pictures' hidden states, one row per token (class token and patches).
 * Throws when the two are not the same shape.
 */
export function vitDistance(
  prediction: readonly (readonly number[])[],
  reference: readonly (readonly number[])[],
): number {
  if (prediction.length !== reference.length) {
    throw new Error(
      `the two pictures gave ${prediction.length} and ${reference.length} hidden-state vectors; the distance needs the same number`,
    );
  }
  let sum = 0;
  prediction.forEach((row, i) => {
    const other = reference[i]!;
    if (row.length !== other.length) {
      throw new Error(`hidden-state vectors of ${row.length} and ${other.length} numbers`);
    }
    for (let j = 0; j < row.length; j++) sum += (row[j]! - other[j]!) ** 2;
  });
  return Math.sqrt(sum) / VIT_DISTANCE_DIVISOR;
}
