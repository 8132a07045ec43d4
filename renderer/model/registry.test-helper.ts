import { SPECS } from './registry.ts';

export const registryTypes = (): string[] => [...SPECS.keys()];
