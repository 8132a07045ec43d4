/**
 * Schema migrations of the run store. `PRAGMA user_version` counts the steps applied, so step i
 * (0-based) takes a database from version i to i + 1. Steps are only ever appended: a released
 * step is never edited, because databases in the wild already ran it.
 */
import type Database from 'better-sqlite3';

/** One schema step. */
export interface Migration {
  /** What the step does, shown when it fails. */
  name: string;
  sql: string;
}

/**
 * Tables are STRICT so a wrong type (a float time, a number where JSON text belongs) fails at
 * the insert instead of being stored quietly. JSON columns are TEXT holding `JSON.stringify`.
 * Times are integer milliseconds since the epoch, like `Date.now()` and `RunEvent.time`.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    name: 'initial schema',
    sql: `
CREATE TABLE graphs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE graph_versions (
  graph_id TEXT NOT NULL REFERENCES graphs (id) ON DELETE CASCADE,
  version INTEGER NOT NULL CHECK (version >= 1),
  hash TEXT NOT NULL,
  document TEXT NOT NULL,
  saved_at INTEGER NOT NULL,
  PRIMARY KEY (graph_id, version)
) STRICT;

CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  graph_name TEXT NOT NULL,
  graph_hash TEXT NOT NULL,
  document TEXT NOT NULL,
  compiler_version INTEGER NOT NULL,
  mode TEXT NOT NULL,
  inputs TEXT NOT NULL,
  status TEXT NOT NULL
    CHECK (status IN ('running', 'succeeded', 'failed', 'cancelled', 'interrupted')),
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  outputs TEXT,
  usage TEXT,
  cost_usd REAL,
  error TEXT,
  parent_run_id TEXT REFERENCES runs (id) ON DELETE SET NULL,
  fork_seq INTEGER,
  owner_pid INTEGER,
  owner_host TEXT
) STRICT;
CREATE INDEX runs_by_start ON runs (started_at DESC);
CREATE INDEX runs_by_graph ON runs (graph_name, started_at DESC);
CREATE INDEX runs_running ON runs (status) WHERE status = 'running';
-- Without it, deleting a run scans every run to clear parent_run_id of its forks.
CREATE INDEX runs_by_parent ON runs (parent_run_id) WHERE parent_run_id IS NOT NULL;

CREATE TABLE events (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL CHECK (seq >= 0),
  type TEXT NOT NULL,
  time INTEGER NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
) STRICT;
-- The log is append-only: a duplicate (run_id, seq) already fails on the primary key, and these
-- stop rewrites. Deleting the whole run (which cascades here) stays possible.
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN
  SELECT RAISE(ABORT, 'events are append-only');
END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
WHEN EXISTS (SELECT 1 FROM runs WHERE id = OLD.run_id)
BEGIN
  SELECT RAISE(ABORT, 'events are append-only: delete the run instead');
END;

CREATE TABLE snapshots (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL CHECK (seq >= 0),
  state TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
) STRICT;

CREATE TABLE calls (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  request TEXT NOT NULL,
  responses TEXT NOT NULL,
  PRIMARY KEY (run_id, key)
) STRICT;

CREATE TABLE blobs (
  sha256 TEXT PRIMARY KEY,
  mime TEXT NOT NULL,
  bytes BLOB NOT NULL
) STRICT;

CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE prices (
  model TEXT PRIMARY KEY,
  input_per_million REAL NOT NULL CHECK (input_per_million >= 0),
  output_per_million REAL NOT NULL CHECK (output_per_million >= 0),
  updated_at INTEGER NOT NULL
) STRICT;

-- No column can hold a key: a profile names the environment variable that does.
CREATE TABLE provider_profiles (
  name TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  base_url TEXT,
  api_key_env TEXT,
  concurrency INTEGER CHECK (concurrency IS NULL OR concurrency >= 1)
) STRICT;
`,
  },
  {
    name: 'evaluations',
    sql: `
-- An eval: a document run over a dataset, per variant. Its id derives from what it runs, so
-- running the same eval again reopens it.
CREATE TABLE evals (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  config TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted', 'over-budget')),
  items INTEGER NOT NULL CHECK (items >= 0),
  simulated INTEGER NOT NULL CHECK (simulated IN (0, 1)),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  finished_at INTEGER
) STRICT;
CREATE INDEX evals_by_creation ON evals (created_at DESC);

-- One row per item x variant: the run that answered it and its score. The run is an ordinary
-- run; deleting it keeps the score.
CREATE TABLE eval_items (
  eval_id TEXT NOT NULL REFERENCES evals (id) ON DELETE CASCADE,
  item INTEGER NOT NULL CHECK (item >= 0),
  variant TEXT NOT NULL,
  job_key TEXT NOT NULL,
  run_id TEXT REFERENCES runs (id) ON DELETE SET NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'scored', 'failed')),
  score REAL,
  prediction TEXT,
  reference TEXT,
  label TEXT,
  error TEXT,
  cost_usd REAL NOT NULL CHECK (cost_usd >= 0),
  tokens INTEGER NOT NULL CHECK (tokens >= 0),
  calls INTEGER NOT NULL CHECK (calls >= 0),
  latency_ms INTEGER,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (eval_id, item, variant)
) STRICT;
CREATE INDEX eval_items_by_run ON eval_items (run_id) WHERE run_id IS NOT NULL;
`,
  },
  {
    name: 'ratings',
    sql: `
-- A person's score of a run on one scale of a rubric (an eval item rated by hand). A rating
-- belongs to its run: deleting the run deletes its ratings. Rating the same run, rater and scale
-- again replaces the score. Which scales and range are allowed is the rubric's business
-- (app/eval/rubrics.ts), checked before a rating is written.
CREATE TABLE ratings (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  rater TEXT NOT NULL CHECK (length(rater) BETWEEN 1 AND 80),
  scale TEXT NOT NULL CHECK (length(scale) BETWEEN 1 AND 40),
  score INTEGER NOT NULL,
  note TEXT,
  rated_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, rater, scale)
) STRICT;
`,
  },
  {
    name: 'ratings per agent',
    sql: `
-- A rating may be of one agent of a run (one member's trajectory, as ITCMA-S's raters read each
-- agent's) as well as of the whole run: \`agent\` is '' for the whole run, which every rating
-- written before this step was. SQLite cannot change a primary key in place, so the table is
-- copied into its new shape.
CREATE TABLE ratings_by_agent (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  agent TEXT NOT NULL DEFAULT '' CHECK (length(agent) <= 80),
  rater TEXT NOT NULL CHECK (length(rater) BETWEEN 1 AND 80),
  scale TEXT NOT NULL CHECK (length(scale) BETWEEN 1 AND 40),
  score INTEGER NOT NULL,
  note TEXT,
  rated_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, agent, rater, scale)
) STRICT;
INSERT INTO ratings_by_agent (run_id, agent, rater, scale, score, note, rated_at)
  SELECT run_id, '', rater, scale, score, note, rated_at FROM ratings;
DROP TABLE ratings;
ALTER TABLE ratings_by_agent RENAME TO ratings;
`,
  },
  {
    name: 'eval item repeats',
    sql: `
-- An item x variant runs several times under --repeats: the repeat joins the key. Rows of
-- evals made before are their item's one run, repeat 0. SQLite cannot change a primary key in
-- place, so the table is copied.
CREATE TABLE eval_items_repeats (
  eval_id TEXT NOT NULL REFERENCES evals (id) ON DELETE CASCADE,
  item INTEGER NOT NULL CHECK (item >= 0),
  variant TEXT NOT NULL,
  repeat INTEGER NOT NULL DEFAULT 0 CHECK (repeat >= 0),
  job_key TEXT NOT NULL,
  run_id TEXT REFERENCES runs (id) ON DELETE SET NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'scored', 'failed')),
  score REAL,
  prediction TEXT,
  reference TEXT,
  label TEXT,
  error TEXT,
  cost_usd REAL NOT NULL CHECK (cost_usd >= 0),
  tokens INTEGER NOT NULL CHECK (tokens >= 0),
  calls INTEGER NOT NULL CHECK (calls >= 0),
  latency_ms INTEGER,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (eval_id, item, variant, repeat)
) STRICT;
INSERT INTO eval_items_repeats (eval_id, item, variant, repeat, job_key, run_id, status, score,
    prediction, reference, label, error, cost_usd, tokens, calls, latency_ms, updated_at)
  SELECT eval_id, item, variant, 0, job_key, run_id, status, score, prediction, reference, label,
    error, cost_usd, tokens, calls, latency_ms, updated_at FROM eval_items;
DROP TABLE eval_items;
ALTER TABLE eval_items_repeats RENAME TO eval_items;
CREATE INDEX eval_items_by_run ON eval_items (run_id) WHERE run_id IS NOT NULL;
`,
  },
  {
    name: 'interviews',
    sql: `
-- A question put to one member of a run in its context at a call, and the answer: a side call,
-- kept apart from the run's events and call record so that nothing replaying, resuming, forking
-- or analysing the run sees it. It belongs to its run: deleting the run deletes its interviews.
CREATE TABLE interviews (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  instance TEXT NOT NULL,
  call_id TEXT NOT NULL,
  at_seq INTEGER NOT NULL,
  question TEXT NOT NULL,
  answer TEXT NOT NULL,
  profile TEXT NOT NULL,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  simulated INTEGER NOT NULL CHECK (simulated IN (0, 1)),
  prompt_tokens INTEGER NOT NULL CHECK (prompt_tokens >= 0),
  completion_tokens INTEGER NOT NULL CHECK (completion_tokens >= 0),
  asked_at INTEGER NOT NULL
) STRICT;
CREATE INDEX interviews_by_run ON interviews (run_id);
`,
  },
];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** The database was written by a newer build; opening it could corrupt what that build wrote. */
export class NewerSchemaError extends Error {
  readonly found: number;
  readonly supported: number;
  constructor(source: string, found: number, supported: number) {
    super(
      `${source} was written by a newer Society Studio (schema version ${found}; this build understands up to ${supported}). ` +
        'Upgrade Society Studio, or point SOCIETY_DB at another database file.',
    );
    this.name = 'NewerSchemaError';
    this.found = found;
    this.supported = supported;
  }
}

/**
 * Brings the database up to `migrations.length`. All pending steps run in one IMMEDIATE
 * transaction: it takes the write lock before reading the version, so two processes opening
 * the same new file cannot both migrate it, and a failing step leaves the version unchanged.
 */
export function migrate(
  db: Database.Database,
  source: string,
  migrations: readonly Migration[] = MIGRATIONS,
): { from: number; to: number } {
  const target = migrations.length;
  const readVersion = () => db.pragma('user_version', { simple: true }) as number;
  const before = readVersion();
  if (before > target) throw new NewerSchemaError(source, before, target);
  if (before === target) return { from: before, to: before };
  const apply = db.transaction(() => {
    const from = readVersion();
    if (from > target) throw new NewerSchemaError(source, from, target);
    for (let version = from; version < target; version++) {
      const step = migrations[version]!;
      try {
        db.exec(step.sql);
      } catch (error) {
        throw new Error(
          `${source}: schema migration ${version + 1} (${step.name}) failed: ${(error as Error).message}`,
          { cause: error },
        );
      }
    }
    // user_version lives in the database header, so it commits or rolls back with the steps.
    db.pragma(`user_version = ${target}`);
    return { from, to: target };
  });
  return apply.immediate();
}
