/**
 * The two databases the evidence store runs on, behind one small interface: a SQLite file through
 * Node's built-in node:sqlite (no native addon) and PostgreSQL through `pg`. Statements are written
 * once with `?` placeholders (PostgreSQL gets them as $1, $2, ...); numbers, strings and null pass
 * through unchanged. `transaction` runs its function inside BEGIN/COMMIT (SQLite: BEGIN IMMEDIATE,
 * so writers queue on the file's lock instead of failing to upgrade a read lock), ROLLBACK on a throw.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { Pool, PoolClient } from 'pg';

export type Dialect = 'sqlite' | 'postgres';
export type SqlValue = string | number | null;

/** What statements run against: the database, or one transaction of it. */
export interface Sql {
  readonly dialect: Dialect;
  /** Runs one statement; resolves with the rows it changed. */
  run(sql: string, params?: readonly SqlValue[]): Promise<number>;
  all<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
}

export interface Db extends Sql {
  /** Where it is: the file's absolute path, or the PostgreSQL URL with its password hidden. */
  readonly where: string;
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A `postgres://` or `postgresql://` URL. */
export function isPostgresUrl(target: string): boolean {
  return /^postgres(ql)?:\/\//i.test(target);
}

/** `?` placeholders as PostgreSQL's $1, $2, ... (the store's statements hold no `?` in literals). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/**
 * node:sqlite, loaded on first use. Node 22 prints an ExperimentalWarning when the module loads;
 * that one warning is held back (every other warning passes).
 */
let sqliteModule: Promise<typeof import('node:sqlite')> | null = null;
function loadSqlite(): Promise<typeof import('node:sqlite')> {
  sqliteModule ??= (async () => {
    const emit = process.emitWarning;
    process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
      const text = typeof warning === 'string' ? warning : warning.message;
      if (/SQLite is an experimental feature/.test(text)) return;
      (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
    }) as typeof process.emitWarning;
    try {
      return await import('node:sqlite');
    } finally {
      process.emitWarning = emit;
    }
  })();
  return sqliteModule;
}

/** Per SQLite file: the end of the last transaction begun on it in this process. */
const fileQueues = new Map<string, Promise<void>>();

/** A SQLite file (created with its directory when missing), in WAL mode so readers never wait on a writer. */
export async function openSqlite(file: string): Promise<Db> {
  const path = resolve(file);
  mkdirSync(dirname(path), { recursive: true });
  const { DatabaseSync: Database } = await loadSqlite();
  const db: DatabaseSync = new Database(path);
  // Several worker processes may write one file: wait for the lock rather than fail at once.
  db.exec('PRAGMA busy_timeout = 10000');
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA foreign_keys = ON');
  // Prepared once per statement text (the store runs a few statements many times).
  const prepared = new Map<string, ReturnType<DatabaseSync['prepare']>>();
  const statement = (s: string) => {
    let st = prepared.get(s);
    if (st === undefined) {
      if (prepared.size > 256) prepared.clear();
      prepared.set(s, (st = db.prepare(s)));
    }
    return st;
  };
  const sql: Sql = {
    dialect: 'sqlite',
    run: async (s, p = []) => Number(statement(s).run(...p).changes),
    all: async <T>(s: string, p: readonly SqlValue[] = []) => statement(s).all(...p) as T[],
  };
  return {
    ...sql,
    where: path,
    transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
      // Transactions on one file in this process take turns (a connection waiting on the file's lock
      // would block the thread the holder needs to finish); other processes wait on the lock itself.
      const next = (fileQueues.get(path) ?? Promise.resolve()).then(async () => {
        db.exec('BEGIN IMMEDIATE');
        try {
          const out = await fn(sql);
          db.exec('COMMIT');
          return out;
        } catch (e) {
          if (db.isTransaction) db.exec('ROLLBACK');
          throw e;
        }
      });
      const settled = next.then(() => {}, () => {});
      fileQueues.set(path, settled);
      void settled.then(() => { if (fileQueues.get(path) === settled) fileQueues.delete(path); });
      return next;
    },
    close: async () => {
      await fileQueues.get(path);
      db.close();
    },
  };
}

/** The URL with its password replaced by ***. */
export function hidePassword(url: string): string {
  return url.replace(/(\/\/[^:/@]*):[^@/]*@/, '$1:***@');
}

/** PostgreSQL at `url`; with `schema`, every connection works in that schema (created when missing). */
export async function openPostgres(url: string, schema?: string): Promise<Db> {
  const { default: pg } = await import('pg');
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`schema ${JSON.stringify(schema)}: use lower-case letters, digits and _`);
  const pool: Pool = new pg.Pool({ connectionString: url, max: 4, ...(schema !== undefined ? { options: `-c search_path=${schema}` } : {}) });
  // An idle connection that breaks (the server restarted) is dropped from the pool, not thrown.
  pool.on('error', () => {});
  if (schema !== undefined) await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  const on = (c: Pool | PoolClient): Sql => ({
    dialect: 'postgres',
    run: async (s, p = []) => (await c.query(numbered(s), p as SqlValue[])).rowCount ?? 0,
    all: async <T>(s: string, p: readonly SqlValue[] = []) => (await c.query(numbered(s), p as SqlValue[])).rows as T[],
  });
  return {
    ...on(pool),
    where: hidePassword(url) + (schema !== undefined ? ` (schema ${schema})` : ''),
    async transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const out = await fn(on(client));
        await client.query('COMMIT');
        return out;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        throw e;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
