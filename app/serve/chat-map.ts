/**
 * A chat's messages as a society's inputs (catalog.ts `chatFields` says which): the last user
 * message is the chat input; with a `history` input, the turns before it as a transcript, one
 * `User:` or `Assistant:` paragraph each; with a `system` input, the system and developer
 * messages; with an `image` input, the last user message's first image. A society without such
 * inputs is sent the last user message alone.
 */
import type { ChatFields } from './catalog.ts';
import { HttpError } from './errors.ts';
import { type ChatRequest, messageText } from './schemas.ts';

const SPEAKER: Record<string, string> = { user: 'User', assistant: 'Assistant' };

/** The run inputs a chat gives, and the request field each came from (for a refusal to name). */
export interface ChatValues {
  values: Record<string, string>;
  /** By input name: `messages.N.content`, `messages.N.content.M.image_url`, `messages`. */
  fields: Record<string, string>;
}

/**
 * The run inputs `messages` give to society `name`, by input name. `imageOptional`: the image
 * input has a default, so a chat without an image may leave it out.
 */
export function chatValues(
  name: string,
  fields: ChatFields,
  messages: ChatRequest['messages'],
  imageOptional = false,
): ChatValues {
  if (!fields.input)
    throw new HttpError(400, `society "${name}" has no text input to chat with`, 'model');
  if (!fields.output)
    throw new HttpError(400, `society "${name}" has no output to answer a chat with`, 'model');
  const last = messages.findLastIndex((m) => m.role === 'user');
  if (last < 0) throw new HttpError(400, 'no user message to answer', 'messages');
  const values: Record<string, string> = { [fields.input]: messageText(messages[last]!.content) };
  const from: Record<string, string> = { [fields.input]: `messages.${last}.content` };
  if (fields.history) {
    values[fields.history] = messages
      .slice(0, last)
      .filter((m) => SPEAKER[m.role] && messageText(m.content).trim())
      .map((m) => `${SPEAKER[m.role]}: ${messageText(m.content).trim()}`)
      .join('\n\n');
    from[fields.history] = 'messages';
  }
  if (fields.system) {
    values[fields.system] = messages
      .filter((m) => m.role === 'system' || m.role === 'developer')
      .map((m) => messageText(m.content).trim())
      .filter(Boolean)
      .join('\n\n');
    from[fields.system] = 'messages';
  }
  if (fields.image) {
    const image = firstImage(messages[last]!.content, last);
    if (image) {
      values[fields.image] = image.url;
      from[fields.image] = image.field;
    } else if (!imageOptional)
      throw new HttpError(
        400,
        `society "${name}" answers about an image: send one in the last user message, as an image_url part holding a data: URL`,
        `messages.${last}.content`,
      );
  }
  return { values, fields: from };
}

/**
 * The first image part of a message's content, as its data URL and the field it came in. Any
 * other URL is refused: the server does not fetch what a request points it at.
 */
function firstImage(
  content: ChatRequest['messages'][number]['content'],
  index: number,
): { url: string; field: string } | undefined {
  if (!Array.isArray(content)) return undefined;
  const at = content.findIndex((part) => part.type === 'image_url');
  if (at < 0) return undefined;
  const field = `messages.${index}.content.${at}.image_url`;
  const given = content[at]!.image_url;
  const url = typeof given === 'string' ? given : given?.url;
  if (typeof url !== 'string' || !/^data:/i.test(url))
    throw new HttpError(
      400,
      'an image must come as a data: URL (data:image/png;base64,…): the server fetches no other URL',
      field,
    );
  return { url, field };
}
