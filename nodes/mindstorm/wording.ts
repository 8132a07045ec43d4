/**
 * The words a mindstorm puts around its members' turns when they use a right (NLSOM, App. E.5):
 * what the right to know shows before a member's prompt, the question the right to change asks,
 * and the ballot the right to execute hands out. They are Liquid templates in the mindstorm's
 * data (`prompts`), so a society can reword them; the defaults are our own wording.
 */
import { z } from 'zod';

/**
 * Right to know, from round 2: `question` (what the members were asked in the previous round),
 * `answers` (every member's answer then: `from`, `text`), `prompt` (the member's own prompt this
 * round, as rendered), `round` (this round).
 */
export const DEFAULT_KNOW =
  'Context from the previous round. Question: {{ question }} {% for a in answers %}Answer {{ forloop.index }}: {{ a.text }}{% unless forloop.last %}; {% endunless %}{% endfor %}.\n\n{{ prompt }}';

/**
 * Right to change, once per round after the last: `question` (what the member was asked that
 * round), `options` (every member's answer to it, the member's own among them), `round`.
 */
export const DEFAULT_CHANGE =
  'Question: {{ question }}\nThese answers were given by you and your colleagues:\n{{ options | lettered: "\\n" }}\nYou may keep your answer or adopt a better one. Reply with the answer itself, nothing else.';

/** Right to execute: `prompt` (the leader's question, as rendered for the leader). */
export const DEFAULT_EXECUTE = '{{ prompt }}';

const liquid = (lines: number) => ({ editor: 'code' as const, language: 'liquid' as const, lines });

/** The wording of the rights, each a template over the variables documented above. */
export const mindstormPrompts = z
  .strictObject({
    /** Shown to a member with the right to know, around its own prompt. */
    know: z.string().min(1).default(DEFAULT_KNOW).meta(liquid(4)),
    /** Asked of a member with the right to change, for each round's question. */
    change: z.string().min(1).default(DEFAULT_CHANGE).meta(liquid(4)),
    /** The ballot a member with the right to execute answers. */
    execute: z.string().min(1).default(DEFAULT_EXECUTE).meta(liquid(2)),
  })
  .default({ know: DEFAULT_KNOW, change: DEFAULT_CHANGE, execute: DEFAULT_EXECUTE });
export type MindstormPrompts = z.infer<typeof mindstormPrompts>;
