import type { NodeExecutor } from '../../app/node-sdk/define.ts';

/** The graph a society node names runs in its place, as its members: it does nothing itself. */
export const execute: NodeExecutor = async () => ({});
