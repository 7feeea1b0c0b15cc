/**
 * The evidence store on real databases: a SQLite file on disk and PostgreSQL (a schema of the
 * test's own, dropped after; the PostgreSQL cases skip, naming host:port, when it does not answer).
 * Migrations from empty, once, in order, and a newer store refused; a real synthetic match audited
 * twice and recorded twice leaves the rows of the first recording, and those rows are the audit's
 * numbers; who is stored (named slots only, a slot that changed hands under neither); a player
 * across matches, the placeholder ranking against the same sums computed here, labels with who and
 * when; two stores racing to record one log write it once; `npm run audit -- --store`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadWorld, DEFAULT_LEVEL_PATH } from '../server/level/gltf';
import { synthesizeMatch } from '../server/behaviour/synth/synthMatch';
import { Behaviour } from '../client-sim/human/profiles';
import { auditMatchLog, closeAuditWorkers, type AuditResult } from '../server/behaviour/audit';
import { main as auditCli } from '../server/behaviour/cli';
import { evidenceFromAudit, type MatchEvidence } from '../server/evidence/evidence';
import { EvidenceStore } from '../server/evidence/store';
import { migrate, MIGRATIONS } from '../server/evidence/schema';
import { withStoreDefault } from '../server/evidence/cliStore';
import { distinctCopy } from './bench/fleetLogs';
import { PG_URL, dropSchema, hostPort, postgresProblem, uniqueName } from './helpers/services';

const dir = mkdtempSync(join(tmpdir(), 'evidence-store-'));
const LOG = join(dir, 'match.hrml');
// Ids of one length, so distinct copies of the log (test/bench/fleetLogs.ts) can rename them in place.
const IDS = [
  { slot: 0, playerId: 'alice', verified: true },
  { slot: 1, playerId: 'bobby', verified: false },
  { slot: 2, playerId: 'carla', verified: false },
  { slot: 2, playerId: 'dorit', verified: false },
];
const POOL = ['alice', 'bobby', 'carla', 'dorit', 'ernie'];
let pgProblem: string | null = null;
const schemas: string[] = [];
let first: AuditResult;
let second: AuditResult;

beforeAll(async () => {
  const world = await loadWorld();
  // Slot 1 aims silently (blatant): its behaviour score and offending shots fill the tables. Slot 3 is named by nobody.
  await synthesizeMatch({ world, levelPath: DEFAULT_LEVEL_PATH, path: LOG, seed: 7, players: 4, durationS: 30, cheats: { 1: Behaviour.SILENT_AIM }, strength: 1, identities: IDS });
  first = await auditMatchLog(LOG);
  second = await auditMatchLog(LOG, {}, new Uint8Array(readFileSync(LOG)));
  pgProblem = await postgresProblem();
  if (pgProblem !== null) console.warn(`test/evidenceStore.test.ts: the PostgreSQL cases are skipped: ${pgProblem}`);
});

afterAll(async () => {
  await closeAuditWorkers();
  if (pgProblem === null) for (const s of schemas) await dropSchema(s);
  rmSync(dir, { recursive: true, force: true });
});

/** Every row of every table, in a fixed order (what "nothing changed" compares). */
async function dump(store: EvidenceStore): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [t, key] of [['matches', 'log_id'], ['player_matches', 'log_id, slot'], ['player_measures', 'log_id, slot, measure'], ['offending_shots', 'log_id, slot, shot, measure'], ['labels', 'id']]) {
    out[t] = await store.db.all(`SELECT * FROM ${t} ORDER BY ${key}`);
  }
  return out;
}

const kinds = [
  { name: 'SQLite file', open: (tag: string) => EvidenceStore.open(join(dir, `${tag}.sqlite`)), skip: () => null as string | null },
  {
    name: 'PostgreSQL',
    open: (tag: string) => {
      const schema = uniqueName(`evidence_${tag}`).toLowerCase();
      schemas.push(schema);
      return EvidenceStore.open(PG_URL, { schema });
    },
    skip: () => (pgProblem === null ? null : `needs PostgreSQL on ${hostPort(PG_URL)}: ${pgProblem}`),
  },
];

describe.each(kinds)('evidence store: $name', (kind) => {
  it('migrates an empty store once, applies a later version alone, and refuses a store newer than the code', async (ctx) => {
    const why = kind.skip();
    if (why !== null) ctx.skip(why);
    const store = await kind.open('migrate');
    try {
      expect(await store.db.all('SELECT version, name FROM schema_migrations ORDER BY version')).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
      expect(await store.counts()).toEqual({ matches: 0, playerMatches: 0, measures: 0, offendingShots: 0, labels: 0 });
      expect(await migrate(store.db)).toEqual([]);
      const later = [...MIGRATIONS, { version: 99, name: 'a later one', up: () => ['CREATE TABLE later_test (x INTEGER)'] }];
      expect(await migrate(store.db, later)).toEqual([99]);
      expect(await migrate(store.db, later)).toEqual([]);
      expect(await store.db.all('SELECT x FROM later_test')).toEqual([]);
      await expect(migrate(store.db)).rejects.toThrow(/schema version 99.*newer hitreg/);
    } finally {
      await store.close();
    }
  });

  it('records a log audited twice once: the second recording changes no row, and the rows are the audit\'s numbers', async (ctx) => {
    const why = kind.skip();
    if (why !== null) ctx.skip(why);
    const store = await kind.open('idem');
    try {
      const a = evidenceFromAudit(first, first.bytes, { auditedAt: new Date('2030-01-01T00:00:00Z') });
      const b = evidenceFromAudit(second, second.bytes, { auditedAt: new Date('2031-01-01T00:00:00Z') });
      expect(b.logId).toBe(a.logId);
      expect(await store.record(a)).toEqual({ recorded: true });
      const before = await dump(store);
      expect(await store.record(b)).toEqual({ recorded: false });
      expect(await dump(store)).toEqual(before);

      // Named slots only: alice (verified) and bobby; carla then dorit held slot 2 (neither), slot 3 named nobody.
      const m = before.matches[0] as Record<string, unknown>;
      expect([m.slots_stored, m.slots_changed_hands, m.slots_without_identity, m.audited_at, m.shots]).toEqual([2, 1, 1, '2030-01-01T00:00:00.000Z', first.shots]);
      const rows = before.player_matches as Record<string, unknown>[];
      expect(rows.map((r) => [r.slot, r.player_id, r.verified])).toEqual([[0, 'alice', 1], [1, 'bobby', 0]]);
      for (const r of rows) {
        const p = first.players.find((x) => x.player === r.slot)!;
        expect([r.shots, r.hits, r.headshots, r.flagged]).toEqual([p.shots, p.hits, p.headshots, p.behaviour!.flagged ? 1 : 0]);
        expect(r.score).toBeCloseTo(p.behaviour!.score, 12);
        expect(JSON.parse(String(r.flags))).toEqual(p.flags.map((f) => ({ rule: f.rule, detail: f.detail })));
        expect((before.player_measures as Record<string, unknown>[]).filter((x) => x.slot === r.slot).length).toBe(p.behaviour!.measures.length);
        expect((before.offending_shots as Record<string, unknown>[]).filter((x) => x.slot === r.slot).map((x) => [x.shot, x.measure]).sort())
          .toEqual(p.behaviour!.offending.map((o) => [o.shot, o.measure]).sort());
      }
      // The silent aimer was caught: its offending shots are in the store.
      expect(first.players[1]!.behaviour!.flagged).toBe(true);
      expect((before.offending_shots as unknown[]).length).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });

  it('follows a player across matches, ranks by the summed score (the same sums as computed here), labels with who and when', async (ctx) => {
    const why = kind.skip();
    if (why !== null) ctx.skip(why);
    const store = await kind.open('query');
    try {
      // Four distinct copies of the match: the same play under other room and player ids (slot 2's two
      // records renamed alike: one player there now), slot 0 verified, so one id comes verified and not.
      const ev: MatchEvidence[] = [];
      for (const j of [1, 2, 3, 4]) {
        const path = join(dir, `copy-${j}.hrml`);
        writeFileSync(path, distinctCopy(first.bytes, j, (slot) => POOL[(slot + j) % 3]!));
        ev.push(evidenceFromAudit(await auditMatchLog(path)));
      }
      for (const e of ev) expect(await store.record(e)).toEqual({ recorded: true });
      const sums = new Map<string, { matches: number; score: number; flagged: number }>();
      for (const e of ev) for (const p of e.players) {
        const k = `${p.playerId}/${p.verified}`;
        const s = sums.get(k) ?? { matches: 0, score: 0, flagged: 0 };
        s.matches++;
        s.score += p.score ?? 0;
        s.flagged += p.flagged ? 1 : 0;
        sums.set(k, s);
      }
      const ranked = await store.rankBySummedScore();
      expect(ranked.length).toBe(sums.size);
      for (const r of ranked) {
        const s = sums.get(`${r.playerId}/${r.verified}`)!;
        expect([r.matches, r.flaggedMatches]).toEqual([s.matches, s.flagged]);
        expect(r.scoreSum).toBeCloseTo(s.score, 9);
      }
      for (let i = 1; i < ranked.length; i++) expect(ranked[i - 1]!.scoreSum).toBeGreaterThanOrEqual(ranked[i]!.scoreSum);

      const top = ranked[0]!;
      const matches = await store.playerMatches(top);
      expect(matches.length).toBe(top.matches);
      expect(matches.map((m) => m.logId).sort()).toEqual(ev.filter((e) => e.players.some((p) => p.playerId === top.playerId && p.verified === top.verified)).map((e) => e.logId).sort());
      expect(matches[0]!.measures.length).toBeGreaterThan(0);
      const shots = await store.offendingShots(top);
      expect(shots.length).toBe(matches.reduce((n, m) => n + m.offendingShots, 0));
      // Each offending shot is the player's, in its slot of that match; the review page's look-ups.
      for (const o of shots) expect(matches.some((m) => m.logId === o.logId && m.slot === o.slot)).toBe(true);
      expect(await store.hasPlayer(top)).toBe(true);
      expect(await store.hasPlayer({ playerId: 'nobody', verified: false })).toBe(false);
      expect(await store.matchPath(matches[0]!.logId)).toBe(join(dir, `copy-${ev.findIndex((e) => e.logId === matches[0]!.logId) + 1}.hrml`));
      expect(await store.matchPath('0'.repeat(64))).toBeNull();
      // A verified id and the same id self-named are two players.
      const other = { playerId: top.playerId, verified: !top.verified };
      expect((await store.playerMatches(other)).length).toBe(ev.filter((e) => e.players.some((p) => p.playerId === other.playerId && p.verified === other.verified)).length);
      expect(ranked.some((r) => r.playerId === 'alice' && r.verified) && ranked.some((r) => r.playerId === 'alice' && !r.verified)).toBe(true);

      await store.addLabel({ ...top, label: 'unsure', reviewer: 'rev-a', note: 'look again', at: new Date('2030-01-01T10:00:00Z') });
      await store.addLabel({ ...top, label: 'cheater', reviewer: 'rev-b', at: new Date('2030-01-02T10:00:00Z') });
      expect((await store.labels(top)).map((l) => [l.label, l.reviewer, l.at, l.note])).toEqual([
        ['unsure', 'rev-a', '2030-01-01T10:00:00.000Z', 'look again'], ['cheater', 'rev-b', '2030-01-02T10:00:00.000Z', null]]);
      expect((await store.rankBySummedScore({ limit: 1 }))[0]!.label).toBe('cheater');
      await expect(store.addLabel({ ...top, label: 'guilty' as 'cheater', reviewer: 'x' })).rejects.toThrow(/cheater, clean, unsure/);
      await expect(store.addLabel({ ...top, label: 'clean', reviewer: ' ' })).rejects.toThrow(/reviewer/);
    } finally {
      await store.close();
    }
  });

  it('two stores racing to record one log write it once', async (ctx) => {
    const why = kind.skip();
    if (why !== null) ctx.skip(why);
    const a = await kind.open('race');
    const b = kind.name === 'PostgreSQL' ? await EvidenceStore.open(PG_URL, { schema: schemas.at(-1)! }) : await EvidenceStore.open(a.where);
    try {
      const e = evidenceFromAudit(first);
      const results = await Promise.all([a.record(e), b.record(e), a.record(e), b.record(e)]);
      expect(results.filter((r) => r.recorded).length).toBe(1);
      expect(await a.counts()).toMatchObject({ matches: 1, playerMatches: 2 });
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('npm run audit -- --store', () => {
  it('takes --store with or without a value (a bare one: DATABASE_URL, else evidence.sqlite)', () => {
    expect(withStoreDefault(['m/', '--store'], {})).toEqual(['m/', '--store', 'evidence.sqlite']);
    expect(withStoreDefault(['--store', 'm/'], {})).toEqual(['--store', 'evidence.sqlite', 'm/']);
    expect(withStoreDefault(['--store', '--json', 'm/'], { DATABASE_URL: 'postgres://h/db' })).toEqual(['--store', 'postgres://h/db', '--json', 'm/']);
    expect(withStoreDefault(['m/', '--store', 'x.sqlite'], {})).toEqual(['m/', '--store', 'x.sqlite']);
    expect(withStoreDefault(['m/', '--store', 'postgresql://u@h:5432/db'], {})).toEqual(['m/', '--store', 'postgresql://u@h:5432/db']);
  });

  it('records every log of a directory, once however often it runs, and leaves out a log that is not evidence', async () => {
    const logs = join(dir, 'cli');
    const file = join(dir, 'cli.sqlite');
    mkdirSync(logs);
    for (const j of [1, 2]) writeFileSync(join(logs, `m${j}.hrml`), distinctCopy(first.bytes, 10 + j, (slot) => POOL[slot]!));
    writeFileSync(join(logs, 'cut.hrml'), first.bytes.slice(0, first.bytes.length >> 1));
    const lines: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => { lines.push(a.join(' ')); });
    try {
      expect(await auditCli([logs, '--store', file, '--workers', '1'])).toBe(0);
      expect(lines.find((l) => l.startsWith('store '))).toMatch(/: 2 recorded, 0 already there, 1 not evidence$/);
      expect(lines.find((l) => l.includes('not recorded:'))).toMatch(/cut\.hrml: the log ends early/);
      lines.length = 0;
      expect(await auditCli([join(logs, 'm1.hrml'), '--store', file])).toBe(0);
      expect(lines.find((l) => l.startsWith('store '))).toMatch(/: 0 recorded, 1 already there, 0 not evidence$/);
    } finally {
      spy.mockRestore();
    }
    const store = await EvidenceStore.open(file);
    expect((await store.counts()).matches).toBe(2);
    await store.close();
  });
});
