/**
 * What an agent instance was sent, read back from a run's event log: the `model.request` events
 * hold every message of every call exactly as it went out (images as `blob:` references), and
 * the matching `model.response` holds the answer and the tokens the provider counted. The
 * terminal debugger's `p INSTANCE` and the editor's context viewer are both views of this.
 */
import { estimateTokens } from '../providers/text.ts';
import type { ToolCall } from '../providers/tools.ts';
import type { ChatMessage } from '../providers/types.ts';
import type { RunEvent, ToolResultEditor } from './events.ts';

/** One message of a call, flattened to text, with a token estimate (about 4 characters each). */
export interface ContextMessage {
  role: ChatMessage['role'];
  text: string;
  /** Estimated tokens of the text; images are not counted (providers bill them by size). */
  tokens: number;
  /** How many images the message carried. */
  images: number;
  /** On an assistant message: the tools the model asked to call. */
  toolCalls?: ToolCall[];
  /** On a tool message: the call it answers. */
  toolCallId?: string;
  /** On a tool message: a person replaced the tool's result at the debugger; this was the tool's. */
  edited?: { original: string; by: ToolResultEditor };
}

/** One model call of an instance: what it was sent and, once answered, what came back. */
export interface ContextCall {
  callId: string;
  /** The `model.request` event's sequence number. */
  seq: number;
  node: string;
  instance: string;
  profile: string;
  provider: string;
  model: string;
  messages: ContextMessage[];
  /** The sum of the messages' estimates. */
  tokens: number;
  /** What came back, as the `model.response` event has it. */
  response?: Pick<
    Extract<RunEvent, { type: 'model.response' }>,
    'text' | 'promptTokens' | 'completionTokens' | 'costUsd' | 'source' | 'simulated' | 'toolCalls'
  >;
  /** The call failed (after its retries). */
  error?: string;
}

export interface AgentContext {
  /** The instance asked about, or the node id when every instance of a node was asked for. */
  instance: string;
  /** Every call the instance (or node) made, oldest first: the id and where it is in the log. */
  calls: Array<{ callId: string; seq: number; instance: string }>;
  /** The chosen call (the last one by default); absent when no call was made. */
  call?: ContextCall;
}

/**
 * The calls `instance` made (an instance id such as `member#1@r2`, or a node id for all of its
 * instances), and exactly what it was sent in `callId`, or in its last call.
 */
export function agentContext(
  events: readonly RunEvent[],
  instance: string,
  callId?: string,
): AgentContext {
  const requests = events.flatMap((e) =>
    e.type === 'model.request' && (e.instance === instance || e.node === instance) ? [e] : [],
  );
  const context: AgentContext = {
    instance,
    calls: requests.map((e) => ({ callId: e.callId, seq: e.seq, instance: e.instance })),
  };
  const chosen = callId === undefined ? requests.at(-1) : requests.find((e) => e.callId === callId);
  if (!chosen) return context;
  // The results a person replaced for this instance, oldest first: a tool message sent with one
  // is marked as edited (each edit marks one message).
  const edits = events.flatMap((e) =>
    e.type === 'tool.result' && e.edited && e.instance === chosen.instance ? [e] : [],
  );
  const messages = chosen.messages.map((m): ContextMessage => {
    const text = contentText(m);
    const at = m.role === 'tool' ? edits.findIndex((e) => e.result === text) : -1;
    const edit = at === -1 ? undefined : edits.splice(at, 1)[0];
    return {
      role: m.role,
      text,
      tokens: estimateTokens(text),
      images: typeof m.content === 'string' ? 0 : m.content.filter((p) => p.type !== 'text').length,
      ...(m.toolCalls?.length ? { toolCalls: m.toolCalls } : {}),
      ...(m.toolCallId !== undefined ? { toolCallId: m.toolCallId } : {}),
      ...(edit?.original !== undefined && edit.editedBy
        ? { edited: { original: edit.original, by: edit.editedBy } }
        : {}),
    };
  });
  const call: ContextCall = {
    callId: chosen.callId,
    seq: chosen.seq,
    node: chosen.node,
    instance: chosen.instance,
    profile: chosen.profile,
    provider: chosen.provider,
    model: chosen.model,
    messages,
    tokens: messages.reduce((n, m) => n + m.tokens, 0),
  };
  for (const e of events) {
    if (e.type === 'model.response' && e.callId === chosen.callId) {
      call.response = {
        text: e.text,
        promptTokens: e.promptTokens,
        completionTokens: e.completionTokens,
        ...(e.costUsd === undefined ? {} : { costUsd: e.costUsd }),
        source: e.source,
        simulated: e.simulated,
        ...(e.toolCalls?.length ? { toolCalls: e.toolCalls } : {}),
      };
    } else if (e.type === 'model.error' && e.callId === chosen.callId) call.error = e.error;
  }
  context.call = call;
  return context;
}

/** A message's text; each image part becomes a `[image MIME]` line where it was. */
export function contentText(m: ChatMessage): string {
  if (typeof m.content === 'string') return m.content;
  return m.content.map((p) => (p.type === 'text' ? p.text : `[image ${p.mime ?? ''}]`)).join('\n');
}
