// The shipped hitbox rig: it is what the build script makes from the mannequin (hash), loading
// refuses edited data, hulls are closed, convex and wound outward, posing is exact at frame times
// and continuous between them, zone multipliers, and no trigonometry in shared/rig or shared/lagcomp.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildRig, MANNEQUIN_PATH } from '../server/rig/buildRig';
import {
  bindGlobals, globalMatrices, sampleLocalTRS,
} from '../server/rig/skinning';
import { rigidFromMat4 } from '../server/rig/mat4';
import { loadSkinnedCharacter } from '../server/rig/character';
import { Clip, MANNEQUIN_RIG } from '../server/rig/mannequin';
import { composeRoot, sampleClipBones } from '../shared/rig/posing';
import {
  BONE_STRIDE, DEFAULT_ZONE_MULTIPLIERS, HitZone, HIT_ZONE_COUNT, loadRig, rigDataHash, zoneMultiplier,
} from '../shared/rig/rig';

const rig = MANNEQUIN_RIG;
const MANNEQUIN_RIG_DATA = MANNEQUIN_RIG.data!; // as read from server/assets/mannequin.hrrg

describe('shipped mannequin rig', () => {
  it('is exactly what npm run build:rig makes from the asset (same content hash)', async () => {
    const ch = await loadSkinnedCharacter(MANNEQUIN_PATH);
    expect(ch.jointNames.length).toBe(56);
    const built = buildRig(ch, 'mannequiny-0.3.0.glb');
    expect(built.data.hash).toBe(MANNEQUIN_RIG_DATA.hash);
    expect(rig.hash).toBe(MANNEQUIN_RIG_DATA.hash);
    expect(rig.hash).toMatch(/^[0-9a-f]{16}$/);
  });

  it('refuses data whose content does not match its hash, or an unknown version', () => {
    const tampered = { ...MANNEQUIN_RIG_DATA, payload: 'AAAA' + MANNEQUIN_RIG_DATA.payload.slice(4) };
    expect(() => loadRig(tampered)).toThrow(/build:rig/);
    const meta = MANNEQUIN_RIG_DATA.meta.replace('"height":', '"height":1+');
    expect(() => loadRig({ ...MANNEQUIN_RIG_DATA, meta })).toThrow(/hash/);
    expect(() => loadRig({ ...MANNEQUIN_RIG_DATA, version: 99 })).toThrow(/format/);
    // A consistent re-stamp of a truncated payload is caught by the length check instead.
    const short = MANNEQUIN_RIG_DATA.payload.slice(0, -8);
    expect(() => loadRig({ ...MANNEQUIN_RIG_DATA, payload: short, hash: rigDataHash(MANNEQUIN_RIG_DATA.meta, short) })).toThrow(/shorter/);
  });

  it('has one hitbox per zone and side, clips in Clip order, a plausible height', () => {
    expect(rig.hitboxCount).toBe(17);
    const zones = Array.from(rig.hitboxZone);
    for (let z = 0; z < HIT_ZONE_COUNT; z++) expect(zones.filter((v) => v === z).length).toBe(z <= HitZone.PELVIS ? 1 : 2);
    expect(rig.clips.map((c) => c.name)).toEqual(['Idle-loop', 'Jog-loop', 'Run-loop', 'Fall-loop']);
    expect(rig.clips[Clip.RUN].name).toBe('Run-loop');
    expect(rig.height).toBeGreaterThan(1.7);
    expect(rig.height).toBeLessThan(1.85);
    expect(rig.eyeHeight).toBeGreaterThan(1.55);
    expect(rig.eyeHeight).toBeLessThan(rig.height);
    for (let h = 0; h < rig.hitboxCount; h++) {
      const n = rig.triStart[h + 1] - rig.triStart[h];
      expect(n).toBeGreaterThanOrEqual(8);
      expect(n).toBeLessThanOrEqual(64); // "a few dozen triangles at most"
    }
  });

  it('hulls are closed, convex and wound counter-clockwise seen from outside', () => {
    const T = rig.triangles;
    for (let h = 0; h < rig.hitboxCount; h++) {
      const a = rig.triStart[h], b = rig.triStart[h + 1];
      // Closed: every directed edge appears once and its reverse once.
      const edges = new Map<string, number>();
      const key = (i: number) => `${T[i]},${T[i + 1]},${T[i + 2]}`;
      for (let t = a; t < b; t++) {
        for (let k = 0; k < 3; k++) {
          const e = `${key(t * 9 + k * 3)}|${key(t * 9 + ((k + 1) % 3) * 3)}`;
          edges.set(e, (edges.get(e) ?? 0) + 1);
        }
      }
      for (const [e, n] of edges) {
        expect(n).toBe(1);
        const [p, q] = e.split('|');
        expect(edges.get(`${q}|${p}`)).toBe(1);
      }
      // Convex and outward: every vertex is behind (or on) every triangle's plane.
      for (let t = a; t < b; t++) {
        const o = t * 9;
        const e1 = [T[o + 3] - T[o], T[o + 4] - T[o + 1], T[o + 5] - T[o + 2]];
        const e2 = [T[o + 6] - T[o], T[o + 7] - T[o + 1], T[o + 8] - T[o + 2]];
        const n = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
        const len = Math.hypot(n[0], n[1], n[2]);
        for (let v = a * 9; v < b * 9; v += 3) {
          const d = (n[0] * (T[v] - T[o]) + n[1] * (T[v + 1] - T[o + 1]) + n[2] * (T[v + 2] - T[o + 2])) / len;
          expect(d).toBeLessThan(1e-5);
        }
      }
      // The local sphere holds every vertex.
      const s = rig.hitboxSpheres.subarray(h * 4, h * 4 + 4);
      for (let v = a * 9; v < b * 9; v += 3) expect(Math.hypot(T[v] - s[0], T[v + 1] - s[1], T[v + 2] - s[2])).toBeLessThanOrEqual(s[3]);
    }
  });

  it('posing is exact at frame times, wraps the loop, and matches the glTF clip between frames', async () => {
    const ch = await loadSkinnedCharacter(MANNEQUIN_PATH);
    const H = rig.hitboxCount;
    const out = new Float64Array(H * BONE_STRIDE);
    for (let c = 0; c < rig.clips.length; c++) {
      const clip = rig.clips[c];
      for (const f of [0, 1, clip.frameCount >> 1, clip.frameCount - 2]) {
        sampleClipBones(out, rig, c, f / clip.framesPerSecond);
        const frame = rig.frames.subarray(clip.offset + f * H * BONE_STRIDE, clip.offset + (f + 1) * H * BONE_STRIDE);
        for (let i = 0; i < out.length; i++) expect(out[i]).toBeCloseTo(frame[i], 12);
      }
      // Loop: time + k * duration poses the same.
      const ref = new Float64Array(out.length);
      sampleClipBones(ref, rig, c, 0.123);
      sampleClipBones(out, rig, c, 0.123 + 7 * clip.duration);
      for (let i = 0; i < out.length; i++) expect(out[i]).toBeCloseTo(ref[i], 9);
    }
    // Between frames: against the exact glTF sampling (slerp) at the same time, within 5 mm / small angle.
    const local = new Float64Array(ch.nodeNames.length * 10);
    const globals = new Float64Array(ch.nodeNames.length * 16);
    const rigid = new Float64Array(7);
    fc.assert(fc.property(fc.integer({ min: 0, max: 3 }), fc.double({ min: 0, max: 1, noNaN: true }), (c, u) => {
      const clip = rig.clips[c];
      const time = u * clip.duration;
      sampleClipBones(out, rig, c, time);
      sampleLocalTRS(local, ch, ch.clips.find((k) => k.name === clip.name)!, time);
      globalMatrices(globals, ch, local);
      for (let h = 0; h < H; h++) {
        const j = rig.hitboxJoint[h];
        rigidFromMat4(rigid, globals.subarray(j * 16, j * 16 + 16));
        const o = h * BONE_STRIDE;
        expect(Math.hypot(out[o] - rigid[0], out[o + 1] - rigid[1], out[o + 2] - rigid[2])).toBeLessThan(0.005);
        const dot = Math.abs(out[o + 3] * rigid[3] + out[o + 4] * rigid[4] + out[o + 5] * rigid[5] + out[o + 6] * rigid[6]);
        expect(dot).toBeGreaterThan(0.9995); // under ~3.6 degrees
      }
    }), { seed: 4101, numRuns: 40 });
    // Bind pose equals the rigid part of inverse(IBM).
    const bg = bindGlobals(ch);
    for (let h = 0; h < H; h++) {
      const j = rig.hitboxJoint[h];
      rigidFromMat4(rigid, bg.subarray(j * 16, j * 16 + 16));
      for (let k = 0; k < 7; k++) expect(rig.bindPose[h * 7 + k]).toBeCloseTo(rigid[k], 6);
    }
  });

  it('the skeleton evaluation agrees with the skin: rest pose * IBM is identity, clips stand on the ground', async () => {
    // Independent of the rig: if node globals were wrong, the skinned reference and the rig would be
    // wrong together and the quality test could not tell.
    const ch = await loadSkinnedCharacter(MANNEQUIN_PATH);
    const globals = new Float64Array(ch.nodeNames.length * 16);
    globalMatrices(globals, ch, ch.nodeRest);
    const bg = bindGlobals(ch);
    for (let j = 0; j < ch.jointNames.length; j++) {
      for (let k = 12; k < 15; k++) expect(Math.abs(globals[j * 16 + k] - bg[j * 16 + k])).toBeLessThan(0.03);
    }
    const bones = new Float64Array(rig.hitboxCount * BONE_STRIDE);
    const foot = [rig.hitboxName.indexOf('foot.l'), rig.hitboxName.indexOf('foot.r')];
    const head = rig.hitboxName.indexOf('head');
    for (const c of [Clip.IDLE, Clip.JOG, Clip.RUN]) {
      for (let f = 0; f < 10; f++) {
        sampleClipBones(bones, rig, c, (f / 10) * rig.clips[c].duration);
        const low = Math.min(bones[foot[0] * 7 + 1], bones[foot[1] * 7 + 1]);
        expect(low).toBeGreaterThan(-0.05);
        expect(low).toBeLessThan(0.35);
        expect(bones[head * 7 + 1]).toBeGreaterThan(1.35);
      }
    }
  });

  it('an unknown clip or a non-finite time poses the bind pose and says so', () => {
    const out = new Float64Array(rig.hitboxCount * BONE_STRIDE);
    expect(sampleClipBones(out, rig, 9, 0)).toBe(false);
    expect(Array.from(out)).toEqual(Array.from(rig.bindPose));
    expect(sampleClipBones(out, rig, 0.5, 0)).toBe(false);
    expect(sampleClipBones(out, rig, Clip.IDLE, NaN)).toBe(false);
    expect(sampleClipBones(out, rig, Clip.IDLE, -3.5)).toBe(true); // negative times wrap like positive ones
  });

  it('composeRoot: identity root changes nothing; out may alias the input', () => {
    const bones = Float64Array.from(rig.bindPose);
    const out = new Float64Array(bones.length);
    composeRoot(out, bones, rig.hitboxCount, 0, 0, 0, 0, 0, 0, 1);
    expect(Array.from(out)).toEqual(Array.from(bones));
    const s = Math.sin(0.4), c = Math.cos(0.4);
    composeRoot(out, bones, rig.hitboxCount, 1, 2, 3, 0, s, 0, c);
    composeRoot(bones, bones, rig.hitboxCount, 1, 2, 3, 0, s, 0, c);
    expect(Array.from(bones)).toEqual(Array.from(out));
  });

  it('zone multipliers: defaults from the issue, per-weapon tables, malformed entries fall back', () => {
    expect(DEFAULT_ZONE_MULTIPLIERS[HitZone.HEAD]).toBe(4);
    expect(DEFAULT_ZONE_MULTIPLIERS[HitZone.NECK]).toBe(2);
    expect(DEFAULT_ZONE_MULTIPLIERS[HitZone.UPPER_TORSO]).toBe(1);
    expect(DEFAULT_ZONE_MULTIPLIERS[HitZone.LOWER_TORSO]).toBe(1);
    expect(DEFAULT_ZONE_MULTIPLIERS[HitZone.PELVIS]).toBe(1.25);
    for (const z of [HitZone.UPPER_ARM, HitZone.FOREARM, HitZone.THIGH, HitZone.CALF]) expect(DEFAULT_ZONE_MULTIPLIERS[z]).toBe(0.75);
    for (const z of [HitZone.HAND, HitZone.FOOT]) expect(DEFAULT_ZONE_MULTIPLIERS[z]).toBe(0.5);
    const sniper = { [HitZone.HEAD]: 10, [HitZone.HAND]: NaN, [HitZone.FOOT]: -1 };
    expect(zoneMultiplier(HitZone.HEAD, sniper)).toBe(10);
    expect(zoneMultiplier(HitZone.HAND, sniper)).toBe(0.5);
    expect(zoneMultiplier(HitZone.FOOT, sniper)).toBe(0.5);
    expect(zoneMultiplier(HitZone.PELVIS)).toBe(1.25);
    expect(Object.isFrozen(DEFAULT_ZONE_MULTIPLIERS)).toBe(true);
  });

  it('shared/rig and shared/lagcomp use no trigonometry, clock or Node module', () => {
    for (const dir of ['../shared/rig/', '../shared/lagcomp/']) {
      const path = fileURLToPath(new URL(dir, import.meta.url));
      for (const f of readdirSync(path).filter((n) => n.endsWith('.ts') && n !== 'mannequinData.ts')) {
        const src = readFileSync(path + f, 'utf8');
        expect(src, f).not.toMatch(/Math\.(sin|cos|tan|asin|acos|atan2?|pow|exp|log|hypot|random)\b/);
        expect(src, f).not.toMatch(/\b(Date|performance)\b\s*[.(]/);
        expect(src, f).not.toMatch(/from ['"](node:|fs|path|crypto|worker_threads)/);
      }
    }
  });
});
