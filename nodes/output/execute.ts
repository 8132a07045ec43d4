import type { NodeExecutor } from '../../app/node-sdk/define.ts';

/** The engine reads output nodes' `value` when the run ends. */
export const execute: NodeExecutor = async (ctx) => ({ value: ctx.inputs.value });
