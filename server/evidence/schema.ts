/**
 * The evidence store's schema, one for SQLite and PostgreSQL, as numbered migrations applied in
 * order when a store opens. `schema_migrations` lists the versions applied (with name and time); a
 * store newer than this code (a version it does not know) is refused rather than written to.
 * Migrations run in one transaction (PostgreSQL: under an advisory lock, SQLite: under the file's
 * write lock), so processes opening one store at once apply each version once.
 *
 * Types are the ones both databases read alike: TEXT, INTEGER (counts, 0/1 booleans), DOUBLE
 * PRECISION (measures; null for no value). Times are ISO 8601 text, ids are text.
 */
import type { Db, Dialect, Sql } from './db';

export interface Migration {
  version: number;
  name: string;
  /** Its statements, for the dialect at hand. */
  up: (dialect: Dialect) => string[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'matches, players per match, measures, offending shots, labels',
    up: () => [
      `CREATE TABLE matches (
        log_id TEXT PRIMARY KEY,
        path TEXT NOT NULL,
        room_id TEXT NOT NULL,
        started_at TEXT NOT NULL,
        audited_at TEXT NOT NULL,
        complete INTEGER NOT NULL,
        shots INTEGER NOT NULL,
        slots_stored INTEGER NOT NULL,
        slots_without_identity INTEGER NOT NULL,
        slots_changed_hands INTEGER NOT NULL,
        calibration TEXT
      )`,
      `CREATE TABLE player_matches (
        log_id TEXT NOT NULL REFERENCES matches (log_id),
        slot INTEGER NOT NULL,
        player_id TEXT NOT NULL,
        verified INTEGER NOT NULL,
        shots INTEGER NOT NULL,
        hits INTEGER NOT NULL,
        headshots INTEGER NOT NULL,
        score DOUBLE PRECISION,
        flagged INTEGER NOT NULL,
        flags TEXT NOT NULL,
        PRIMARY KEY (log_id, slot)
      )`,
      'CREATE INDEX player_matches_player ON player_matches (player_id, verified)',
      `CREATE TABLE player_measures (
        log_id TEXT NOT NULL,
        slot INTEGER NOT NULL,
        measure TEXT NOT NULL,
        events INTEGER NOT NULL,
        stat DOUBLE PRECISION,
        p DOUBLE PRECISION,
        score DOUBLE PRECISION,
        PRIMARY KEY (log_id, slot, measure),
        FOREIGN KEY (log_id, slot) REFERENCES player_matches (log_id, slot)
      )`,
      `CREATE TABLE offending_shots (
        log_id TEXT NOT NULL,
        slot INTEGER NOT NULL,
        player_id TEXT NOT NULL,
        verified INTEGER NOT NULL,
        shot INTEGER NOT NULL,
        time_ms DOUBLE PRECISION,
        measure TEXT NOT NULL,
        value DOUBLE PRECISION,
        threshold DOUBLE PRECISION,
        unit TEXT NOT NULL,
        PRIMARY KEY (log_id, slot, shot, measure),
        FOREIGN KEY (log_id, slot) REFERENCES player_matches (log_id, slot)
      )`,
      'CREATE INDEX offending_shots_player ON offending_shots (player_id, verified)',
      `CREATE TABLE labels (
        id TEXT PRIMARY KEY,
        player_id TEXT NOT NULL,
        verified INTEGER NOT NULL,
        label TEXT NOT NULL CHECK (label IN ('cheater', 'clean', 'unsure')),
        reviewer TEXT NOT NULL,
        at TEXT NOT NULL,
        note TEXT
      )`,
      'CREATE INDEX labels_player ON labels (player_id, verified, at)',
    ],
  },
  {
    version: 2,
    name: 'each measure\'s events in the honest tail (the score across matches pools them)',
    up: () => ['ALTER TABLE player_measures ADD COLUMN beyond INTEGER'],
  },
  {
    version: 3,
    name: 'the measures without a tail count (rows from before version 2), indexed: the ranking across matches leaves their matches out',
    up: () => ['CREATE INDEX player_measures_missing_tail ON player_measures (log_id, slot) WHERE beyond IS NULL'],
  },
];

/** The versions applied, in order. */
async function appliedVersions(tx: Sql): Promise<number[]> {
  const rows = await tx.all<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
  return rows.map((r) => Number(r.version));
}

/**
 * Applies the migrations `db` lacks, in order; resolves with the versions it applied (empty when
 * the store was up to date). Throws when the store holds a version not in `migrations`.
 */
export async function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]!.version <= migrations[i - 1]!.version) throw new Error('migrations must be listed in increasing version order');
  }
  return db.transaction(async (tx) => {
    // PostgreSQL: one opener at a time (the lock ends with the transaction). SQLite's BEGIN IMMEDIATE already is.
    if (tx.dialect === 'postgres') await tx.all('SELECT pg_advisory_xact_lock(2846001)');
    await tx.run('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
    const applied = await appliedVersions(tx);
    const known = new Set(migrations.map((m) => m.version));
    const unknown = applied.filter((v) => !known.has(v));
    if (unknown.length > 0) throw new Error(`the evidence store has schema version ${unknown.join(', ')}, which this code does not know: it was written by a newer hitreg; use that version`);
    const done: number[] = [];
    for (const m of migrations) {
      if (applied.includes(m.version)) continue;
      for (const statement of m.up(tx.dialect)) await tx.run(statement);
      await tx.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [m.version, m.name, new Date().toISOString()]);
      done.push(m.version);
    }
    return done;
  });
}
