/**
 * A chat's messages as a society's inputs (catalog.ts `chatFields` says which): the last user
 * message is the chat input; with a `history` input, the turns before it as a transcript, one
 * `User:` or `Assistant:` paragraph each; with a `system` input, the system and developer
 * messages. A society without such inputs is sent the last user message alone.
 */
import type { ChatFields } from './catalog.ts';
import { HttpError } from './errors.ts';
import { type ChatRequest, messageText } from './schemas.ts';

const SPEAKER: Record<string, string> = { user: 'User', assistant: 'Assistant' };

/** The run inputs `messages` give to society `name`, by input name. */
export function chatValues(
  name: string,
  fields: ChatFields,
  messages: ChatRequest['messages'],
): Record<string, string> {
  if (!fields.input)
    throw new HttpError(400, `society "${name}" has no text input to chat with`, 'model');
  if (!fields.output)
    throw new HttpError(400, `society "${name}" has no output to answer a chat with`, 'model');
  const last = messages.findLastIndex((m) => m.role === 'user');
  if (last < 0) throw new HttpError(400, 'no user message to answer', 'messages');
  const values: Record<string, string> = { [fields.input]: messageText(messages[last]!.content) };
  if (fields.history)
    values[fields.history] = messages
      .slice(0, last)
      .filter((m) => SPEAKER[m.role] && messageText(m.content).trim())
      .map((m) => `${SPEAKER[m.role]}: ${messageText(m.content).trim()}`)
      .join('\n\n');
  if (fields.system)
    values[fields.system] = messages
      .filter((m) => m.role === 'system' || m.role === 'developer')
      .map((m) => messageText(m.content).trim())
      .filter(Boolean)
      .join('\n\n');
  return values;
}
