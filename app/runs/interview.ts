/**
 * Interviewing a member: a question put to one agent of a run in its own context at a point —
 * the system prompt and the messages it had been sent up to that call, and the answer it gave —
 * answered by the same model profile through the normal provider path, and recorded in the
 * store as a side call (the `interviews` table). The run itself is never touched: no event, no
 * entry in its call record, no budget, no call id; so its outputs, its later calls, replay,
 * resume, forks and analytics are exactly as they would be without the question.
 */
import { imageFacts } from '../imageops/simulated-vision.ts';
import { resolveProviderProfile } from '../providers/profiles.ts';
import { createChatProvider } from '../providers/registry.ts';
import { SimulatedProvider } from '../providers/simulated.ts';
import type { ChatMessage, ChatProvider, ChatRequest } from '../providers/types.ts';
import type { RunEvent } from '../runtime/events.ts';
import type { RunOptions } from '../runtime/run-options.ts';
import type { GraphDocument } from '../schema/document.ts';
import type { InterviewRecord, RunStore } from '../store/index.ts';

type RequestEvent = Extract<RunEvent, { type: 'model.request' }>;
type ResponseEvent = Extract<RunEvent, { type: 'model.response' }>;

/** A question that cannot be asked (no such member, no call yet): one line for the user. */
export class InterviewError extends Error {
  override name = 'InterviewError';
}

/**
 * Splits `member#2@r3` into the member (`member#2`) and the point (`r3`); without `@` the point
 * is the member's latest call.
 */
export function parseInterviewTarget(spec: string): { member: string; at?: string } {
  const text = spec.trim();
  if (!text) throw new InterviewError('name the member to ask, e.g. member#2@r3');
  const at = text.lastIndexOf('@');
  if (at <= 0) return { member: text };
  const point = text.slice(at + 1);
  return point && point !== 'latest'
    ? { member: text.slice(0, at), at: point }
    : { member: text.slice(0, at) };
}

/**
 * The call whose context a question about `member` at `at` is asked in: that instance's last
 * call (`member#2@r3`), or without `at` the member's latest call in any round (`member#2@r…`,
 * or every instance of a node named `member`).
 */
export function interviewedCall(
  events: readonly RunEvent[],
  member: string,
  at?: string,
): { request: RequestEvent; response?: ResponseEvent } {
  const instance = at === undefined ? undefined : `${member}@${at}`;
  const request = events.findLast(
    (e): e is RequestEvent =>
      e.type === 'model.request' &&
      (instance !== undefined
        ? e.instance === instance
        : e.instance === member || e.instance.startsWith(`${member}@`) || e.node === member),
  );
  if (!request) {
    const known = [
      ...new Set(events.flatMap((e) => (e.type === 'model.request' ? [e.instance] : []))),
    ];
    throw new InterviewError(
      `${instance ?? member} has made no model call${known.length ? ` (members with calls: ${known.join(', ')})` : ' yet'}`,
    );
  }
  const response = events.find(
    (e): e is ResponseEvent => e.type === 'model.response' && e.callId === request.callId,
  );
  return response ? { request, response } : { request };
}

/**
 * What the member is sent: every message of its call as it went out (images read back from
 * `blob`), its answer when it gave one, then the question as a user message.
 */
export function interviewMessages(
  request: RequestEvent,
  response: ResponseEvent | undefined,
  question: string,
  blob: (hash: string) => { bytes: Uint8Array; mime: string } | undefined = () => undefined,
): ChatMessage[] {
  const messages = request.messages.map((m): ChatMessage => {
    if (typeof m.content === 'string') return m;
    return {
      ...m,
      content: m.content.map((part) => {
        if (part.type !== 'image') return part;
        // The log holds `blob:HASH`; the provider needs the picture itself.
        const hash = part.sha256 ?? part.url.replace(/^blob:/, '');
        const found = blob(hash);
        if (!found) return { type: 'text', text: `[image ${part.mime ?? ''} not kept]` };
        return {
          type: 'image',
          url: `data:${found.mime};base64,${Buffer.from(found.bytes).toString('base64')}`,
          mime: found.mime,
          sha256: hash,
        };
      }),
    };
  });
  if (response && (response.text || response.toolCalls?.length)) {
    messages.push({
      role: 'assistant',
      content: response.text,
      ...(response.toolCalls?.length ? { toolCalls: response.toolCalls } : {}),
    });
  }
  messages.push({ role: 'user', content: question });
  return messages;
}

/** How the question is answered: the run's own provider settings. */
export type InterviewProviders = Pick<
  RunOptions,
  'simulate' | 'providerFor' | 'providerOverrides' | 'env'
>;

/**
 * The provider a run's calls to `providerName` went to, made the way the run makes it (keys
 * from the environment the profile names, never from the caller): the simulator under
 * `simulate`, an injected one, or the live profile.
 */
export function interviewProvider(providerName: string, options: InterviewProviders): ChatProvider {
  if (options.simulate) return new SimulatedProvider({ id: 'simulated', see: imageFacts });
  const injected = options.providerFor?.(providerName);
  if (injected) return injected;
  const env = options.env ?? process.env;
  return createChatProvider(
    resolveProviderProfile(providerName, { env, overrides: options.providerOverrides }),
    env,
    { see: imageFacts },
  );
}

/** The run an interview is about: its id, its log so far, its document and its store. */
export interface InterviewedRun {
  runId: string;
  events: readonly RunEvent[];
  /** The document as bound (its `models` say which provider and settings each profile has). */
  doc: GraphDocument;
  store: RunStore;
  /** Images the member was shown, by hash. */
  blob?: (hash: string) => { bytes: Uint8Array; mime: string } | undefined;
}

/**
 * Asks `member` (at `at`, a round such as `r3`, or its latest call) `question` in its own
 * context, with one call through the provider its calls used, and records the question and
 * answer as a side call of the run. The run is not touched.
 */
export async function interview(
  run: InterviewedRun,
  member: string,
  at: string | undefined,
  question: string,
  providers: InterviewProviders,
  signal: AbortSignal = new AbortController().signal,
): Promise<InterviewRecord> {
  if (!question.trim()) throw new InterviewError('the question is empty');
  const { request, response } = interviewedCall(run.events, member, at);
  const profile = run.doc.models?.[request.profile];
  if (!profile)
    throw new InterviewError(`model profile "${request.profile}" is not in the document`);
  const chat: ChatRequest = {
    model: profile.model,
    messages: interviewMessages(request, response, question, run.blob),
    ...(profile.temperature !== undefined ? { temperature: profile.temperature } : {}),
    ...(profile.maxTokens !== undefined ? { maxTokens: profile.maxTokens } : {}),
  };
  const provider = interviewProvider(profile.provider, providers);
  const result = await provider.chat(chat, { signal });
  const simulated = result.simulated === true || providers.simulate === true;
  return run.store.interviews.add({
    runId: run.runId,
    instance: request.instance,
    callId: request.callId,
    atSeq: request.seq,
    question,
    answer: result.text,
    profile: request.profile,
    provider: simulated ? 'simulated' : profile.provider,
    model: result.model || profile.model,
    simulated,
    promptTokens: result.usage.promptTokens,
    completionTokens: result.usage.completionTokens,
  });
}

/** One interview as the terminal shows it. */
export function describeInterview(record: InterviewRecord): string {
  const label = record.simulated ? ' (simulated)' : '';
  return [
    `side call #${record.id} to ${record.instance} (in the context of call ${record.callId}, event ${record.atSeq}; ${record.simulated ? `simulated in place of ${record.model}` : `${record.provider} ${record.model}`}, ${record.promptTokens} + ${record.completionTokens} tokens; not part of the run)`,
    `Q: ${record.question}`,
    `A${label}: ${record.answer}`,
  ].join('\n');
}
