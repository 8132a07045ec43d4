/**
 * Small text helpers shared by the providers: flattening message content, rough token
 * estimates for servers that report no usage, and word chunking for simulated streaming.
 */
import { CHARS_PER_TOKEN } from './tokens.ts';
import type { ChatMessage, ChatRequest } from './types.ts';

/** The text of a message, with the text parts of a multimodal message joined by newlines. */
export function messageText(message: ChatMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

/** The text of the last user message, or '' when there is none. */
export function lastUserText(request: ChatRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i];
    if (message?.role === 'user') return messageText(message);
  }
  return '';
}

/**
 * A rough token count: about four characters per token for English text. Only used when a
 * server sends no usage, so budgets still move instead of silently staying at zero.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Estimated prompt tokens of a request: the text of every message, images not counted. */
export function estimatePromptTokens(request: ChatRequest): number {
  // The length of the texts joined by newlines, counted without joining them: every call asks.
  let length = Math.max(0, request.messages.length - 1);
  for (const message of request.messages) length += messageText(message).length;
  return Math.ceil(length / CHARS_PER_TOKEN);
}

/** Split text into word-sized fragments (each keeps its trailing spaces) for streaming. */
export function chunkWords(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text ? [text] : []);
}

/** Shorten text to at most `max` characters on one line, marking the cut with an ellipsis. */
export function clip(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 1)}…`;
}
