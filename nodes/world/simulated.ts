/**
 * A simulated agent's turn in a text world: it reads the actions its prompt lists and picks
 * one, as the simulated provider's draw decides. Only simulated runs use it; a real model
 * never sees it.
 */
import type { ChatRequest } from '../../app/providers/types.ts';

const VERB = /^(?:go to|leave|take|put|use|chat with|rest\b)/i;
const LISTED = /^\s*(?:\d{1,3}[.)]|[-*•])\s+(.+?)\s*$/;

/** "Thought: … / Action: …" with an action from the prompt's list, or `rest` when it has none. */
export function simulatedAction(request: ChatRequest, draw: (n: number) => number): string {
  const prompt = lastUserText(request);
  const listed = prompt
    .split('\n')
    .map((line) => LISTED.exec(line)?.[1])
    .filter((text): text is string => text !== undefined && VERB.test(text));
  const choices = [...new Set(listed)];
  // Someone to talk to is hard to pass by: a chat is chosen half the time when one is offered.
  const chats = choices.filter((c) => /^chat with /i.test(c));
  const pool = chats.length > 0 && draw(2) === 0 ? chats : choices;
  let action = pool.length > 0 ? pool[draw(pool.length)]! : 'rest';
  if (/^chat with /i.test(action) && !action.includes(':')) {
    const who = action.slice('chat with '.length);
    action = `${action}: ${GREETINGS[draw(GREETINGS.length)]!.replace('{who}', who)}`;
  }
  return `Thought: I will ${action.split(':')[0]!.toLowerCase()}.\nAction: ${action}`;
}

const GREETINGS = [
  'Hello {who}, how is your day going?',
  '{who}, have you seen anything interesting around here?',
  'Good to see you, {who}. Shall we look around together?',
  '{who}, what are you working on?',
];

/**
 * The prompt a simulated agent answers. Written here rather than imported from app/providers:
 * this module reaches the editor through the spec, and neither node types nor the editor reach
 * the providers.
 */
function lastUserText(request: ChatRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i]!;
    if (message.role !== 'user') continue;
    if (typeof message.content === 'string') return message.content;
    return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  }
  return '';
}
