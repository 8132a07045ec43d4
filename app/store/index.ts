/** The durable run store: `openRunStore(defaultDatabasePath())`. */
export {
  MIGRATIONS,
  type Migration,
  migrate,
  NewerSchemaError,
  SCHEMA_VERSION,
} from './migrations.ts';
export { defaultDatabasePath } from './paths.ts';
export {
  findSecret,
  isSecretFieldName,
  keyShapedPath,
  looksLikeKey,
  parseProviderProfile,
  SecretRefusedError,
} from './secrets.ts';
export {
  AmbiguousEvalIdError,
  AmbiguousRunIdError,
  type EvalItemUpdate,
  type EventQuery,
  type GraphSummary,
  type GraphVersion,
  graphHash,
  type ImportedRun,
  type ImportOutcome,
  type InterviewRecord,
  type ListRunsOptions,
  type NewEval,
  type NewRun,
  newRunId,
  openRunStore,
  processAlive,
  type RunFinish,
  type RunOwner,
  type RunRecord,
  RunStore,
  type RunSummary,
  type SavedGraph,
  type StoredPrice,
  type StoredRunStatus,
  thisProcess,
} from './store.ts';
export {
  DURABLE_EVENT_TYPES,
  type EventWriter,
  type EventWriterOptions,
  isDurableByDefault,
  isSoonByDefault,
} from './writer.ts';
