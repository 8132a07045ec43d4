import type { NodeExecutor } from '../../app/nodes/define.ts';

/** The loop itself is compiled into machine states (see app/compiler); nothing runs here. */
export const execute: NodeExecutor = async () => ({});
