/**
 * Rig quality against the real skinned mesh. For the bind pose and sampled times of every clip (each
 * under a seeded random root transform), skin the character with linear-blend skinning (exact glTF
 * sampling, see ./skinning), aim seeded segments at points on the skinned surface from outside, and
 * compare: the first skinned triangle hit (brute force, watertight kernel) and its dominant joint's
 * zone, against the rig's first hitbox hit (shared/lagcomp/rewind, posed from the rig data at the
 * same clip and time). Reports the fraction of segments that hit some hitbox and the fraction whose
 * hitbox zone equals the skinned triangle's zone. The rig-quality test asserts on these;
 * `npx tsx server/rig/quality.ts` prints them per zone for the mannequin, and
 * `npm run build:rig -- <character>` for any character it builds.
 */
import { pathToFileURL } from 'node:url';
import { createSegmentHit, type SegmentHit } from '../../shared/kernels/hit';
import { createPreparedSegment, intersectPrepared, prepareSegment, type PreparedSegment } from '../../shared/kernels/watertight';
import { composeRoot } from '../../shared/rig/posing';
import { BONE_STRIDE, HIT_ZONE_COUNT, HIT_ZONE_NAMES, type Rig } from '../../shared/rig/rig';
import { createHitboxHit, Rewinder, type HitboxHit } from '../../shared/lagcomp/rewind';
import { createPlayerPose, type PlayerPose } from '../../shared/lagcomp/pose';
import { bindGlobals, dominantJointPerTriangle, globalMatrices, jointMatrices, sampleLocalTRS, skinPositions } from './skinning';
import { jointParents, jointWeights, loadSkinnedCharacter, type SkinnedCharacter } from './character';
import { mapSkeleton } from './bones';
import { mulberry32 } from '../../shared/util/prng';

export interface QualityOptions {
  seed: number;
  /** Sampled times per clip (the bind pose is always included once). */
  timesPerClip: number;
  /** Segments per pose. */
  segmentsPerPose: number;
  /** Random segments through the bound per pose, for the over-coverage figure (0 to skip). */
  probesPerPose?: number;
  /** Distance of the segment start from the aimed surface point, metres. */
  startDistance: number;
  /** Zone of each source joint (the reference); default: the bone mapping by names (./bones). */
  jointZone?: Uint8Array;
}

export interface QualityReport {
  segments: number;
  /** Segments that hit some hitbox. */
  hits: number;
  /** Segments whose first hitbox's zone equals the zone of the first skinned triangle's bone. */
  zoneMatches: number;
  hitFraction: number;
  zoneFraction: number;
  /** Per reference zone: segments, hits, matches. */
  perZone: { zone: string; segments: number; hits: number; matches: number }[];
  poses: number;
  /**
   * Over-coverage: random segments through the character's bound that miss the skinned mesh, and
   * how many of those still hit a hitbox (hulls are convex and padded, so some do).
   */
  nearMisses: number;
  falseHits: number;
  falseHitFraction: number;
}

/** The zone of every source joint by the default bone mapping (names, or the file's VRM table). */
export function defaultJointZones(ch: SkinnedCharacter): Uint8Array {
  return mapSkeleton({ jointNames: ch.jointNames, jointParent: jointParents(ch), jointWeight: jointWeights(ch), declaredRoles: ch.declaredRoles }).jointZone;
}

export function measureRigQuality(ch: SkinnedCharacter, rig: Rig, opts: QualityOptions): QualityReport {
  const m = createMeasurement(ch, rig, opts);
  const t: Tally = {
    segments: 0, hits: 0, matches: 0, poses: 0, nearMisses: 0, falseHits: 0,
    perZone: Array.from({ length: HIT_ZONE_COUNT }, (_, z) => ({ zone: HIT_ZONE_NAMES[z], segments: 0, hits: 0, matches: 0 })),
  };
  for (const st of poseStates(rig, opts.timesPerClip, m.rnd)) {
    const total = poseBoth(m, st);
    t.poses++;
    for (let s = 0; s < opts.segmentsPerPose; s++) aimSegment(m, total, t);
    for (let s = 0; s < (opts.probesPerPose ?? 0); s++) probeOverCoverage(m, t);
  }
  return {
    segments: t.segments, hits: t.hits, zoneMatches: t.matches, hitFraction: t.hits / t.segments, zoneFraction: t.matches / t.segments, perZone: t.perZone, poses: t.poses,
    nearMisses: t.nearMisses, falseHits: t.falseHits, falseHitFraction: t.nearMisses > 0 ? t.falseHits / t.nearMisses : 0,
  };
}

/** What one measurement reads and its scratch buffers, shared by its steps. */
interface Measurement {
  ch: SkinnedCharacter;
  rig: Rig;
  opts: QualityOptions;
  rnd: () => number;
  rewinder: Rewinder;
  /** Per skinned triangle: its dominant joint; per joint: its reference zone. */
  triJoint: Int32Array;
  zoneOfJoint: Uint8Array;
  /** Triangle count of the skinned mesh. */
  nt: number;
  local: Float64Array;
  globals: Float64Array;
  jm: Float64Array;
  skinned: Float64Array;
  /** The skinned mesh under the pose's root transform. */
  world: Float64Array;
  /** The rig's bones in the same pose, world space. */
  bones: Float64Array;
  /** Running sum of triangle areas of `world`, for area-weighted picks. */
  cumArea: Float64Array;
  /** Box of `world`, for the over-coverage probes. */
  mn: number[];
  mx: number[];
  seg: PreparedSegment;
  tmpHit: SegmentHit;
  hbHit: HitboxHit;
  pose: PlayerPose;
}

/** The counts a measurement adds up. */
interface Tally {
  segments: number;
  hits: number;
  matches: number;
  poses: number;
  nearMisses: number;
  falseHits: number;
  perZone: QualityReport['perZone'];
}

function createMeasurement(ch: SkinnedCharacter, rig: Rig, opts: QualityOptions): Measurement {
  const nodeCount = ch.nodeNames.length;
  return {
    ch, rig, opts,
    rnd: mulberry32(opts.seed),
    rewinder: new Rewinder(rig),
    triJoint: dominantJointPerTriangle(ch),
    zoneOfJoint: opts.jointZone ?? defaultJointZones(ch),
    nt: ch.indices.length / 3,
    local: new Float64Array(nodeCount * 10),
    globals: new Float64Array(nodeCount * 16),
    jm: new Float64Array(ch.jointNames.length * 16),
    skinned: new Float64Array(ch.positions.length),
    world: new Float64Array(ch.positions.length),
    bones: new Float64Array(rig.hitboxCount * BONE_STRIDE),
    cumArea: new Float64Array(ch.indices.length / 3),
    mn: [Infinity, Infinity, Infinity],
    mx: [-Infinity, -Infinity, -Infinity],
    seg: createPreparedSegment(),
    tmpHit: createSegmentHit(),
    hbHit: createHitboxHit(),
    pose: createPlayerPose(),
  };
}

/** The bind pose (clip -1), then `timesPerClip` seeded times of every clip of the rig. */
function poseStates(rig: Rig, timesPerClip: number, rnd: () => number): { clip: number; time: number }[] {
  const states: { clip: number; time: number }[] = [{ clip: -1, time: 0 }];
  for (let c = 0; c < rig.clips.length; c++) {
    for (let k = 0; k < timesPerClip; k++) states.push({ clip: c, time: rnd() * rig.clips[c].duration });
  }
  return states;
}

/**
 * Poses the skinned mesh (m.world) and the rig (m.bones) alike, under a seeded random root
 * transform; fills m.cumArea and the mesh's box. Returns the mesh's total area.
 */
function poseBoth(m: Measurement, st: { clip: number; time: number }): number {
  const { ch, rig, rnd, pose, jm, bones, skinned, world } = m;
  // Root: random yaw and position (the test must exercise the root composition too).
  const yaw = rnd() * Math.PI * 2;
  pose.x = (rnd() - 0.5) * 20; pose.y = (rnd() - 0.5) * 2; pose.z = (rnd() - 0.5) * 20;
  pose.qx = 0; pose.qy = Math.sin(yaw / 2); pose.qz = 0; pose.qw = Math.cos(yaw / 2);
  if (st.clip < 0) {
    // Bind pose: skinning with G = inverse(IBM) reproduces the stored positions.
    jointMatrices(jm, ch, bindGlobals(ch));
    composeRoot(bones, rig.bindPose, rig.hitboxCount, pose.x, pose.y, pose.z, pose.qx, pose.qy, pose.qz, pose.qw);
  } else {
    // A role the character has no clip for holds the rest pose (the build's "rest" clip).
    const clip = ch.clips.find((c) => c.name === rig.clips[st.clip].name) ?? { name: 'rest', duration: 1, channels: [] };
    sampleLocalTRS(m.local, ch, clip, st.time);
    globalMatrices(m.globals, ch, m.local);
    jointMatrices(jm, ch, m.globals);
    pose.clip = st.clip;
    pose.time = st.time;
    m.rewinder.poseBones(bones, pose);
  }
  skinPositions(skinned, ch, jm);
  // Root transform on the skinned mesh.
  const pr = [0, 0, 0];
  for (let v = 0; v < skinned.length; v += 3) {
    rotate(pr, pose.qx, pose.qy, pose.qz, pose.qw, skinned[v], skinned[v + 1], skinned[v + 2]);
    world[v] = pr[0] + pose.x; world[v + 1] = pr[1] + pose.y; world[v + 2] = pr[2] + pose.z;
  }
  let total = 0;
  for (let t = 0; t < m.nt; t++) {
    total += triArea(world, ch.indices, t);
    m.cumArea[t] = total;
  }
  const { mn, mx } = m;
  mn.fill(Infinity); mx.fill(-Infinity);
  for (let v = 0; v < world.length; v += 3) for (let k = 0; k < 3; k++) { mn[k] = Math.min(mn[k], world[v + k]); mx[k] = Math.max(mx[k], world[v + k]); }
  return total;
}

/**
 * One segment aimed from outside at a seeded point of the skinned surface: the first skinned
 * triangle it meets (brute force) gives the reference zone; the rig's first hitbox is scored against it.
 */
function aimSegment(m: Measurement, total: number, t: Tally): void {
  const { ch, rnd, world, nt } = m;
  // Area-weighted triangle, uniform point on it.
  const pick = rnd() * total;
  let lo = 0, hi = nt - 1;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (m.cumArea[mid] < pick) lo = mid + 1; else hi = mid; }
  const tri = lo;
  let u = rnd(), v = rnd();
  if (u + v > 1) { u = 1 - u; v = 1 - v; }
  const ia = ch.indices[tri * 3] * 3, ib = ch.indices[tri * 3 + 1] * 3, ic = ch.indices[tri * 3 + 2] * 3;
  const P = [0, 1, 2].map((k) => world[ia + k] * (1 - u - v) + world[ib + k] * u + world[ic + k] * v);
  // Direction: cosine-weighted around the triangle's outward normal (shots come from outside).
  const n = triNormal(world, ch.indices, tri);
  const dir = cosineHemisphere(rnd, n);
  const d = m.opts.startDistance;
  const S = [P[0] + dir[0] * d, P[1] + dir[1] * d, P[2] + dir[2] * d];
  const E = [P[0] - dir[0] * 0.5, P[1] - dir[1] * 0.5, P[2] - dir[2] * 0.5];
  // Reference: first skinned triangle along the segment (brute force).
  prepareSegment(m.seg, S[0], S[1], S[2], E[0], E[1], E[2]);
  let bestT = 1, bestTri = -1;
  for (let k = 0; k < nt; k++) {
    const a = ch.indices[k * 3] * 3, b = ch.indices[k * 3 + 1] * 3, c = ch.indices[k * 3 + 2] * 3;
    if (intersectPrepared(m.tmpHit, m.seg, world[a], world[a + 1], world[a + 2], world[b], world[b + 1], world[b + 2], world[c], world[c + 1], world[c + 2], false, bestT)) {
      if (bestTri < 0 || m.tmpHit.t < bestT) { bestT = m.tmpHit.t; bestTri = k; }
    }
  }
  if (bestTri < 0) return; // grazing an edge from the inside of a fold; no reference
  const refZone = m.zoneOfJoint[m.triJoint[bestTri]];
  t.segments++;
  t.perZone[refZone].segments++;
  if (m.rewinder.intersectBones(m.hbHit, m.bones, S[0], S[1], S[2], E[0], E[1], E[2])) {
    t.hits++;
    t.perZone[refZone].hits++;
    if (m.hbHit.zone === refZone) { t.matches++; t.perZone[refZone].matches++; }
  }
}

/** Over-coverage probe: a segment from 3 m out through a seeded point of the skinned mesh's box. */
function probeOverCoverage(m: Measurement, t: Tally): void {
  const { ch, rnd, world, nt, mn, mx } = m;
  const T = [0, 1, 2].map((k) => mn[k] + rnd() * (mx[k] - mn[k]));
  const d = cosineHemisphere(rnd, [0, 0, 1]);
  const yaw2 = rnd() * Math.PI * 2;
  const dir = [d[0] * Math.cos(yaw2) - d[2] * Math.sin(yaw2), d[1], d[0] * Math.sin(yaw2) + d[2] * Math.cos(yaw2)];
  const S = [T[0] + dir[0] * 3, T[1] + dir[1] * 3, T[2] + dir[2] * 3];
  const E = [T[0] - dir[0] * 3, T[1] - dir[1] * 3, T[2] - dir[2] * 3];
  prepareSegment(m.seg, S[0], S[1], S[2], E[0], E[1], E[2]);
  let any = false;
  for (let k = 0; k < nt && !any; k++) {
    const a = ch.indices[k * 3] * 3, b = ch.indices[k * 3 + 1] * 3, c = ch.indices[k * 3 + 2] * 3;
    any = intersectPrepared(m.tmpHit, m.seg, world[a], world[a + 1], world[a + 2], world[b], world[b + 1], world[b + 2], world[c], world[c + 1], world[c + 2], false, 1);
  }
  if (any) return;
  t.nearMisses++;
  if (m.rewinder.intersectBones(m.hbHit, m.bones, S[0], S[1], S[2], E[0], E[1], E[2])) t.falseHits++;
}

function rotate(out: number[], qx: number, qy: number, qz: number, qw: number, px: number, py: number, pz: number): void {
  const cx = qy * pz - qz * py, cy = qz * px - qx * pz, cz = qx * py - qy * px;
  out[0] = px + 2 * (qw * cx + qy * cz - qz * cy);
  out[1] = py + 2 * (qw * cy + qz * cx - qx * cz);
  out[2] = pz + 2 * (qw * cz + qx * cy - qy * cx);
}

function triNormal(p: Float64Array, idx: Uint32Array, t: number): number[] {
  const a = idx[t * 3] * 3, b = idx[t * 3 + 1] * 3, c = idx[t * 3 + 2] * 3;
  const e1 = [p[b] - p[a], p[b + 1] - p[a + 1], p[b + 2] - p[a + 2]];
  const e2 = [p[c] - p[a], p[c + 1] - p[a + 1], p[c + 2] - p[a + 2]];
  const n = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
  const l = Math.hypot(n[0], n[1], n[2]) || 1;
  return [n[0] / l, n[1] / l, n[2] / l];
}

function triArea(p: Float64Array, idx: Uint32Array, t: number): number {
  const n = triNormalRaw(p, idx, t);
  return Math.hypot(n[0], n[1], n[2]) / 2;
}

function triNormalRaw(p: Float64Array, idx: Uint32Array, t: number): number[] {
  const a = idx[t * 3] * 3, b = idx[t * 3 + 1] * 3, c = idx[t * 3 + 2] * 3;
  const e1 = [p[b] - p[a], p[b + 1] - p[a + 1], p[b + 2] - p[a + 2]];
  const e2 = [p[c] - p[a], p[c + 1] - p[a + 1], p[c + 2] - p[a + 2]];
  return [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
}

function cosineHemisphere(rnd: () => number, n: number[]): number[] {
  const r1 = rnd(), r2 = rnd();
  const r = Math.sqrt(r1), phi = 2 * Math.PI * r2;
  const lx = r * Math.cos(phi), ly = r * Math.sin(phi), lz = Math.sqrt(Math.max(0, 1 - r1));
  // Orthonormal basis around n.
  const a = Math.abs(n[0]) > 0.9 ? [0, 1, 0] : [1, 0, 0];
  let tx = n[1] * a[2] - n[2] * a[1], ty = n[2] * a[0] - n[0] * a[2], tz = n[0] * a[1] - n[1] * a[0];
  const tl = Math.hypot(tx, ty, tz);
  tx /= tl; ty /= tl; tz /= tl;
  const bx = n[1] * tz - n[2] * ty, by = n[2] * tx - n[0] * tz, bz = n[0] * ty - n[1] * tx;
  return [tx * lx + bx * ly + n[0] * lz, ty * lx + by * ly + n[1] * lz, tz * lx + bz * ly + n[2] * lz];
}

/** The report as printed by the build and by this module's command. */
export function formatQuality(rig: Rig, rep: QualityReport): string {
  const lines = [
    `rig ${rig.hash} (${rig.source}): ${rep.poses} poses, ${rep.segments} segments, hit ${(100 * rep.hitFraction).toFixed(2)}%, zone ${(100 * rep.zoneFraction).toFixed(2)}%; over-coverage: ${rep.falseHits} of ${rep.nearMisses} probes that miss the mesh hit a hitbox (${(100 * rep.falseHitFraction).toFixed(2)}%)`,
  ];
  for (const z of rep.perZone) {
    if (z.segments === 0) continue;
    lines.push(`  ${z.zone.padEnd(12)} ${String(z.segments).padStart(5)}  hit ${(100 * z.hits / z.segments).toFixed(1)}%  zone ${(100 * z.matches / z.segments).toFixed(1)}%`);
  }
  return lines.join('\n');
}

/** Settings of the printed measurements (what `npx tsx server/rig/quality.ts` prints): 6 times per clip, 400 segments per pose. */
export const REPORT_QUALITY_OPTIONS: Omit<QualityOptions, 'seed'> = { timesPerClip: 6, segmentsPerPose: 400, probesPerPose: 200, startDistance: 1.5 };

/** `npx tsx server/rig/quality.ts [seed]`: the shipped mannequin rig. Other characters: `npm run build:rig -- <file>`. */
async function main(): Promise<void> {
  const { MANNEQUIN_RIG } = await import('./mannequin');
  const { MANNEQUIN_PATH } = await import('./buildRig');
  const ch = await loadSkinnedCharacter(MANNEQUIN_PATH);
  const seed = Number(process.argv[2] ?? 1);
  console.log(formatQuality(MANNEQUIN_RIG, measureRigQuality(ch, MANNEQUIN_RIG, { seed, ...REPORT_QUALITY_OPTIONS })));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
