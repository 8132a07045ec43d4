/**
 * The request bodies the server reads, as zod schemas: checked on the way in (a 400 naming the
 * first field that does not fit) and turned into the OpenAPI document's schemas.
 */
import { z } from 'zod';
import { RequestBudget } from './budget.ts';

/** `POST /societies/NAME/runs`: the run's inputs by name (files as base64 data URLs). */
export const RunRequest = z.strictObject({
  inputs: z
    .record(z.string(), z.unknown())
    .default({})
    .describe('values by input name; images and other files as data:MIME;base64,… URLs'),
  budget: RequestBudget.optional(),
});

const ContentPart = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  image_url: z
    .union([z.string(), z.looseObject({ url: z.string() })])
    .optional()
    .describe('an image as a data:MIME;base64,… URL (the server fetches no other URL)'),
});

const ChatMessage = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z.union([z.string(), z.array(ContentPart), z.null()]).optional(),
});

/** `POST /v1/chat/completions`, as OpenAI clients send it; fields a society has no use for are ignored. */
export const ChatRequest = z.looseObject({
  model: z.string().min(1).describe('the name of a served society'),
  messages: z.array(ChatMessage).min(1),
  stream: z.boolean().optional(),
  budget_usd: z
    .number()
    .positive()
    .optional()
    .describe('US dollars this request may spend (also header X-Society-Budget-Usd)'),
  budget: RequestBudget.optional(),
});
export type ChatRequest = z.infer<typeof ChatRequest>;

/** The text of a chat message's content (its text parts joined). */
export function messageText(content: z.infer<typeof ChatMessage>['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n');
}
