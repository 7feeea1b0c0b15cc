/**
 * Pellets and penetration through validateShot: spread patterns the client can compute but not
 * choose (predicted pulls accepted pellet for pellet, stacked, forged and miscounted pellets
 * refused), spray heat, and bullets through walls and players checked against a second method:
 * the walls' thickness and the power left computed by hand from the boxes the world was built from.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { pushBox } from './helpers/server';
import { AT, eye, judge, pull, sceneWith, SEED, shooterWith, timing, zoneTable, type Wall } from './helpers/wallScene';
import { HitZone } from '../shared/rig/rig';
import { World } from '../shared/world/world';
import { MAX_PELLETS, WEAPONS, WeaponId, type WeaponSpec } from '../shared/weapons';
import { encodeShot, shotBytes, type ShotMessage } from '../shared/protocol/shot';
import { validateShot } from '../shared/validate/shot';
import { createShooterState, createVerdict, reasonName, VerdictKind } from '../shared/validate/verdict';
import { patternOffsets, predictPellets, spreadRadius, sprayHeatAt } from '../shared/validate/spread';
import { applyFire } from '../shared/validate/weaponRules';
import { DEFAULT_PLAYER_COST, SHEET_THICKNESS_M } from '../shared/validate/pellets';

describe('spread patterns', () => {
  it('offsets lie in the unit disc, are the same for the same inputs and differ by pull, slot and seed', () => {
    const a = patternOffsets(new Float64Array(2 * MAX_PELLETS), 1, 2, 3, MAX_PELLETS);
    const b = patternOffsets(new Float64Array(2 * MAX_PELLETS), 1, 2, 3, MAX_PELLETS);
    expect(Array.from(a)).toEqual(Array.from(b));
    for (let k = 0; k < MAX_PELLETS; k++) expect(a[2 * k]! ** 2 + a[2 * k + 1]! ** 2).toBeLessThanOrEqual(1);
    for (const other of [[1, 2, 4], [1, 3, 3], [2, 2, 3]]) {
      const c = patternOffsets(new Float64Array(2 * MAX_PELLETS), other[0]!, other[1]!, other[2]!, MAX_PELLETS);
      expect(Array.from(c)).not.toEqual(Array.from(a));
    }
  });

  it('is uniform over the disc: a quarter of the pellets inside half the radius, centred', () => {
    const o = new Float64Array(2 * MAX_PELLETS);
    let inner = 0, n = 0, mx = 0, my = 0;
    for (let pull = 0; pull < 4000; pull++) {
      patternOffsets(o, SEED, 3, pull, MAX_PELLETS);
      for (let k = 0; k < MAX_PELLETS; k++, n++) {
        if (o[2 * k]! ** 2 + o[2 * k + 1]! ** 2 <= 0.25) inner++;
        mx += o[2 * k]!;
        my += o[2 * k + 1]!;
      }
    }
    // 64000 draws: the binomial's standard deviation on 0.25 is 0.0017.
    expect(Math.abs(inner / n - 0.25)).toBeLessThan(0.01);
    expect(Math.abs(mx / n)).toBeLessThan(0.01);
    expect(Math.abs(my / n)).toBeLessThan(0.01);
  });

  it('each pellet is as long as the aim and leaves it by at most the radius', () => {
    fc.assert(fc.property(
      fc.integer({ min: 0, max: 0xffffffff }), fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true }),
      (seq, ax, ay, az) => {
        const l = Math.sqrt(ax * ax + ay * ay + az * az);
        fc.pre(l > 1e-3);
        const w = WEAPONS[WeaponId.SHOTGUN]!;
        const out = new Float64Array(3 * MAX_PELLETS);
        const st = createShooterState(1, [1, 1, 1, 1]);
        st.pulls = seq;
        const n = predictPellets(out, SEED, st, w, 0, 1, 2, 3, 1 + ax, 2 + ay, 3 + az);
        expect(n).toBe(w.pellets);
        for (let k = 0; k < n; k++) {
          const px = out[3 * k]! - 1, py = out[3 * k + 1]! - 2, pz = out[3 * k + 2]! - 3;
          const pl = Math.sqrt(px * px + py * py + pz * pz);
          expect(Math.abs(pl - l)).toBeLessThan(1e-9 * (1 + l));
          // tan of the angle to the aim <= spread
          const dot = (px * ax + py * ay + pz * az) / (pl * l);
          const tan = Math.sqrt(Math.max(0, 1 - dot * dot)) / dot;
          expect(tan).toBeLessThanOrEqual(w.spread! * (1 + 1e-6) + 1e-9);
        }
      },
    ), { seed: 11, numRuns: 300 });
  });

  it('spray: the first shot of a burst flies true, the radius grows per shot and recovers with time', () => {
    const smg: WeaponSpec = { id: 0, name: 'smg', damage: 10, rangeM: 60, fireIntervalMs: 80, magazine: 30, reloadMs: 2000, drawMs: 300, zoneMultipliers: null, spread: 0, spreadPerShot: 0.01, spreadMax: 0.05, spreadRecoverMs: 400 };
    const st = createShooterState(0, [30]);
    expect(spreadRadius(smg, sprayHeatAt(st, smg, 1000))).toBe(0);
    const radii: number[] = [];
    for (let i = 0; i < 8; i++) {
      const t = 1000 + i * 80;
      radii.push(spreadRadius(smg, sprayHeatAt(st, smg, t)));
      applyFire(st, smg, t);
    }
    expect(radii[0]).toBe(0);
    for (let i = 1; i < 8; i++) expect(radii[i]!).toBeGreaterThan(radii[i - 1]! - 1e-12);
    expect(Math.max(...radii)).toBeLessThanOrEqual(0.05);
    // 8 shots, then 4 s without firing: every one forgotten.
    expect(sprayHeatAt(st, smg, 1000 + 7 * 80 + 4000)).toBe(0);
    const out = new Float64Array(3);
    predictPellets(out, SEED, createShooterState(0, [30]), smg, 5000, 0, 1, 0, 0, 1, 10);
    expect(Array.from(out)).toEqual([0, 1, 10]);
  });
});

describe('pellets through the pipeline', () => {
  const s = sceneWith([], [[0.3, 6], [-0.3, 6.5]]);

  it('a predicted pull is judged pellet by pellet: one round, each pellet its own hit and damage', () => {
    const v = judge(s, pull(s, WeaponId.SHOTGUN, s.zone(1, HitZone.UPPER_TORSO)));
    expect(reasonName(v.reason)).toBe('OK_HIT');
    expect(v.pellets.count).toBe(8);
    expect(v.after.ammo[WeaponId.SHOTGUN]).toBe(WEAPONS[WeaponId.SHOTGUN]!.magazine - 1);
    expect(v.hits.count).toBeGreaterThan(1);
    let sum = 0;
    for (let i = 0; i < v.hits.count; i++) {
      sum += v.hits.damage[i]!;
      expect(v.pellets.reason[v.hits.pellet[i]!]).toBe(0); // OK_HIT
    }
    expect(v.damage).toBe(sum);
    // Each pellet ends where the rebuilt pattern says (the client's own prediction).
    const m = pull(s, WeaponId.SHOTGUN, s.zone(1, HitZone.UPPER_TORSO));
    for (let k = 0; k < 8; k++) expect([v.pellets.ex[k], v.pellets.ey[k], v.pellets.ez[k]]).toEqual([m.pellets[3 * k], m.pellets[3 * k + 1], m.pellets[3 * k + 2]]);
  });

  it('refuses pellets stacked on the aim (no spread), another seq\'s pattern, more or fewer pellets, and a pellet nudged 1 mm', () => {
    const head = s.zone(1, HitZone.HEAD);
    const good = pull(s, WeaponId.SHOTGUN, head, 7);
    const noSpread = { ...good, pellets: good.pellets.slice() };
    for (let k = 0; k < 8; k++) noSpread.pellets.set([good.ex, good.ey, good.ez], 3 * k);
    // Another pull's pattern (the next one's), sent as this pull.
    const forged = pull(s, WeaponId.SHOTGUN, head, 8);
    forged.seq = 7;
    const stacked = { ...good, pellets: good.pellets.slice(), pelletCount: 12 };
    for (let k = 8; k < 12; k++) stacked.pellets.set([good.ex, good.ey, good.ez], 3 * k);
    const nudged = { ...good, pellets: good.pellets.slice() };
    nudged.pellets[5] = nudged.pellets[5]! + 0.001;
    const cases: [ShotMessage, string][] = [
      [noSpread, 'SPREAD_MISMATCH'], [forged, 'SPREAD_MISMATCH'], [stacked, 'PELLET_COUNT'],
      [{ ...good, pelletCount: 7 }, 'PELLET_COUNT'], [{ ...good, pelletCount: 0 }, 'PELLET_COUNT'], [nudged, 'SPREAD_MISMATCH'],
      [{ ...pull(s, WeaponId.RIFLE, head, 7), pelletCount: 1, pellets: good.pellets }, 'PELLET_COUNT'],
    ];
    for (const [m, reason] of cases) {
      const before = shooterWith(m.weapon);
      const v = judge(s, m, before);
      expect(reasonName(v.reason), reason).toBe(reason);
      expect(v.kind).toBe(VerdictKind.REJECTED);
      expect(v.hits.count).toBe(0);
      // Nothing fired: the round and the fire clock are the state before.
      expect(v.after.ammo).toEqual(before.ammo);
      expect(v.after.nextFireMs).toBe(before.nextFireMs);
    }
    expect(reasonName(judge(s, good).reason)).toBe('OK_HIT');
  });

  it('a skipped seq chooses no pattern: the pattern is the pull\'s (pulls fired), whatever the seq', () => {
    const head = s.zone(1, HitZone.HEAD);
    const state = shooterWith(WeaponId.SHOTGUN, 3);
    const honest = pull(s, WeaponId.SHOTGUN, head, 4, 30, state);
    // The same pull sent with seq 4 or seq 1000: the same pellets are the only ones accepted.
    for (const seq of [4, 1000]) {
      const v = judge(s, { ...honest, seq }, shooterWith(WeaponId.SHOTGUN, 3));
      expect([v.fired, v.kind === VerdictKind.REJECTED], reasonName(v.reason)).toEqual([true, false]);
      const shopped = pull(s, WeaponId.SHOTGUN, head, seq, 30, shooterWith(WeaponId.SHOTGUN, seq - 1));
      if (seq !== 4) expect(reasonName(judge(s, shopped, shooterWith(WeaponId.SHOTGUN, 3)).reason)).toBe('SPREAD_MISMATCH');
    }
    // A pull that fired moves the pattern on; a refused one does not.
    const fired = judge(s, honest, shooterWith(WeaponId.SHOTGUN, 3));
    expect(fired.after.pulls).toBe(4);
    const refused = judge(s, { ...honest, pellets: new Float64Array(honest.pellets.length) }, shooterWith(WeaponId.SHOTGUN, 3));
    expect([reasonName(refused.reason), refused.after.pulls]).toEqual(['SPREAD_MISMATCH', 3]);
  });

  it('a shotgun pellet stops in the first player; the players hit are all in front', () => {
    for (let seq = 1; seq <= 40; seq++) {
      const v = judge(s, pull(s, WeaponId.SHOTGUN, s.zone(1, HitZone.UPPER_TORSO), seq));
      for (let i = 0; i < v.hits.count; i++) expect(v.hits.walls[i]).toBe(0);
      const perPellet = new Map<number, number>();
      for (let i = 0; i < v.hits.count; i++) perPellet.set(v.hits.pellet[i]!, (perPellet.get(v.hits.pellet[i]!) ?? 0) + 1);
      for (const n of perPellet.values()) expect(n).toBe(1);
    }
  });
});

describe('spray through the pipeline', () => {
  it('an automatic weapon\'s first shot flies along the aim and the spray widens shot by shot, each predicted from the state after the last', () => {
    const smg: WeaponSpec = { id: WEAPONS.length, name: 'smg', damage: 10, rangeM: 60, fireIntervalMs: 80, magazine: 30, reloadMs: 2000, drawMs: 300, zoneMultipliers: null, spread: 0, spreadPerShot: 0.01, spreadMax: 0.05, spreadRecoverMs: 400 };
    const weapons = [...WEAPONS, smg];
    const sc = sceneWith([], [[0, 6]], { weapons, loadout: weapons.map((w) => w.id) });
    const state = createShooterState(0, weapons.map((w) => w.magazine), weapons.map((w) => w.id));
    state.equipped = smg.id;
    const offsets: number[] = [];
    for (let i = 0; i < 6; i++) {
      const m = { ...pull(sc, 0, sc.zone(1, HitZone.UPPER_TORSO), i + 1), weapon: smg.id, timeMs: AT - 500 + i * 80, renderTimeMs: AT - 600 + i * 80 };
      m.pelletCount = predictPellets(m.pellets, SEED, state, smg, m.timeMs, m.sx, m.sy, m.sz, m.ex, m.ey, m.ez);
      expect(m.pelletCount).toBe(1);
      const v = validateShot(createVerdict(), sc.scene, sc.config, encodeShot(new Uint8Array(shotBytes(1)), m), state, timing, sc.targets);
      expect(v.fired, reasonName(v.reason)).toBe(true);
      offsets.push(Math.hypot(m.pellets[0]! - m.ex, m.pellets[1]! - m.ey, m.pellets[2]! - m.ez) / 30);
      Object.assign(state, { ...v.after, ammo: v.after.ammo.slice(), reloadEndMs: v.after.reloadEndMs.slice() });
    }
    expect(offsets[0]).toBe(0);
    // Each shot's offset is within its radius: 0.01 per shot of heat (less what 80 ms recovered), at most 0.05.
    for (let i = 1; i < 6; i++) expect(offsets[i]!).toBeLessThanOrEqual(Math.min(0.05, 0.01 * i) + 1e-12);
    expect(state.pulls).toBe(6);
  });
});

describe('penetration', () => {
  const sniper = WEAPONS[WeaponId.SNIPER]!;
  const power = sniper.penetration!;

  it('through walls of random thickness and material: passes exactly when the power pays, damage scaled by the power left', () => {
    const resist: Record<string, number> = { wood: 1, concrete: 2, steel: 8 };
    fc.assert(fc.property(
      fc.array(fc.record({ thick: fc.double({ min: 0.02, max: 0.5, noNaN: true }), material: fc.constantFrom('wood', 'concrete', 'steel', 'unnamed') }), { minLength: 1, maxLength: 3 }),
      (ws) => {
        const walls: Wall[] = [];
        let z = 2;
        for (const w of ws) {
          walls.push({ z0: z, z1: z + w.thick, material: w.material });
          z += w.thick + 0.5;
        }
        const sc = sceneWith(walls, [[0, z + 1.5]]);
        const m = pull(sc, WeaponId.SNIPER, sc.zone(1, HitZone.UPPER_TORSO));
        const v = judge(sc, m);
        // The second method: the costs summed from the boxes, wall by wall (walls are float32: the
        // thickness is the rounded one), along the slanted path (length / its z extent per metre
        // of wall). Cases within 1e-6 of the edge are left out.
        const slant = Math.sqrt((m.ex - m.sx) ** 2 + (m.ey - m.sy) ** 2 + (m.ez - m.sz) ** 2) / Math.abs(m.ez - m.sz);
        let left = power, passes = true, nearEdge = false;
        const f32 = (x: number) => Math.fround(x);
        for (const w of walls) {
          const cost = (f32(w.z1) - f32(w.z0)) * slant * (resist[w.material] ?? sc.config.defaultResistance!);
          if (Math.abs(cost - left) < 1e-6) nearEdge = true;
          if (cost >= left) {
            passes = false;
            break;
          }
          left -= cost;
        }
        fc.pre(!nearEdge);
        if (passes) {
          expect(reasonName(v.reason)).toBe('OK_HIT');
          expect(v.hits.walls[0]).toBe(walls.length);
          const full = sniper.damage * zoneTable[v.hits.zone[0]!]!;
          expect(v.hits.damage[0]! / full).toBeCloseTo(left / power, 9);
          // An entry and an exit hole per wall, in order along the bullet, before the hit (the
          // bullet may fly on through the player into the floor).
          let before = 0;
          for (let i = 0; i < v.impacts.count; i++) if (v.impacts.t[i]! < v.hits.t[0]!) before++;
          expect(before).toBe(2 * walls.length);
          for (let i = 0; i < walls.length; i++) {
            expect(v.impacts.exit[2 * i]).toBe(0);
            expect(v.impacts.exit[2 * i + 1]).toBe(1);
            expect(v.impacts.z[2 * i]).toBeCloseTo(walls[i]!.z0, 5);
            expect(v.impacts.z[2 * i + 1]).toBeCloseTo(walls[i]!.z1, 5);
          }
        } else {
          expect(reasonName(v.reason)).toBe('OCCLUDED');
          expect(v.hits.count).toBe(0);
        }
      },
    ), { seed: 5, numRuns: 120 });
  });

  it('a weapon without penetration stops at the thinnest wall; the visibility rule gives way only behind a wall passed', () => {
    const sc = sceneWith([{ z0: 3, z1: 3.05, material: 'wood' }], [[0, 6]]);
    const rifle = judge(sc, pull(sc, WeaponId.RIFLE, sc.zone(1, HitZone.HEAD)));
    expect(reasonName(rifle.reason)).toBe('OCCLUDED');
    expect(rifle.impacts.count).toBe(1);
    const through = judge(sc, pull(sc, WeaponId.SNIPER, sc.zone(1, HitZone.HEAD)));
    expect(reasonName(through.reason)).toBe('OK_HIT');
    expect(through.hits.walls[0]).toBe(1);
  });

  it('a start pushed around a corner does not wall-bang what the eye cannot see: the first wall entered must be in sight', () => {
    // A thin wood wall in front of the target; a concrete block too thick to pass hides the wood
    // wall's entry point from the eye, but not from a start 1.4 m to the side (within the origin tolerance).
    const sc = sceneWith([{ z0: 4, z1: 4.1, material: 'wood', x0: 1.5, x1: 5 }, { z0: 1.8, z1: 2.2, material: 'concrete', x0: 0.5, x1: 1.7 }], [[3.5, 6]]);
    const side: [number, number, number] = [1.4, eye[1], 0];
    const peek = judge(sc, pull(sc, WeaponId.SNIPER, sc.zone(1, HitZone.UPPER_TORSO), 1, 30, undefined, side));
    expect(reasonName(peek.reason)).toBe('NOT_VISIBLE');
    expect(peek.hits.count).toBe(0);
    // From the eye itself the bullet meets the block first: 0.4 m of concrete is more than its power.
    expect(reasonName(judge(sc, pull(sc, WeaponId.SNIPER, sc.zone(1, HitZone.UPPER_TORSO))).reason)).toBe('OCCLUDED');
    // Without the block the same peek through the wood is a hit.
    const open = sceneWith([{ z0: 4, z1: 4.1, material: 'wood', x0: 1.5, x1: 5 }], [[3.5, 6]]);
    expect(reasonName(judge(open, pull(open, WeaponId.SNIPER, open.zone(1, HitZone.UPPER_TORSO), 1, 30, undefined, side)).reason)).toBe('OK_HIT');
  });

  it('passes through one player into the next, each later one hit with the power left after the ones before', () => {
    const sc = sceneWith([], [[0, 6], [0, 9]]);
    const v = judge(sc, pull(sc, WeaponId.SNIPER, sc.zone(1, HitZone.UPPER_TORSO)));
    expect(reasonName(v.reason)).toBe('OK_HIT');
    expect(v.hits.count).toBe(2);
    expect([v.hits.target[0], v.hits.target[1]]).toEqual([1, 2]);
    const unit = (i: number) => v.hits.damage[i]! / (sniper.damage * zoneTable[v.hits.zone[i]!]!);
    expect(unit(0)).toBe(1);
    expect(unit(1)).toBeCloseTo((power - DEFAULT_PLAYER_COST) / power, 12);
    expect(v.damage).toBe(v.hits.damage[0]! + v.hits.damage[1]!);
  });

  it('a one-sided sheet costs SHEET_THICKNESS_M of its material and leaves one hole', () => {
    const sheets = (n: number) => {
      const sc = sceneWith([], [[0, 6]]);
      const pos: number[] = [];
      const idx: number[] = [];
      pushBox(pos, idx, -50, -1, -50, 50, 0, 50);
      const ranges = [{ start: 0, count: idx.length / 3, node: 'floor', material: 'floor' }];
      for (let i = 0; i < n; i++) {
        const z = 2 + i, b = pos.length / 3, start = idx.length / 3;
        pos.push(-3, 0, z, 3, 0, z, 3, 3, z, -3, 3, z);
        idx.push(b, b + 2, b + 1, b, b + 3, b + 2); // front face toward -z, the shooter's side
        ranges.push({ start, count: 2, node: `sheet${i}`, material: 'steel' });
      }
      const world = World.fromTriangles(new Float64Array(pos), new Uint32Array(idx), ranges);
      return { ...sc, scene: { ...sc.scene, world } };
    };
    const one = sheets(1);
    const v = judge(one, pull(one, WeaponId.SNIPER, one.zone(1, HitZone.UPPER_TORSO)));
    expect(reasonName(v.reason)).toBe('OK_HIT');
    expect(v.impacts.count).toBe(1);
    expect(v.damage / (sniper.damage * zoneTable[HitZone.UPPER_TORSO]!)).toBeCloseTo((power - 8 * SHEET_THICKNESS_M) / power, 12);
    const two = sheets(2);
    expect(reasonName(judge(two, pull(two, WeaponId.SNIPER, two.zone(1, HitZone.UPPER_TORSO))).reason)).toBe('OCCLUDED');
  });
});
