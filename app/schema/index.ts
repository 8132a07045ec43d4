export * from './document.ts';
export * from './migrations.ts';
export * from './modality.ts';
export * from './node-versions.ts';
export * from './params.ts';
export * from './parse.ts';
export * from './problems.ts';
