import type { NodeExecutor } from '../../app/node-sdk/define.ts';

/** Groups have no behaviour of their own: the compiler runs their members as a child machine. */
export const execute: NodeExecutor = async () => ({});
