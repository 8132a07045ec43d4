import type { NodeExecutor } from '../../app/node-sdk/define.ts';

/** The engine resolves run inputs (values, files, defaults) before the run and binds them here. */
export const execute: NodeExecutor = async (ctx) => ({ value: ctx.inputs.value });
