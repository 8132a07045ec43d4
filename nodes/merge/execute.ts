import type { NodeExecutor } from '../../app/node-sdk/define.ts';
import { type MergeData, mergePorts } from './spec.ts';

export const execute: NodeExecutor<MergeData> = async (ctx) => {
  // A port on a branch not taken (or left unconnected) is absent from the inputs.
  const from = mergePorts(ctx.data.inputs).filter((port) => ctx.inputs[port] !== undefined);
  const values = from.map((port) => ctx.inputs[port]);
  return { value: ctx.data.mode === 'first' ? (values[0] ?? null) : values, from };
};
