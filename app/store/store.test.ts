import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate, NewerSchemaError, SCHEMA_VERSION } from './migrations.ts';
import { defaultDatabasePath } from './paths.ts';
import {
  connections,
  dir,
  newRun,
  open,
  peek,
  store,
  withTempStores,
} from './store.test-helper.ts';
import { openRunStore } from './store.ts';

withTempStores();

describe('opening and migrations', () => {
  it('migrates an empty file to the current schema, in WAL mode', async () => {
    const file = join(dir, 'empty.db');
    await writeFile(file, '');
    store(file);
    const db = peek(file);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(open[0]!.diagnostics()).toEqual({
      journalMode: 'wal',
      synchronous: 'full',
      foreignKeys: true,
      busyTimeoutMs: 5000,
      schemaVersion: SCHEMA_VERSION,
    });
    const tables = db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
      .pluck()
      .all();
    expect(tables).toEqual([
      'blobs',
      'calls',
      'eval_items',
      'evals',
      'events',
      'graph_versions',
      'graphs',
      'interviews',
      'prices',
      'provider_profiles',
      'ratings',
      'runs',
      'settings',
      'snapshots',
    ]);
  });

  it('creates the directory and reopens without migrating again', () => {
    const file = join(dir, 'a', 'b', 'society.db');
    const first = openRunStore(file);
    newRun(first, 'r1');
    first.close();
    const second = store(file);
    expect(second.getRun('r1')?.status).toBe('running');
  });

  it('refuses a database from a newer build', () => {
    const file = join(dir, 'newer.db');
    const db = new Database(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => openRunStore(file)).toThrow(NewerSchemaError);
    expect(() => openRunStore(file)).toThrow(
      /newer Society Studio \(schema version \d+; this build understands up to \d+\)/,
    );
  });

  it('applies only pending steps, and a failing step changes nothing', () => {
    const db = new Database(':memory:');
    connections.push(db);
    const extra = [...MIGRATIONS, { name: 'add notes', sql: 'CREATE TABLE notes (x TEXT);' }];
    expect(migrate(db, 'test', MIGRATIONS)).toEqual({ from: 0, to: SCHEMA_VERSION });
    expect(migrate(db, 'test', extra)).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION + 1 });
    const broken = [
      ...extra,
      { name: 'good', sql: 'CREATE TABLE more (x TEXT);' },
      { name: 'bad', sql: 'CREATE TABLE notes (x TEXT);' },
    ];
    expect(() => migrate(db, 'test', broken)).toThrow(
      new RegExp(`migration ${SCHEMA_VERSION + 3} \\(bad\\) failed`),
    );
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION + 1);
    expect(db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'more'").pluck().get()).toBe(
      0,
    );
  });

  it('works in memory', () => {
    const s = store(':memory:');
    const run = newRun(s);
    expect(s.getRun(run.id)?.graphName).toBe('debate');
  });
});

describe('defaultDatabasePath', () => {
  it('prefers SOCIETY_DB', () => {
    expect(defaultDatabasePath({ SOCIETY_DB: '/x/y.db', HOME: '/h' }, 'linux')).toBe('/x/y.db');
  });
  it('follows XDG on Linux', () => {
    expect(defaultDatabasePath({ HOME: '/home/u' }, 'linux')).toBe(
      '/home/u/.local/share/society-studio/society.db',
    );
    expect(defaultDatabasePath({ HOME: '/home/u', XDG_DATA_HOME: '/data' }, 'linux')).toBe(
      '/data/society-studio/society.db',
    );
    expect(defaultDatabasePath({ HOME: '/home/u', XDG_DATA_HOME: 'rel' }, 'linux')).toBe(
      '/home/u/.local/share/society-studio/society.db',
    );
  });
  it('uses Application Support on macOS and APPDATA on Windows', () => {
    expect(defaultDatabasePath({ HOME: '/Users/u' }, 'darwin')).toBe(
      '/Users/u/Library/Application Support/Society Studio/society.db',
    );
    expect(defaultDatabasePath({ APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32')).toBe(
      'C:\\Users\\u\\AppData\\Roaming\\Society Studio\\society.db',
    );
  });
});
