/**
 * Random presence patterns (fast-check, seeded) through SnapshotPool and MatchView, against a
 * brute-force reference kept from the received snapshots alone. Players come and go (withheld by
 * fog, or gone and back), change epoch and die; after every snapshot, at times around the received
 * ones, the view must draw a player exactly when the reference says (between two received
 * snapshots of one unbroken run and one epoch, exactly at one, or holding the newest while the
 * newest has it; while absent, its last run up to its last snapshot) at the reference's position, and the shot pipeline's targets (maskTargets) must
 * take a player only at a rewound time where its history gives such a pose. Once with the arena's
 * reader (the state's slot) and once with a reader of ids only, with more ids than slots.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MatchView, SnapshotPool, ARENA_READER, type SnapshotReader } from '../shared/client/view';
import { createPlayerPose } from '../shared/lagcomp/pose';
import { RewindStatus } from '../shared/lagcomp/history';
import { defaultValidationConfig, rewindReachMs } from '../shared/validate/rules';
import { maskTargets, releaseTargets } from '../shared/validate/targets';
import { HIT_ZONE_COUNT } from '../shared/rig/rig';
import { WEAPONS } from '../shared/weapons';
import { MANNEQUIN_RIG } from '../server/rig/mannequin';
import { buildTestWorld } from './helpers/server';
import { arenaState, type StatePlayer } from './helpers/arenaStates';

const world = buildTestWorld();
const SLOTS = 4;
const TICK_HZ = 20;
const rules = defaultValidationConfig(WEAPONS, new Array<number>(HIT_ZONE_COUNT).fill(1), MANNEQUIN_RIG.eyeHeight, SLOTS);

/** One player in one generated snapshot. */
interface Gen { present: boolean; bump: boolean; alive: boolean; x: number }
const weighted = (p: number) => fc.oneof({ arbitrary: fc.constant(true), weight: p }, { arbitrary: fc.constant(false), weight: 10 - p });
const playerArb = fc.record({ present: weighted(7), bump: weighted(1), alive: weighted(8), x: fc.integer({ min: -500, max: 500 }).map((i) => i / 10) });
/**
 * At most 40 snapshots 20..45 ms apart (the rings, 51 at 20 Hz, never wrap and the span stays under
 * the render window), one in ten a repeat of the last time (the view skips its poses; the pool
 * still reads who is in it).
 */
const dtArb = fc.oneof({ arbitrary: fc.constant(0), weight: 1 }, { arbitrary: fc.integer({ min: 20, max: 45 }), weight: 9 });
const patternArb = (ids: number) => fc.array(fc.record({ dt: dtArb, players: fc.array(playerArb, { minLength: ids, maxLength: ids }) }), { minLength: 1, maxLength: 40 });

/** What one id looked like in one applied snapshot; `newRun`: present, and absent from some capture since its last applied one. */
interface Seen { t: number; present: boolean; newRun: boolean; epoch: number; alive: boolean; x: number }

/** The reference: the index of the first snapshot of the run ending at index `end` (present). */
function runStart(hist: readonly Seen[], end = hist.length - 1): number {
  let r = end;
  while (!hist[r]!.newRun) r--;
  return r;
}

/** The reference: the index of the id's newest applied snapshot holding it (its run's end, or its tail's while absent); -1 when none. */
function lastHeld(hist: readonly Seen[]): number {
  let n = hist.length - 1;
  while (n >= 0 && !hist[n]!.present) n--;
  return n;
}

/** The reference: where `hist` (every applied snapshot of one id) says it is drawn at t, or null. */
function refDraw(hist: readonly Seen[], t: number): number | null {
  const n = lastHeld(hist);
  if (n < 0) return null;
  const r = runStart(hist, n);
  if (t > hist[n]!.t) return n === hist.length - 1 ? hist[n]!.x : null; // the newest, held while the newest has it; a tail ends at its last
  if (t < hist[r]!.t) return null;
  for (let i = r; i <= n; i++) {
    const a = hist[i]!;
    if (a.t === t) return a.x;
    const b = hist[i + 1];
    if (b !== undefined && a.t < t && t < b.t) {
      if (a.epoch !== b.epoch) return null;
      const f = (t - a.t) / (b.t - a.t);
      return a.x * (1 - f) + b.x * f;
    }
  }
  return null;
}

/** The reference: since when the id is a target (its first snapshot alive since its run or epoch began), +Infinity when not. */
function refLifeStart(hist: readonly Seen[]): number {
  const n = lastHeld(hist);
  if (n < 0) return Infinity;
  const first = runStart(hist, n);
  let r = n;
  while (r > first && hist[r - 1]!.epoch === hist[n]!.epoch) r--;
  for (let i = r; i <= n; i++) if (hist[i]!.alive) return hist[i]!.t;
  return Infinity;
}

/** A reader keyed by id only (no slots): players is a Map id -> { x, epoch, alive }. */
const ID_READER: SnapshotReader = {
  tick: (s) => s.tick,
  timeMs: (s) => s.serverTimeMs,
  players(s, visit) {
    s.players.forEach(visit);
    return true;
  },
  read(p, o) {
    o.x = p.x; o.y = 0; o.z = p.z; o.viewX = 0; o.viewY = 0; o.viewZ = 1; o.epoch = p.epoch; o.alive = p.alive;
  },
};

/**
 * Runs one pattern: `ids` other players (plus self), each id's presence, epoch bumps, life and x
 * per snapshot; `byId`: the id reader (ids 'p1'..), else the arena's (id = slot 1..). Counts into
 * `tally` what it checked.
 */
function run(pattern: { dt: number; players: Gen[] }[], ids: number, byId: boolean, tally: Tally): void {
  const view = new MatchView(world, MANNEQUIN_RIG, SLOTS, rewindReachMs(rules), TICK_HZ);
  const pool = new SnapshotPool(SLOTS, 2, byId ? ID_READER : ARENA_READER);
  const pose = createPlayerPose();
  const hist: Seen[][] = Array.from({ length: ids }, () => []);
  const epochs = new Array<number>(ids).fill(0);
  const times: number[] = [];
  /** Per id: absent from a capture since its last applied snapshot. */
  const broken = new Array<boolean>(ids).fill(false);
  /** Per id: the slot of its newest applied snapshot holding it, and whether its slot has not been its own at some capture since (its tail is gone). */
  const heldSlot = new Array<number>(ids).fill(-1);
  const lost = new Array<boolean>(ids).fill(true);
  const idOf = (i: number): string | number => (byId ? `p${i + 1}` : i + 1);
  let t = 5000;
  for (let k = 0; k < pattern.length; k++) {
    const step = pattern[k]!;
    const repeat = step.dt === 0 && times.length > 0;
    t += step.dt;
    if (!repeat) times.push(t);
    let state: unknown;
    if (byId) {
      const players = new Map<string, { x: number; z: number; epoch: number; alive: boolean }>([['self', { x: 0, z: -20, epoch: 0, alive: true }]]);
      step.players.forEach((g, i) => {
        if (g.bump) epochs[i]!++;
        if (g.present) players.set(idOf(i) as string, { x: g.x, z: 5 + i, epoch: epochs[i]!, alive: g.alive });
      });
      state = { tick: k, serverTimeMs: t, players };
    } else {
      const players: StatePlayer[] = [{ slot: 0, x: 0, z: -20 }];
      step.players.forEach((g, i) => {
        if (g.bump) epochs[i]!++;
        if (g.present) players.push({ slot: i + 1, x: g.x, z: 5 + i, epoch: epochs[i]!, alive: g.alive });
      });
      state = arenaState(k, t, players);
    }
    const snap = pool.capture(state)!;
    view.apply(snap);
    snap.inUse = false;
    // What was received of each id (one the pool had no slot for was not); a repeat's poses are not applied.
    step.players.forEach((g, i) => {
      const received = g.present && pool.presentNow(idOf(i));
      if (received && !repeat) {
        heldSlot[i] = pool.slotOf(idOf(i));
        lost[i] = false;
      } else if (pool.slotOf(idOf(i)) !== heldSlot[i]) lost[i] = true;
      if (repeat) {
        if (!received) broken[i] = true;
        return;
      }
      const h = hist[i]!;
      const before = h[h.length - 1];
      const newRun = received && (before === undefined || !before.present || broken[i]!);
      broken[i] = false;
      h.push({ t, present: received, newRun, epoch: epochs[i]!, alive: g.alive, x: g.x });
    });
    if (repeat) continue; // the view is as before it (the pool's slots are checked after the next applied one)
    // Times around the newest snapshots: each, 1 ms either side, midpoints, and past the newest.
    const queries: number[] = [t + 17];
    for (let j = Math.max(0, times.length - 12); j < times.length; j++) {
      const tj = times[j]!;
      queries.push(tj, tj - 1, tj + 1);
      if (j > 0) queries.push((times[j - 1]! + tj) / 2);
    }
    // Each slot draws the id it holds or keeps (its tail while absent); a free one draws nothing.
    const held = new Set<number>();
    for (let i = 0; i < ids; i++) {
      const s = pool.slotOf(idOf(i));
      if (s < 0 || lost[i] || lastHeld(hist[i]!) < 0) continue;
      held.add(s);
      expect(view.lifeStartMs[s], `id ${idOf(i)} life start at snapshot ${k}`).toBe(refLifeStart(hist[i]!));
      for (const q of queries) {
        const want = refDraw(hist[i]!, q);
        const drawn = view.renderPose(pose, s, q);
        expect(drawn, `id ${idOf(i)} slot ${s} drawn at ${q} after snapshot ${k}`).toBe(want !== null);
        if (want !== null) expect(Math.abs(pose.x - want), `x of ${idOf(i)} at ${q}`).toBeLessThan(1e-9);
        if (want !== null) tally.drawn++;
        else tally.hidden++;
      }
    }
    // Slots no received id holds draw nothing.
    for (let s = 1; s < SLOTS; s++) {
      if (held.has(s)) continue;
      for (const q of queries) expect(view.renderPose(pose, s, q), `free slot ${s} at ${q}`).toBe(false);
    }
    // The shot pipeline's targets at each rewound time: only where the history gives a received pose.
    for (const q of queries) {
      if (q < t - rules.rewindWindowMs) continue;
      const masked = maskTargets(view, rules, view.targets, pool.slotOf(byId ? 'self' : 0), q, t + 30, true);
      for (let i = 0; i < ids; i++) {
        const h = hist[i]!;
        const n = lastHeld(h);
        const s = pool.slotOf(idOf(i));
        const kept = s >= 0 && !lost[i] && n >= 0;
        const last = kept ? h[n]! : h[h.length - 1]!;
        const tail = kept && n < h.length - 1;
        const eligible = kept && last.alive && refLifeStart(h) <= q && (!tail || q <= last.t);
        const m = s >= 0 ? masked[s] : undefined;
        expect(m !== undefined, `id ${idOf(i)} a target at ${q} after snapshot ${k}`).toBe(eligible);
        if (m === undefined) {
          if (kept && last.alive) tally.notYet++; // held and alive, but the time is before its data or after its tail
          continue;
        }
        if (tail) tally.tailTargets++;
        const status = m.sampleAt(pose, q, view.eyePolicy);
        expect([RewindStatus.EXACT, RewindStatus.INTERPOLATED, RewindStatus.CLAMPED_NEW]).toContain(status);
        expect(Math.abs(pose.x - refDraw(h, q)!)).toBeLessThan(1e-9);
        tally.targets++;
      }
      releaseTargets(masked);
    }
  }
}

/** What a run checked: poses drawn and refused, targets taken (those of a tail apart), and held live players refused as targets at a time outside their data. */
interface Tally { drawn: number; hidden: number; targets: number; notYet: number; tailTargets: number }

describe('MatchView draws and rewinds a player only from received snapshots (random presence, brute force)', () => {
  it('with the arena\'s reader: three others in slots 1..3', () => {
    const tally: Tally = { drawn: 0, hidden: 0, targets: 0, notYet: 0, tailTargets: 0 };
    fc.assert(fc.property(patternArb(3), (p) => run(p, 3, false, tally)), { seed: 0x29c1, numRuns: 100 });
    for (const [k, n] of Object.entries(tally)) expect(n, k).toBeGreaterThan(k === 'tailTargets' ? 200 : 1000);
  });

  it('with a reader of ids only: five others over three slots (a slot goes to another id, an id over the limit is dropped)', () => {
    const tally: Tally = { drawn: 0, hidden: 0, targets: 0, notYet: 0, tailTargets: 0 };
    fc.assert(fc.property(patternArb(5), (p) => run(p, 5, true, tally)), { seed: 0x29c2, numRuns: 100 });
    for (const [k, n] of Object.entries(tally)) expect(n, k).toBeGreaterThan(k === 'tailTargets' ? 200 : 1000);
  });
});
