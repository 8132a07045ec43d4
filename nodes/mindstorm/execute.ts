import type { NodeExecutor } from '../../app/node-sdk/define.ts';

/** The loop itself is compiled into machine states (see ./states.ts); nothing runs here. */
export const execute: NodeExecutor = async () => ({});

/** What the engine calls between and after the rounds (see ./loop.ts). */
export { mindstormLoop as loop } from './loop.ts';
