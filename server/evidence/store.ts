/**
 * The evidence store: every audited match log's evidence (evidence.ts) kept across matches, in a
 * SQLite file by default or in PostgreSQL for a `postgres://` URL, with one schema (schema.ts,
 * migrated at open). Writes are idempotent: a match is written whole in one transaction, keyed by
 * its log id, so recording the same log twice (two workers, a retried job, the CLI run again)
 * leaves the rows as they were. Reads for reviewers and later tools: a player's matches, every
 * player's summary with its latest matches (what the ranking across matches in ./cross.ts scores),
 * offending shots, and labels (cheater, clean, unsure) with who gave them and when.
 */
import { randomUUID } from 'node:crypto';
import { isPostgresUrl, openPostgres, openSqlite, type Db, type Sql, type SqlValue } from './db';
import { migrate } from './schema';
import type { MatchEvidence, MeasureEvidence, PlayerEvidence, PlayerKey } from './evidence';

/** The store a bare `--store` (and the worker without one) uses: DATABASE_URL when set, else this file. */
export const DEFAULT_STORE_FILE = 'evidence.sqlite';

export function defaultStoreTarget(env: NodeJS.ProcessEnv = process.env): string {
  const url = env.DATABASE_URL?.trim();
  return url ? url : DEFAULT_STORE_FILE;
}

export const LABELS = ['cheater', 'clean', 'unsure'] as const;
export type Label = (typeof LABELS)[number];

export interface LabelRecord extends PlayerKey {
  id: string;
  label: Label;
  reviewer: string;
  /** ISO 8601. */
  at: string;
  note: string | null;
}

/** A measure as stored: `beyond` is null for matches recorded before migration 2. */
export type StoredMeasure = Omit<MeasureEvidence, 'beyond'> & { beyond: number | null };

/** One match of one player as the store gives it back: the match's fields and the player's numbers in it. */
export interface PlayerMatch extends Pick<MatchEvidence, 'logId' | 'path' | 'roomId' | 'startedAt' | 'auditedAt' | 'calibration'>,
  Omit<PlayerEvidence, keyof PlayerKey | 'measures' | 'offending'> {
  measures: StoredMeasure[];
  offendingShots: number;
}

/** A player's numbers over its matches, and what the score across matches reads of them (playerSummaries). */
export interface PlayerSummary extends PlayerKey {
  matches: number;
  /** Matches whose own (per-match) behaviour score flagged them; the highest of those scores. */
  flaggedMatches: number;
  maxScore: number | null;
  shots: number;
  offendingShots: number;
  /** Matches the audit scored no behaviour in; matches recorded before the store kept tail counts (migration 2). */
  noScore: number;
  noTailCounts: number;
  /** The newest label, if any. */
  label: Label | null;
  /** The latest readable matches (a score and every tail count), oldest first. */
  readable: PlayerMatch[];
}

export interface StoreCounts {
  matches: number;
  playerMatches: number;
  measures: number;
  offendingShots: number;
  labels: number;
}

const b = (x: boolean): number => (x ? 1 : 0);
/** At most this many rows per INSERT (SQLite's bound parameters stay far below its limit). */
const ROWS_PER_INSERT = 200;

/** Inserts `rows` into `table` (skipping rows whose key is there); resolves with the rows written. */
async function insertRows(tx: Sql, table: string, columns: readonly string[], rows: SqlValue[][]): Promise<number> {
  let n = 0;
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const chunk = rows.slice(i, i + ROWS_PER_INSERT);
    const one = `(${columns.map(() => '?').join(', ')})`;
    n += await tx.run(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${chunk.map(() => one).join(', ')} ON CONFLICT DO NOTHING`, chunk.flat());
  }
  return n;
}

export class EvidenceStore {
  private constructor(readonly db: Db) {}

  /**
   * Opens (and migrates) the store at `target`: a `postgres://` URL, else a SQLite file path.
   * `schema`: PostgreSQL only, the schema to work in (tests use one of their own).
   */
  static async open(target: string = defaultStoreTarget(), options: { schema?: string } = {}): Promise<EvidenceStore> {
    const db = isPostgresUrl(target) ? await openPostgres(target, options.schema) : await openSqlite(target);
    try {
      await migrate(db);
    } catch (e) {
      await db.close().catch(() => {});
      throw e;
    }
    return new EvidenceStore(db);
  }

  /** Where the store is (file path, or URL with the password hidden). */
  get where(): string {
    return this.db.where;
  }

  /**
   * Writes one match's evidence, whole or not at all. Resolves { recorded: false } when its log id
   * is there already (nothing is changed: the first recording stands).
   */
  async record(e: MatchEvidence): Promise<{ recorded: boolean }> {
    return this.db.transaction(async (tx) => {
      const fresh = await tx.run(
        `INSERT INTO matches (log_id, path, room_id, started_at, audited_at, complete, shots, slots_stored, slots_without_identity, slots_changed_hands, calibration)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (log_id) DO NOTHING`,
        [e.logId, e.path, e.roomId, e.startedAt, e.auditedAt, b(e.complete), e.shots, e.players.length, e.slotsWithoutIdentity, e.slotsChangedHands, e.calibration],
      );
      if (fresh === 0) return { recorded: false };
      await insertRows(tx, 'player_matches', ['log_id', 'slot', 'player_id', 'verified', 'shots', 'hits', 'headshots', 'score', 'flagged', 'flags'],
        e.players.map((p) => [e.logId, p.slot, p.playerId, b(p.verified), p.shots, p.hits, p.headshots, p.score, b(p.flagged), JSON.stringify(p.flags)]));
      await insertRows(tx, 'player_measures', ['log_id', 'slot', 'measure', 'events', 'beyond', 'stat', 'p', 'score'],
        e.players.flatMap((p) => p.measures.map((m) => [e.logId, p.slot, m.measure, m.events, m.beyond, m.stat, m.p, m.score])));
      await insertRows(tx, 'offending_shots', ['log_id', 'slot', 'player_id', 'verified', 'shot', 'time_ms', 'measure', 'value', 'threshold', 'unit'],
        e.players.flatMap((p) => p.offending.map((o) => [e.logId, p.slot, p.playerId, b(p.verified), o.shot, o.timeMs, o.measure, o.value, o.threshold, o.unit])));
      return { recorded: true };
    });
  }

  /** The path the match's log was audited at, or null when the match is not in the store. */
  async matchPath(logId: string): Promise<string | null> {
    const rows = await this.db.all<{ path: string }>('SELECT path FROM matches WHERE log_id = ?', [logId]);
    return rows.length > 0 ? String(rows[0]!.path) : null;
  }

  /** The player has at least one match in the store. */
  async hasPlayer(key: PlayerKey): Promise<boolean> {
    return (await this.db.all('SELECT 1 AS one FROM player_matches WHERE player_id = ? AND verified = ? LIMIT 1', [key.playerId, b(key.verified)])).length > 0;
  }

  /** The match is in the store. */
  async hasMatch(logId: string): Promise<boolean> {
    return (await this.db.all('SELECT 1 AS one FROM matches WHERE log_id = ?', [logId])).length > 0;
  }

  /** The player's matches, oldest first (by the log's start time, then log id), each with its measures. */
  async playerMatches(key: PlayerKey): Promise<PlayerMatch[]> {
    return (await this.matchesWhere('pm.player_id = ? AND pm.verified = ?', [key.playerId, b(key.verified)])).map(({ playerId: _p, verified: _v, ...m }) => m);
  }

  /**
   * Every player's numbers over its matches, and its latest `latest` readable matches (a behaviour
   * score and every measure's tail count: what the score across matches reads) with their measures,
   * oldest first: three queries, and the measure rows of at most `latest` matches per player
   * whatever the history. Players by id, then verified.
   */
  async playerSummaries(latest: number): Promise<PlayerSummary[]> {
    // A measure without its tail count (a row from before migration 2; indexed by migration 3).
    const missingTail = (pm: string) => `EXISTS (SELECT 1 FROM player_measures y WHERE y.log_id = ${pm}.log_id AND y.slot = ${pm}.slot AND y.beyond IS NULL)`;
    const unread = (pm: string) => `CASE WHEN ${pm}.score IS NULL THEN 1 WHEN ${missingTail(pm)} THEN 2 ELSE 0 END`;
    const rows = await this.db.all<Record<string, unknown>>(
      `SELECT player_id, verified, CAST(COUNT(*) AS INTEGER) AS matches, CAST(SUM(flagged) AS INTEGER) AS flagged,
              CAST(MAX(score) AS DOUBLE PRECISION) AS max_score, CAST(SUM(shots) AS INTEGER) AS shots,
              CAST(SUM(CASE WHEN unread = 1 THEN 1 ELSE 0 END) AS INTEGER) AS no_score, CAST(SUM(CASE WHEN unread = 2 THEN 1 ELSE 0 END) AS INTEGER) AS no_tail,
              CAST(SUM(offending) AS INTEGER) AS offending,
              (SELECT l.label FROM labels l WHERE l.player_id = u.player_id AND l.verified = u.verified ORDER BY l.at DESC, l.id DESC LIMIT 1) AS label
         FROM (SELECT pm.player_id, pm.verified, pm.flagged, pm.score, pm.shots, ${unread('pm')} AS unread,
                      (SELECT COUNT(*) FROM offending_shots o WHERE o.log_id = pm.log_id AND o.slot = pm.slot) AS offending
                 FROM player_matches pm) u
        GROUP BY player_id, verified ORDER BY player_id, verified`);
    const readable = await this.matchesWhere(
      `(pm.log_id, pm.slot) IN (SELECT log_id, slot FROM (
         SELECT q.log_id, q.slot, ROW_NUMBER() OVER (PARTITION BY q.player_id, q.verified ORDER BY qm.started_at DESC, q.log_id DESC, q.slot DESC) AS rn
           FROM player_matches q JOIN matches qm ON qm.log_id = q.log_id WHERE q.score IS NOT NULL AND NOT ${missingTail('q')}) latest WHERE rn <= ?)`,
      [Math.max(0, Math.floor(latest))]);
    const byPlayer = new Map<string, PlayerMatch[]>();
    for (const { playerId, verified, ...m } of readable) {
      const id = `${verified ? 1 : 0}:${playerId}`;
      byPlayer.set(id, [...(byPlayer.get(id) ?? []), m]);
    }
    return rows.map((r) => ({
      playerId: String(r.player_id), verified: Number(r.verified) === 1, matches: Number(r.matches), flaggedMatches: Number(r.flagged),
      maxScore: numOrNull(r.max_score), shots: Number(r.shots), offendingShots: Number(r.offending), noScore: Number(r.no_score), noTailCounts: Number(r.no_tail),
      label: r.label === null || r.label === undefined ? null : (String(r.label) as Label),
      readable: byPlayer.get(`${Number(r.verified) === 1 ? 1 : 0}:${String(r.player_id)}`) ?? [],
    }));
  }

  /** The player matches `where` picks (on alias pm), by player then oldest first, with their measures; two queries. */
  private async matchesWhere(where: string, params: SqlValue[]): Promise<(PlayerMatch & PlayerKey)[]> {
    const rows = await this.db.all<Record<string, unknown>>(
      `SELECT pm.player_id, pm.verified, pm.log_id, m.path, m.room_id, m.started_at, m.audited_at, m.calibration, pm.slot, pm.shots, pm.hits, pm.headshots, pm.score, pm.flagged, pm.flags,
              (SELECT CAST(COUNT(*) AS INTEGER) FROM offending_shots o WHERE o.log_id = pm.log_id AND o.slot = pm.slot) AS offending
         FROM player_matches pm JOIN matches m ON m.log_id = pm.log_id
        WHERE ${where} ORDER BY pm.player_id, pm.verified, m.started_at, pm.log_id, pm.slot`, params);
    const measures = await this.db.all<Record<string, unknown>>(
      `SELECT x.log_id, x.slot, x.measure, x.events, x.beyond, x.stat, x.p, x.score FROM player_measures x
         JOIN player_matches pm ON pm.log_id = x.log_id AND pm.slot = x.slot
        WHERE ${where} ORDER BY x.log_id, x.slot, x.measure`, params);
    const byMatch = new Map<string, StoredMeasure[]>();
    for (const m of measures) {
      const id = `${String(m.log_id)}:${String(m.slot)}`;
      const list = byMatch.get(id) ?? [];
      list.push({ measure: String(m.measure), events: Number(m.events), beyond: numOrNull(m.beyond), stat: numOrNull(m.stat), p: numOrNull(m.p), score: numOrNull(m.score) });
      byMatch.set(id, list);
    }
    return rows.map((r) => ({
      playerId: String(r.player_id), verified: Number(r.verified) === 1,
      logId: String(r.log_id), path: String(r.path), roomId: String(r.room_id), startedAt: String(r.started_at), auditedAt: String(r.audited_at),
      calibration: r.calibration === null || r.calibration === undefined ? null : String(r.calibration),
      slot: Number(r.slot), shots: Number(r.shots), hits: Number(r.hits), headshots: Number(r.headshots), score: numOrNull(r.score),
      flagged: Number(r.flagged) === 1, flags: JSON.parse(String(r.flags)) as PlayerMatch['flags'], offendingShots: Number(r.offending),
      measures: byMatch.get(`${String(r.log_id)}:${String(r.slot)}`) ?? [],
    }));
  }

  /** The player's offending shots over every match, by match and shot. */
  async offendingShots(key: PlayerKey): Promise<{ logId: string; slot: number; shot: number; timeMs: number | null; measure: string; value: number | null; threshold: number | null; unit: string }[]> {
    const rows = await this.db.all<Record<string, unknown>>(
      'SELECT log_id, slot, shot, time_ms, measure, value, threshold, unit FROM offending_shots WHERE player_id = ? AND verified = ? ORDER BY log_id, shot, measure',
      [key.playerId, b(key.verified)]);
    return rows.map((r) => ({ logId: String(r.log_id), slot: Number(r.slot), shot: Number(r.shot), timeMs: numOrNull(r.time_ms), measure: String(r.measure), value: numOrNull(r.value), threshold: numOrNull(r.threshold), unit: String(r.unit) }));
  }

  /** Adds a reviewer's label for a player (labels are kept as a history; the newest is the player's label). */
  /** The time of the last label this store stamped itself, ms. */
  private lastLabelMs = 0;

  async addLabel(l: PlayerKey & { label: Label; reviewer: string; note?: string | null; at?: Date }): Promise<LabelRecord> {
    if (!LABELS.includes(l.label)) throw new Error(`label ${JSON.stringify(l.label)}: give one of ${LABELS.join(', ')}`);
    if (typeof l.reviewer !== 'string' || l.reviewer.trim() === '') throw new Error('a label needs its reviewer');
    // Labels given without a time are stamped strictly after this store's previous one: two in the
    // same millisecond would tie on `at`, and the newest would then be the random id's pick.
    let at = l.at;
    if (at === undefined) {
      this.lastLabelMs = Math.max(Date.now(), this.lastLabelMs + 1);
      at = new Date(this.lastLabelMs);
    }
    const rec: LabelRecord = { id: randomUUID(), playerId: l.playerId, verified: l.verified, label: l.label, reviewer: l.reviewer, at: at.toISOString(), note: l.note ?? null };
    await this.db.run('INSERT INTO labels (id, player_id, verified, label, reviewer, at, note) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [rec.id, rec.playerId, b(rec.verified), rec.label, rec.reviewer, rec.at, rec.note]);
    return rec;
  }

  /** Every labelled player with its newest label. */
  async labelledPlayers(): Promise<LabelRecord[]> {
    const rows = await this.db.all<Record<string, unknown>>(
      `SELECT id, player_id, verified, label, reviewer, at, note FROM labels l
        WHERE NOT EXISTS (SELECT 1 FROM labels n WHERE n.player_id = l.player_id AND n.verified = l.verified AND (n.at > l.at OR (n.at = l.at AND n.id > l.id)))
        ORDER BY player_id, verified`);
    return rows.map((r) => ({ id: String(r.id), playerId: String(r.player_id), verified: Number(r.verified) === 1, label: String(r.label) as Label, reviewer: String(r.reviewer), at: String(r.at), note: r.note === null ? null : String(r.note) }));
  }

  /** A player's labels, oldest first. */
  async labels(key: PlayerKey): Promise<LabelRecord[]> {
    const rows = await this.db.all<Record<string, unknown>>('SELECT id, label, reviewer, at, note FROM labels WHERE player_id = ? AND verified = ? ORDER BY at, id', [key.playerId, b(key.verified)]);
    return rows.map((r) => ({ id: String(r.id), playerId: key.playerId, verified: key.verified, label: String(r.label) as Label, reviewer: String(r.reviewer), at: String(r.at), note: r.note === null ? null : String(r.note) }));
  }

  /** Rows per table. */
  async counts(): Promise<StoreCounts> {
    const one = async (table: string) => Number((await this.db.all<{ n: number }>(`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM ${table}`))[0]!.n);
    return { matches: await one('matches'), playerMatches: await one('player_matches'), measures: await one('player_measures'), offendingShots: await one('offending_shots'), labels: await one('labels') };
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}

function numOrNull(x: unknown): number | null {
  if (x === null || x === undefined) return null;
  const n = Number(x);
  return Number.isFinite(n) ? n : null;
}
