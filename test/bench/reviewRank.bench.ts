/**
 * The review page's ranking cost: rankByCrossMatch (server/evidence/cross.ts) over an evidence
 * store of P players with about M matches each, in a temporary SQLite file and, when it answers, a
 * PostgreSQL schema of its own (dropped after). Matches hold 16 players drawn from the P (seeded),
 * every measure of score.ts with seeded events, tail counts and statistics: the rows a store of real
 * audits holds, not their values (the cost does not depend on them).
 *
 * Per row: the store's rows, then the median over --rounds of one ranking (what one request to
 * /review/api/players costs), split into reading the players' numbers and latest matches
 * (store.playerSummaries) and scoring them (rankEntry per player, no I/O).
 *
 * Run: npm run bench:review [-- --json] [-- --players N] [-- --matches M] [-- --rounds R]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './args';
import { mulberry32 } from '../../shared/util/prng';
import { MEASURES } from '../../server/behaviour/score';
import { DEFAULT_CROSS_CALIBRATION_URL, loadCrossCalibration } from '../../server/behaviour/crossCalibration';
import { EvidenceStore } from '../../server/evidence/store';
import { crossHorizon, rankByCrossMatch, rankEntry } from '../../server/evidence/cross';
import type { MatchEvidence } from '../../server/evidence/evidence';
import { PG_URL, dropSchema, postgresProblem, uniqueName } from '../helpers/services';

const PER_MATCH = 16;

/** Fills `store` with seeded matches: ceil(players * matches / 16) matches of 16 slots. */
async function fill(store: EvidenceStore, players: number, matches: number, seed: number): Promise<void> {
  const rnd = mulberry32(seed);
  const n = Math.ceil((players * matches) / PER_MATCH);
  for (let j = 0; j < n; j++) {
    const e: MatchEvidence = {
      logId: j.toString(16).padStart(64, '0'), path: `/bench/${j}.hrml`, roomId: `room${j}`, startedAt: new Date(Date.UTC(2030, 0, 1) + j * 60_000).toISOString(),
      auditedAt: new Date(Date.UTC(2030, 0, 2)).toISOString(), complete: true, shots: 0, calibration: 'bench', slotsWithoutIdentity: 0, slotsChangedHands: 0, players: [],
    };
    for (let slot = 0; slot < PER_MATCH; slot++) {
      e.players.push({
        playerId: `player${Math.floor(rnd() * players)}`, verified: false, slot, shots: 40, hits: 12, headshots: 3, score: 3 * rnd(), flagged: false, flags: [],
        measures: MEASURES.map((m) => ({
          measure: m.name, events: m.level === 'player' ? 1 : 5 + Math.floor(rnd() * 25), beyond: Math.floor(rnd() * 4),
          stat: m.level === 'player' ? 2 * rnd() - 1 : 0.35 + 0.3 * rnd(), p: rnd(), score: 0,
        })),
        offending: [],
      });
    }
    await store.record(e);
  }
}

const median = (xs: number[]): number => xs.slice().sort((a, b) => a - b)[xs.length >> 1]!;

async function measure(store: EvidenceStore, where: string, o: { players: number; matches: number; rounds: number }) {
  const cal = loadCrossCalibration(DEFAULT_CROSS_CALIBRATION_URL);
  await fill(store, o.players, o.matches, 1);
  const counts = await store.counts();
  const total: number[] = [], read: number[] = [], score: number[] = [];
  await rankByCrossMatch(store, cal); // warm: statements prepared, code compiled
  for (let r = 0; r < o.rounds; r++) {
    let t = performance.now();
    await rankByCrossMatch(store, cal, { limit: 100 });
    total.push(performance.now() - t);
    t = performance.now();
    const all = await store.playerSummaries(crossHorizon(cal));
    read.push(performance.now() - t);
    t = performance.now();
    for (const p of all) rankEntry(p, cal);
    score.push(performance.now() - t);
  }
  return {
    bench: 'review-rank', store: where, players: o.players, playerMatches: counts.playerMatches, measureRows: counts.measures,
    rankMs: Math.round(median(total)), readMs: Math.round(median(read)), scoreMs: Math.round(median(score)),
  };
}

export async function run(opts: { json: boolean; players?: number; matches?: number; rounds?: number }): Promise<void> {
  const o = { players: Math.floor(opts.players ?? 1000), matches: Math.floor(opts.matches ?? 5), rounds: Math.floor(opts.rounds ?? 5) };
  const rows: Record<string, unknown>[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'bench-review-'));
  try {
    const store = await EvidenceStore.open(join(dir, 'evidence.sqlite'));
    try {
      rows.push(await measure(store, 'sqlite', o));
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const problem = await postgresProblem();
  if (problem !== null) {
    console.error(`review-rank: PostgreSQL skipped: ${problem}`);
  } else {
    const schema = uniqueName('bench_review').toLowerCase();
    const store = await EvidenceStore.open(PG_URL, { schema });
    try {
      rows.push(await measure(store, 'postgres', o));
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  }
  for (const r of rows) {
    if (opts.json) console.log(JSON.stringify(r));
    else console.log(`review-rank ${r.store}: ${r.players} players, ${r.playerMatches} player-matches, ${r.measureRows} measure rows: ranking ${r.rankMs} ms (read ${r.readMs} ms, score ${r.scoreMs} ms)`);
  }
}

// Standalone: tsx test/bench/reviewRank.bench.ts [--json]
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await run(benchArgs('reviewRank.bench.ts', ['players', 'matches', 'rounds']));
}
