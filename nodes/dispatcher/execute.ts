import type { NodeExecutor } from '../../app/node-sdk/define.ts';
import { dispatch } from './dispatch.ts';
import type { DispatcherData } from './spec.ts';

export const execute: NodeExecutor<DispatcherData> = (ctx) => dispatch(ctx);
