/** Reading model answers: the post-processing an agent's `parse` setting selects. */
import { isSimulatedText, simulatedPrefix } from '../../app/schema/simulated.ts';
import type { AgentData } from './spec.ts';

export class AnswerFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AnswerFormatError';
  }
}

/** Strips the simulated provider's label so parsing sees the answer itself. */
function unlabelled(text: string): string {
  return text.replace(/^\[simulated\]\s*/, '');
}

export function parseAnswer(text: string, mode: AgentData['parse']): unknown {
  switch (mode) {
    case 'text':
      return text.trim();
    case 'question': {
      // NLSOM cuts the organizer's output at the first "?" so chatter after the question is dropped.
      const trimmed = text.trim();
      const end = trimmed.indexOf('?');
      return end === -1 ? `${trimmed}?` : trimmed.slice(0, end + 1);
    }
    case 'choice': {
      const body = unlabelled(text);
      const match = /\(([a-z])\)/i.exec(body) ?? /(?:^|\s)([a-e])[).:]?(?:\s|$)/i.exec(body.trim());
      if (!match) return text.trim();
      const letter = match[1]!.toLowerCase();
      return `${simulatedPrefix(isSimulatedText(text))}(${letter})`;
    }
    case 'json': {
      const body = unlabelled(text).trim();
      const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(body);
      const candidate = fenced ? fenced[1]! : body;
      try {
        return JSON.parse(candidate);
      } catch {
        throw new AnswerFormatError(
          `the model did not answer with JSON: ${candidate.slice(0, 80)}`,
        );
      }
    }
    case 'lines':
      return text
        .split('\n')
        .map((l) => l.replace(/^\s*(?:[-*•]|\d+[.)])\s*/, '').trim())
        .filter(Boolean);
    default:
      return mode satisfies never;
  }
}
