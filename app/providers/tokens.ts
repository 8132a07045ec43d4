/**
 * Token figures used where no server has counted: rough estimates for usage and budgets, and the
 * worst case an estimate before a run assumes for an image.
 */

/** About four characters make a token in English text. */
export const CHARS_PER_TOKEN = 4;

/**
 * What one image counts in a worst-case estimate. Images are billed by size; this is a large
 * image at high detail.
 */
export const IMAGE_TOKENS = 1105;
