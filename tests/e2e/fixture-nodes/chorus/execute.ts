import { formatTranscript, type NodeExecutor } from '../../../../app/node-sdk/define.ts';
import type { LoopRuntime, LoopStepContext, NodeValues } from '../../../../app/node-sdk/loop.ts';
import type { ChorusData } from './spec.ts';

/** The rounds are machine states (see spec.ts); nothing runs for the chorus node itself. */
export const execute: NodeExecutor = async () => ({});

/** What the engine calls after each round and when the chorus ends. */
export const loop: LoopRuntime<ChorusData> = {
  stopReason(data, current) {
    const word = data.until.trim().toLowerCase();
    if (!word) return undefined;
    for (const [node, values] of Object.entries(current)) {
      if (saidIn(values).some((text) => wordsOf(text).includes(word)))
        return `"${node}" said "${data.until.trim()}"`;
    }
    return undefined;
  },

  view: () => ({}),

  steps: { close },

  outputs({ state, transcript }) {
    return {
      transcript: formatTranscript(transcript),
      rounds: state.round,
      text: typeof state.memo?.text === 'string' ? state.memo.text : '',
    };
  },
};

/** After the last round: the closing line, rendered with the chorus's own inputs. */
async function close(ctx: LoopStepContext<ChorusData>) {
  const text = ctx.data.closing ? await ctx.render(ctx.loop, ctx.data.closing, 'closing') : '';
  return { memo: { text } };
}

/** Every text a node gave this round (one per replica), whatever its ports are called. */
function saidIn(values: NodeValues): string[] {
  return Object.entries(values)
    .filter(([port]) => port !== '$instances')
    .flatMap(([, v]) => (Array.isArray(v) ? v : [v]))
    .filter((v): v is string => typeof v === 'string');
}

/** Lower-case words, so "done" is said in "All done." but not in "undone". */
function wordsOf(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u);
}
