/**
 * The evidence store on real databases: a SQLite file on disk and PostgreSQL (a schema of the
 * test's own, dropped after; the PostgreSQL cases skip, naming host:port, when it does not answer).
 * Migrations from empty, once, in order, and a newer store refused; a real synthetic match audited
 * twice and recorded twice leaves the rows of the first recording, and those rows are the audit's
 * numbers; who is stored (named slots only, a slot that changed hands under neither); a player
 * across matches, the ranking by the score across matches against that score computed here from
 * the recorded evidence (scoreAcrossMatches over each player's matches, in the store's order, ranked
 * flagged first then by margin), with the calibration's horizon and thresholds and with rows of an
 * older store (no tail counts, no score) left out and said so; labels with who and when; two stores
 * racing to record one log write it once; `npm run audit -- --store`.
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
import { crossHorizon, rankByCrossMatch, summaryOf } from '../server/evidence/cross';
import { scoreAcrossMatches, type MatchEvidence as CrossEvidence } from '../server/behaviour/crossMatch';
import { DEFAULT_CROSS_CALIBRATION_URL, loadCrossCalibration, type CrossMatchCalibration } from '../server/behaviour/crossCalibration';
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

/**
 * The ranking computed without the store: each player's matches from the evidence recorded, in the
 * store's order (start time, log id, slot), scored by scoreAcrossMatches, sorted flagged first, then
 * by score minus threshold, score, matches, id, self-named first. `leftOut` (log id:slot): matches
 * whose behaviour the store cannot give (an older store's rows).
 */
function bruteRanking(ev: readonly MatchEvidence[], cal: CrossMatchCalibration, leftOut: ReadonlySet<string> = new Set()) {
  const players = new Map<string, { playerId: string; verified: boolean; rows: { startedAt: string; logId: string; slot: number; m: CrossEvidence }[] }>();
  for (const e of ev) for (const p of e.players) {
    const k = `${p.playerId}/${p.verified}`;
    if (!players.has(k)) players.set(k, { playerId: p.playerId, verified: p.verified, rows: [] });
    const behaviour = p.score === null || leftOut.has(`${e.logId}:${p.slot}`) ? null
      : { score: p.score, measures: p.measures.map((x) => ({ name: x.measure, events: x.events, beyond: x.beyond, stat: x.stat ?? NaN })) };
    players.get(k)!.rows.push({ startedAt: e.startedAt, logId: e.logId, slot: p.slot, m: { match: e.logId, behaviour, flags: p.flags } });
  }
  const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
  const out = [...players.values()].map((p) => {
    p.rows.sort((a, b) => cmp(a.startedAt, b.startedAt) || cmp(a.logId, b.logId) || cmp(a.slot, b.slot));
    const r = scoreAcrossMatches(p.rows.map((x) => x.m), cal);
    return { playerId: p.playerId, verified: p.verified, matches: p.rows.length, scoredMatches: r.matches, score: r.score, threshold: r.threshold, flagged: r.flagged };
  });
  const key = (x: (typeof out)[number]) => [x.flagged ? 0 : 1, x.scoredMatches === 0 ? 1 : 0, -(x.score - x.threshold), -x.score, -x.matches, x.playerId, x.verified ? 1 : 0];
  return out.sort((a, b) => {
    const ka = key(a), kb = key(b);
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return cmp(ka[i]!, kb[i]!);
    return 0;
  });
}

/**
 * The store's ranking equals the brute-force one: the same players in the same order, with the same
 * scores; and what it read (playerSummaries, in SQL) equals the same summary made here from each
 * player's whole history (playerMatches).
 */
async function expectRanking(store: EvidenceStore, ev: readonly MatchEvidence[], cal: CrossMatchCalibration, leftOut?: ReadonlySet<string>) {
  const summaries = await store.playerSummaries(crossHorizon(cal));
  for (const s of summaries) expect(s).toEqual(summaryOf(s, await store.playerMatches(s), crossHorizon(cal), (await store.labels(s)).at(-1)?.label ?? null));
  const ranked = await rankByCrossMatch(store, cal);
  const brute = bruteRanking(ev, cal, leftOut);
  expect(ranked.map((r) => [r.playerId, r.verified, r.matches, r.scoredMatches, r.flagged])).toEqual(brute.map((r) => [r.playerId, r.verified, r.matches, r.scoredMatches, r.flagged]));
  for (let i = 0; i < ranked.length; i++) {
    const [r, x] = [ranked[i]!, brute[i]!];
    if (x.scoredMatches === 0) {
      expect([r.score, r.threshold, r.margin]).toEqual([null, null, null]);
      continue;
    }
    expect(r.score).toBeCloseTo(x.score, 12);
    expect(r.threshold).toBe(x.threshold);
    expect(r.margin).toBeCloseTo(x.score - x.threshold, 12);
  }
  return ranked;
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

  it('follows a player across matches, ranks by the score across matches (the same as computed here from the evidence), labels with who and when', async (ctx) => {
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
      const shipped = loadCrossCalibration(DEFAULT_CROSS_CALIBRATION_URL);
      const ranked = await expectRanking(store, ev, shipped);
      expect(ranked.length).toBe(new Set(ev.flatMap((e) => e.players.map((p) => `${p.playerId}/${p.verified}`))).size);
      for (const r of ranked) {
        const mine = ev.flatMap((e) => e.players.filter((p) => p.playerId === r.playerId && p.verified === r.verified));
        expect([r.flaggedMatches, r.shots, r.unscored, r.note]).toEqual([mine.filter((p) => p.flagged).length, mine.reduce((n, p) => n + p.shots, 0), { noScore: 0, noTailCounts: 0 }, null]);
      }
      // The silent aimer of every copy leads, flagged across its matches; not everyone is flagged.
      expect(ranked[0]!.flagged).toBe(true);
      expect(ranked.some((r) => !r.flagged)).toBe(true);
      expect(ranked.every((r) => r.otherCalibration === 0)).toBe(true);
      // Matches scored with another per-match calibration than the thresholds' are counted in the score, and said so.
      const elsewhere = await expectRanking(store, ev, { ...shipped, behaviourSource: 'another per-match calibration' });
      for (const r of elsewhere) {
        expect(r.otherCalibration).toBe(r.scoredMatches);
        expect(r.note).toMatch(new RegExp(`^${r.scoredMatches} of the scored matches were scored with another per-match calibration`));
      }

      // A horizon of two matches and a threshold between the players' scores: the latest two scored, flagged first.
      const scores = bruteRanking(ev, { ...shipped, thresholds: [0, 0] }).map((r) => r.score).sort((a, b) => a - b);
      const mid = (scores[0]! + scores.at(-1)!) / 2;
      const two = await expectRanking(store, ev, { ...shipped, thresholds: [mid, mid] });
      expect(two.every((r) => r.scoredMatches === Math.min(2, r.matches))).toBe(true);
      expect(two.some((r) => r.flagged) && two.some((r) => !r.flagged)).toBe(true);
      expect(two.find((r) => r.matches > 2)!.note).toMatch(/^scored on 2 of \d matches; left out: \d+ older than the latest 2 scored$/);

      // Rows of an older store: a match recorded before the tail counts were kept, one the audit did not score.
      const old = ev[0]!.players[0]!, noScore = ev[1]!.players[0]!;
      await store.db.run('UPDATE player_measures SET beyond = NULL WHERE log_id = ? AND slot = ?', [ev[0]!.logId, old.slot]);
      await store.db.run('UPDATE player_matches SET score = NULL WHERE log_id = ? AND slot = ?', [ev[1]!.logId, noScore.slot]);
      const older = await expectRanking(store, ev, shipped, new Set([`${ev[0]!.logId}:${old.slot}`, `${ev[1]!.logId}:${noScore.slot}`]));
      const o = older.find((r) => r.playerId === old.playerId && r.verified === old.verified)!;
      expect(o.unscored.noTailCounts).toBe(1);
      expect(o.note).toMatch(/recorded before the store kept the measures' tail counts \(store migration 2/);
      const n = older.find((r) => r.playerId === noScore.playerId && r.verified === noScore.verified)!;
      expect(n.unscored.noScore).toBe(1);
      expect(n.note).toMatch(/1 the audit scored no behaviour in/);

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
      expect((await rankByCrossMatch(store, shipped)).find((r) => r.playerId === top.playerId && r.verified === top.verified)!.label).toBe('cheater');
      await expectRanking(store, ev, shipped, new Set([`${ev[0]!.logId}:${old.slot}`, `${ev[1]!.logId}:${noScore.slot}`]));
      expect((await rankByCrossMatch(store, shipped, { limit: 1 })).length).toBe(1);
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
