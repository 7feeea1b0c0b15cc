/**
 * The real services the evidence tests talk to, and the one-line reason a test gives when one does
 * not answer (it then skips, naming host:port): PostgreSQL at TEST_DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/test; each test works in a schema of its own and drops it) and
 * Redis at REDIS_URL (default redis://127.0.0.1:6379; each test uses a BullMQ key prefix of its own
 * and removes it).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { probeRedis } from '../../server/ops/scale';
import { hidePassword } from '../../server/evidence/db';
import { REDIS_URL } from './redis';

export { REDIS_URL };
export const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** host:port of a URL, for skip messages. */
export function hostPort(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || (u.protocol.startsWith('postgres') ? '5432' : '6379')}`;
}

/** Null when PostgreSQL answers at PG_URL, else why not (one line). */
export async function postgresProblem(): Promise<string | null> {
  const c = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  c.on('error', () => {});
  try {
    await c.connect();
    await c.query('SELECT 1');
    return null;
  } catch (e) {
    return `PostgreSQL at ${hostPort(PG_URL)} (${hidePassword(PG_URL)}) does not answer: ${(e as Error).message.split('\n', 1)[0]}`;
  } finally {
    await c.end().catch(() => {});
  }
}

/** Null when Redis answers at REDIS_URL, else why not (one line). */
export async function redisProblem(): Promise<string | null> {
  try {
    await probeRedis(REDIS_URL, 3000, 'start Redis there (e.g. redis-server), or point REDIS_URL at one');
    return null;
  } catch (e) {
    return `Redis at ${hostPort(REDIS_URL)} does not answer: ${(e as Error).message.split('\n', 1)[0]}`;
  }
}

/** A name no other test run uses (PostgreSQL schema, Redis prefix): lower-case letters, digits, _. */
export function uniqueName(what: string): string {
  return `${what}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

/** Drops a schema made by a test (and everything in it). */
export async function dropSchema(schema: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_URL });
  c.on('error', () => {});
  await c.connect();
  try {
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await c.end();
  }
}
