/**
 * The label of made-up answers. Everything the simulated chat and expert providers say starts
 * with it, and so do the texts nodes build from simulated answers, so a simulated run can never
 * pass for a real model's words anywhere it is shown: terminal, store, export or page.
 */

/** The label itself, as texts and labels start with it. */
export const SIMULATED_LABEL = '[simulated]';

/** The label and its space, as it leads a text. */
export const SIMULATED_PREFIX = `${SIMULATED_LABEL} `;

/** True when `text` is labelled as made up. */
export function isSimulatedText(text: string): boolean {
  return text.startsWith(SIMULATED_LABEL);
}

/** The prefix a text takes when it was made from simulated answers: the label, or nothing. */
export function simulatedPrefix(simulated: boolean | undefined): string {
  return simulated ? SIMULATED_PREFIX : '';
}
