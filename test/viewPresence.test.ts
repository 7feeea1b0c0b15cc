/**
 * A predicting client's view (shared/client/view.ts) when a player is absent from some snapshots
 * and present again (an enemy the server's fog of war withholds, or one who left and came back):
 * present in A, absent in B..C, present in D. Drawn only from received data (its tail up to A's last
 * snapshot while absent, never after it, never across the gap, never before D); a shot at a render
 * time within its tail hits it, one without data for it predicts a
 * miss on it (the same shot against a view that let it clamp would hit), while the server's HIT
 * verdict is taken like any other; the kill feed names a withheld victim; a kill of a withheld
 * player marks nothing; the snapshot pool gives an absent id its slot back. The bots' sight
 * (client-sim/sight.ts) sees the enemy exactly when the view draws it.
 */
import { describe, expect, it } from 'vitest';
import { MatchView, Snap, SNAP_STRIDE, SnapshotPool, type SnapshotReader } from '../shared/client/view';
import { PredictingShooter, type ClientClock } from '../shared/client/predictor';
import { createPlayerPose } from '../shared/lagcomp/pose';
import { defaultValidationConfig, rewindReachMs } from '../shared/validate/rules';
import { validateShot } from '../shared/validate/shot';
import { createVerdict, reasonName, VerdictKind } from '../shared/validate/verdict';
import { HIT_ZONE_COUNT } from '../shared/rig/rig';
import { WEAPONS, WeaponId } from '../shared/weapons';
import { MANNEQUIN_RIG } from '../server/rig/mannequin';
import { Sight } from '../client-sim/sight';
import { LaunchPredictor } from '../shared/client/projectiles';
import { FlightEventKind } from '../shared/projectile/flight';
import { buildTestWorld } from './helpers/server';
import { arenaState, type StatePlayer } from './helpers/arenaStates';

const world = buildTestWorld();
const MAX = 4;
const TICK_HZ = 20;
const STEP = 1000 / TICK_HZ;
const T0 = 10_000;
const EYE = MANNEQUIN_RIG.eyeHeight;
const rules = defaultValidationConfig(WEAPONS, new Array<number>(HIT_ZONE_COUNT).fill(1), EYE, MAX, [WeaponId.RIFLE]);

const timeOf = (k: number): number => T0 + k * STEP;
/** The enemy (slot 1) walks along +x at 8 m; before the gap it is at x = 0.1 k, after it at x = 2 + 0.1 k. */
const enemyX = (k: number): number => (k < 7 ? 0.1 * k : 2 + 0.1 * k);
/** Snapshot k: self (slot 0) at the origin always; the enemy present unless k is in the gap 4..6. */
function stateAt(k: number, killFeed: { victim: number; timeMs: number }[] = []) {
  const players: StatePlayer[] = [{ slot: 0, x: 0, z: 0 }];
  if (k < 4 || k > 6) players.push({ slot: 1, x: enemyX(k), z: 8, viewZ: -1 });
  return arenaState(k, timeOf(k), players, killFeed);
}

function feed(pool: SnapshotPool, view: MatchView, state: unknown): void {
  const snap = pool.capture(state)!;
  view.apply(snap);
  snap.inUse = false;
}

function newView(): { view: MatchView; pool: SnapshotPool } {
  return { view: new MatchView(world, MANNEQUIN_RIG, MAX, rewindReachMs(rules), TICK_HZ), pool: new SnapshotPool(MAX, 2) };
}

const pose = createPlayerPose();
/** Where the view draws slot 1 at t: its x, or null when not drawn. */
function drawnX(view: MatchView, t: number): number | null {
  return view.renderPose(pose, 1, t) ? pose.x : null;
}

describe('an enemy absent from snapshots B..C and present again in D', () => {
  it('is drawn only from received data: between received snapshots, its tail while absent, not across the gap, from D on', () => {
    const { view, pool } = newView();
    for (let k = 0; k <= 3; k++) feed(pool, view, stateAt(k));
    expect(drawnX(view, timeOf(1) + STEP / 2)).toBeCloseTo(0.15, 12); // between received snapshots
    expect(drawnX(view, timeOf(2))).toBe(0.2);
    expect(drawnX(view, timeOf(0) - 1)).toBeNull(); // before the first snapshot received
    expect(drawnX(view, timeOf(3) + 10)).toBe(0.30000000000000004); // held while the newest has it
    feed(pool, view, stateAt(4)); // B: withheld
    expect(view.present(1)).toBe(false);
    // Its tail: drawn up to its last snapshot (A's run, 0..3), nothing after it.
    expect(view.dataUntilMs[1]).toBe(timeOf(3));
    expect(drawnX(view, timeOf(1) + STEP / 2)).toBeCloseTo(0.15, 12);
    expect(drawnX(view, timeOf(3))).toBe(0.30000000000000004);
    for (let t = timeOf(3) + 1; t <= timeOf(5); t += 5) expect(drawnX(view, t)).toBeNull();
    expect([view.holdsAt(1, timeOf(3)), view.holdsAt(1, timeOf(3) + 1)]).toEqual([true, false]);
    expect(view.presentSinceMs[1]).toBe(timeOf(0));
    feed(pool, view, stateAt(5));
    feed(pool, view, stateAt(6));
    feed(pool, view, stateAt(7)); // D: back
    expect(view.presentSinceMs[1]).toBe(timeOf(7));
    expect(view.dataUntilMs[1]).toBe(Infinity);
    expect(view.lifeStartMs[1]).toBe(timeOf(7));
    expect([view.holdsAt(1, timeOf(7) - 1), view.holdsAt(1, timeOf(7)), view.holdsAt(2, timeOf(7))]).toEqual([false, true, false]);
    // Before D nothing is drawn (the ring would clamp to D's pose; A's are gone).
    for (let t = timeOf(0); t < timeOf(7); t += 5) expect(drawnX(view, t)).toBeNull();
    expect(drawnX(view, timeOf(7))).toBe(enemyX(7));
    feed(pool, view, stateAt(8));
    expect(drawnX(view, timeOf(7) + STEP / 2)).toBeCloseTo((enemyX(7) + enemyX(8)) / 2, 12);
    expect(drawnX(view, (timeOf(3) + timeOf(7)) / 2)).toBeNull();
  });

  it('hits its tail, predicts a miss on it at a render time without its data, and takes the server\'s HIT all the same', () => {
    const { view, pool } = newView();
    const shooter = new PredictingShooter(view, rules);
    shooter.slot = 0;
    shooter.alive = true;
    const clock: ClientClock = { serverNowMs: 0, rttMs: 40, interpDelayMs: 100, newestTickMs: 0, streamFloorMs: Number.NaN };
    /** A rifle shot from self's eye through where the enemy stands in snapshot `k`, seen at render time `r`. */
    const fireAt = (k: number, r: number) => {
      clock.serverNowMs = r + clock.interpDelayMs;
      clock.newestTickMs = view.newestTimeMs;
      const dx = enemyX(k), dy = 1.3 - EYE, dz = 8;
      const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
      return shooter.fire(clock, r, 0, EYE, 0, (dx / l) * 100, EYE + (dy / l) * 100, (dz / l) * 100, 1);
    };
    for (let k = 0; k <= 3; k++) feed(pool, view, stateAt(k));
    const control = fireAt(1, timeOf(1)); // shots 100 ms apart: the rifle's fire interval
    expect(reasonName(control.verdict.reason)).toBe('OK_HIT');
    feed(pool, view, stateAt(4)); // withheld: a shot at its tail (received data) still hits it
    const withheld = fireAt(3, timeOf(3));
    expect(reasonName(withheld.verdict.reason)).toBe('OK_HIT');
    expect(withheld.verdict.target).toBe(1);
    for (let k = 5; k <= 10; k++) feed(pool, view, stateAt(k));
    // Render time inside the gap, aimed where it stands at D: a miss on it.
    const gap = fireAt(7, timeOf(6));
    expect(reasonName(gap.verdict.reason)).toBe('OK_MISS');
    const gapSeq = gap.seq;
    // Second method: the same message against the same view, with the life start lifted (what
    // clamping the ring to D would give) hits: the mask alone makes the miss.
    const lifted = { ...view.targets, lifeStartMs: [-Infinity, -Infinity, -Infinity, -Infinity] };
    const st = shooter.weapons.confirmed;
    const again = validateShot(createVerdict(), view, rules, gap.bytes, { ...st, lastSeq: gapSeq - 1, ammo: st.ammo.slice(), reloadEndMs: st.reloadEndMs.slice() },
      { receiveTimeMs: clock.serverNowMs + 20, rttMs: 40, interpDelayMs: 100, newestTickMs: view.newestTimeMs }, lifted);
    expect(reasonName(again.reason)).toBe('OK_HIT');
    expect(again.target).toBe(1);
    // From D on it is hit where it is drawn.
    const back = fireAt(8, timeOf(8));
    expect(reasonName(back.verdict.reason)).toBe('OK_HIT');
    // The server (with the whole history) says the gap shot hit: the rules state takes it as fired.
    shooter.settle(control.seq, { kind: VerdictKind.HIT, reason: control.verdict.reason });
    shooter.settle(withheld.seq, { kind: VerdictKind.HIT, reason: control.verdict.reason });
    shooter.settle(gapSeq, { kind: VerdictKind.HIT, reason: control.verdict.reason });
    shooter.settle(back.seq, { kind: VerdictKind.HIT, reason: back.verdict.reason });
    expect(shooter.weapons.firedMismatches).toBe(0);
    expect(shooter.weapons.confirmed.ammo[WeaponId.RIFLE]).toBe(shooter.weapons.head.ammo[WeaponId.RIFLE]);
    expect(shooter.weapons.head.ammo[WeaponId.RIFLE]).toBe(WEAPONS[WeaponId.RIFLE]!.magazine - 4);
  });

  it('predicts a miss at a render time after its tail (where its last pose would be clamped)', () => {
    const { view, pool } = newView();
    const shooter = new PredictingShooter(view, rules);
    shooter.slot = 0;
    shooter.alive = true;
    for (let k = 0; k <= 4; k++) feed(pool, view, stateAt(k));
    const r = timeOf(3) + STEP / 2; // after its tail's end (A's run ends at 3), aimed where it stood at 3
    const clock: ClientClock = { serverNowMs: r + 100, rttMs: 40, interpDelayMs: 100, newestTickMs: view.newestTimeMs, streamFloorMs: Number.NaN };
    const dx = enemyX(3), dy = 1.3 - EYE, dz = 8, l = Math.sqrt(dx * dx + dy * dy + dz * dz);
    const shot = shooter.fire(clock, r, 0, EYE, 0, (dx / l) * 100, EYE + (dy / l) * 100, (dz / l) * 100, 1);
    expect(reasonName(shot.verdict.reason)).toBe('OK_MISS');
    // Second method: without the tail's end the ring clamps to its last pose, and the same message hits.
    const { dataUntilMs: _until, ...clamping } = view.targets;
    const st = shooter.weapons.confirmed;
    const again = validateShot(createVerdict(), view, rules, shot.bytes, { ...st, lastSeq: shot.seq - 1, ammo: st.ammo.slice(), reloadEndMs: st.reloadEndMs.slice() },
      { receiveTimeMs: clock.serverNowMs + 20, rttMs: 40, interpDelayMs: 100, newestTickMs: view.newestTimeMs }, clamping);
    expect(reasonName(again.reason)).toBe('OK_HIT');
    expect(again.target).toBe(1);
  });

  it('is listed in the kill feed while withheld, and a kill of it marks nothing', () => {
    const { view, pool } = newView();
    for (let k = 0; k <= 3; k++) feed(pool, view, stateAt(k));
    const snap = pool.capture(stateAt(4, [{ victim: 1, timeMs: timeOf(4) - 5 }]))!;
    view.apply(snap);
    snap.inUse = false;
    expect(snap.deathCount).toBe(1);
    expect([snap.deaths[0], snap.deaths[1]]).toEqual([1, timeOf(4) - 5]);
    view.markKilled(1); // the server's HIT with killed for a withheld victim
    feed(pool, view, stateAt(5));
    feed(pool, view, stateAt(6));
    feed(pool, view, stateAt(7));
    expect(view.aliveLatest(1)).toBe(true);
    // Killed while drawn, then withheld: its return in the same epoch is what the state says.
    view.markKilled(1);
    expect(view.aliveLatest(1)).toBe(false);
    feed(pool, view, arenaState(8, timeOf(8), [{ slot: 0, x: 0, z: 0 }]));
    feed(pool, view, stateAt(9));
    expect(view.aliveLatest(1)).toBe(true);
  });

  it('starts a new run after an absence in a capture the view skipped as a repeat of the same time', () => {
    const { view, pool } = newView();
    feed(pool, view, stateAt(0));
    feed(pool, view, stateAt(1));
    feed(pool, view, arenaState(1, timeOf(1), [{ slot: 0, x: 0, z: 0 }])); // same time, the enemy withheld: poses skipped
    expect(view.present(1)).toBe(true); // the view's newest is still the first state of that time
    feed(pool, view, stateAt(2));
    expect(view.presentSinceMs[1]).toBe(timeOf(2));
    expect(drawnX(view, timeOf(1) + STEP / 2)).toBeNull();
    expect(drawnX(view, timeOf(2))).toBe(enemyX(2));
  });

  it('is never drawn across an epoch change within a run, and drawn from the new epoch\'s first snapshot', () => {
    const { view, pool } = newView();
    feed(pool, view, arenaState(0, timeOf(0), [{ slot: 0, x: 0, z: 0 }, { slot: 1, x: 0, z: 8 }]));
    feed(pool, view, arenaState(1, timeOf(1), [{ slot: 0, x: 0, z: 0 }, { slot: 1, x: 5, z: 8, epoch: 1 }]));
    expect(drawnX(view, timeOf(0))).toBe(0);
    expect(drawnX(view, timeOf(0) + 1)).toBeNull();
    expect(drawnX(view, timeOf(1) - 1)).toBeNull();
    expect(drawnX(view, timeOf(1))).toBe(5);
  });
});

describe('an own rocket predicted toward an enemy back from the fog', () => {
  /** A rocket from (0, 1, 0) along +z launched at snapshot `launchK`'s time; the enemy 1.5 m ahead, withheld in 4..9. Its end. */
  function flyAt(launchK: number): { kind: number; player: number } {
    const { view, pool } = newView();
    const predictor = new LaunchPredictor(view, { ...rules, loadout: [WeaponId.ROCKET] }, TICK_HZ);
    const state = (k: number) => arenaState(k, timeOf(k), k >= 4 && k <= 9 ? [{ slot: 0, x: 0, z: -3 }] : [{ slot: 0, x: 0, z: -3 }, { slot: 1, x: 0, z: 1.5, viewZ: -1 }]);
    for (let k = 0; k <= 12; k++) feed(pool, view, state(k));
    let end: { kind: number; player: number } | null = null;
    const onEnd = (e: { kind: number; player: number }) => { end ??= { kind: e.kind, player: e.player }; };
    expect(predictor.launch(0, WeaponId.ROCKET, 1, 0, 1, 0, 0, 0, 1, timeOf(launchK), onEnd)).toBeGreaterThanOrEqual(0);
    for (let t = timeOf(launchK); end === null && t < timeOf(launchK) + 6000; t += 16) predictor.advance(t, onEnd);
    return end!;
  }

  it('meets it only from its first snapshot back on (launched in the gap it flies past where it stands at D)', () => {
    expect(flyAt(10)).toMatchObject({ kind: FlightEventKind.PLAYER, player: 1 }); // control: from D on it is hit
    expect(flyAt(5).player).toBe(-1); // launched while withheld: it met no one before D, and was past it after
  });
});

describe('the bots\' sight', () => {
  it('finds the enemy exactly when the view draws it', () => {
    const { view, pool } = newView();
    const sight = new Sight(MANNEQUIN_RIG, world, view);
    const eye = new Float64Array([0, EYE, 0]);
    for (let k = 0; k <= 9; k++) {
      feed(pool, view, stateAt(k));
      for (let t = timeOf(k) - 3 * STEP; t <= timeOf(k); t += STEP / 4) {
        const found = sight.findTarget(0, eye, t, true, 60, null);
        expect(found, `snapshot ${k}, t ${t}`).toBe(drawnX(view, t) === null ? -1 : 1);
      }
    }
  });
});

/** A reader without slots, as a game keyed by session ids: ids 'a', 'b', ... in a Map of x positions. */
const ID_READER: SnapshotReader = {
  tick: (s) => s.tick,
  timeMs: (s) => s.timeMs,
  players(s, visit) {
    s.players.forEach(visit);
    return true;
  },
  read(p, o) {
    o.x = p; o.y = 0; o.z = 0; o.viewX = 0; o.viewY = 0; o.viewZ = 1;
  },
  deaths(s, visit) {
    for (const id of s.dead ?? []) visit(id, s.timeMs);
  },
};
const idState = (k: number, ids: string[], dead: string[] = []) => ({ tick: k, timeMs: timeOf(k), players: new Map(ids.map((id, i) => [id, i])), dead });

describe('SnapshotPool slots by id', () => {
  it('gives an absent id its slot back, a new id a slot never used first, and maps a kill feed id', () => {
    const pool = new SnapshotPool(4, 2, ID_READER);
    pool.capture(idState(0, ['a', 'b', 'c']))!.inUse = false;
    expect(['a', 'b', 'c'].map((id) => pool.slotOf(id))).toEqual([0, 1, 2]);
    const snap = pool.capture(idState(1, ['a', 'c'], ['b']))!;
    snap.inUse = false;
    expect(pool.slotOf('b')).toBe(1);
    expect(pool.presentNow('b')).toBe(false);
    expect(snap.players[1 * SNAP_STRIDE + Snap.PRESENT]).toBe(0);
    expect([snap.deathCount, snap.deaths[0]]).toEqual([1, 1]); // 'b' withheld, named by id
    pool.capture(idState(2, ['a', 'c', 'd']))!.inUse = false;
    expect(pool.slotOf('d')).toBe(3);
    pool.capture(idState(3, ['a', 'b', 'c', 'd']))!.inUse = false;
    expect(pool.slotOf('b')).toBe(1);
    expect(pool.presentNow('b')).toBe(true);
  });

  it('hands the longest-absent slot to a new id when none is free, never a present one\'s', () => {
    const pool = new SnapshotPool(3, 2, ID_READER);
    pool.capture(idState(0, ['a', 'b', 'c']))!.inUse = false;
    pool.capture(idState(1, ['a', 'c']))!.inUse = false; // b absent since 1
    pool.capture(idState(2, ['a']))!.inUse = false; // c absent since 2
    pool.capture(idState(3, ['a', 'd']))!.inUse = false;
    expect(pool.slotOf('d')).toBe(1); // b's
    expect(pool.slotOf('b')).toBe(-1);
    expect(pool.slotOf('c')).toBe(2);
    pool.capture(idState(4, ['a', 'd', 'c', 'b']))!.inUse = false; // b over the limit: no slot
    expect([pool.slotOf('a'), pool.slotOf('d'), pool.slotOf('c'), pool.slotOf('b')]).toEqual([0, 1, 2, -1]);
    pool.capture(idState(5, ['e', 'a', 'd', 'c']))!.inUse = false; // e first, all others present last time
    expect([pool.slotOf('a'), pool.slotOf('d'), pool.slotOf('c'), pool.slotOf('e')]).toEqual([0, 1, 2, -1]);
  });

  it('starts a new run in the view when a slot goes to another id: nothing joined, no kill carried over', () => {
    const view = new MatchView(world, MANNEQUIN_RIG, 2, rewindReachMs(rules), TICK_HZ);
    const pool = new SnapshotPool(2, 2, ID_READER);
    feed(pool, view, idState(0, ['a', 'b']));
    feed(pool, view, idState(1, ['a', 'b']));
    view.markKilled(1);
    expect(view.aliveLatest(1)).toBe(false);
    feed(pool, view, idState(2, ['a']));
    feed(pool, view, { tick: 3, timeMs: timeOf(3), players: new Map([['a', 0], ['z', 7]]) });
    expect(pool.slotOf('z')).toBe(1);
    expect(view.aliveLatest(1)).toBe(true); // same epoch number, another player
    expect(view.presentSinceMs[1]).toBe(timeOf(3));
    expect(view.renderPose(pose, 1, timeOf(2))).toBe(false);
    expect(view.renderPose(pose, 1, timeOf(3)) && pose.x).toBe(7);
  });
});
