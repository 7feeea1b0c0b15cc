/**
 * Builds a hitbox rig from a skinned humanoid. `npm run build:rig` (./cli) rebuilds the shipped
 * mannequin rig (server/assets/mannequin.hrrg, ./paths; the tests load that asset, so they see
 * exactly what production sees) or builds any humanoid into a rig file the server loads with
 * RIG=<file> (see ./rigFile).
 *
 * Steps: assign each triangle to the joint weighing most on its three vertices; group joints into
 * hitboxes by bone role (./bones: the common naming conventions, plus an override map); bring each
 * hitbox's bind-pose vertices into its primary joint's rigid bind frame; build a low-poly convex
 * hull from their support points along a fixed set of bone-local directions (a k-DOP's corners,
 * pushed out by a small margin), wound counter-clockwise seen from outside; pick the idle, jog, run
 * and fall clips (by name, or as the map says) and resample their bone transforms at ~30 Hz in model
 * space (./clipFrames); compute the broadphase sphere over every frame; stamp the content hash. A
 * hitbox no vertex feeds (a character without a neck bone) is left out.
 */
import type QuickHull from 'quickhull3d';
import { BONE_STRIDE, RIG_FORMAT_VERSION, encodeBase64, normaliseRotations, rigDataHash, type RigData, type RigMeta } from '../../shared/rig/rig';
import { transformPoint } from '../../shared/rig/posing';
import { bindGlobals, dominantJointPerTriangle } from './skinning';
import { rigidFromMat4 } from './mat4';
import { jointParents, jointWeights, type SkinnedCharacter } from './character';
import { HITBOX_ORDER, hitboxZoneSide, mapSkeleton, type BoneOverrides, type SkeletonMapping } from './bones';
import { dequantiseFrames, pickClips, quantiseFrames, sampleClipFrames, type ClipRole } from './clipFrames';
import { MANNEQUIN_PATH } from './paths';

// quickhull3d's dist/index.js imports its own files without extensions, which Node's ESM loader
// rejects (tsx tolerates it, vitest does not); its self-contained bundle next to it loads everywhere.
// Found from wherever the package is installed (the repository, or a production host's dist/server).
const quickhull: typeof QuickHull = (
  await import(new URL('quickhull3d.js', import.meta.resolve('quickhull3d')).href)
).default;

export { HITBOX_ORDER, MANNEQUIN_PATH };

/** How a character's bones and clips map onto the rig when names alone do not say (a JSON file). */
export interface CharacterMap {
  /** Bone name -> role or hitbox name or "none" (see ./bones). */
  bones?: BoneOverrides;
  /** Clip role -> the character's clip name. */
  clips?: Partial<Record<ClipRole, string>>;
  /**
   * Standing height in metres to scale the character to (top of the bind-pose mesh), for characters
   * not modelled in metres. Applied when the character is loaded (loadMappedCharacter in ./rigFile).
   */
  height?: number;
}

export interface BuildOptions {
  /** Resampling rate of clip frames, Hz. */
  sampleRate: number;
  /** Number of extra hull directions (Fibonacci sphere) added to the 26 k-DOP directions. */
  extraDirections: number;
  /** How far support points are pushed outward along their direction, metres. */
  inflate: number;
  /**
   * Which vertices feed a hitbox's hull: 'triangle' = every vertex of the triangles assigned to it
   * (by dominant joint); 'vertex' = each vertex goes to the hitbox weighing most on it alone, which
   * makes neighbouring hulls overlap less at the joints.
   */
  gather: 'triangle' | 'vertex';
}

export const DEFAULT_BUILD_OPTIONS: BuildOptions = { sampleRate: 30, extraDirections: 0, inflate: 0.006, gather: 'vertex' };

/** Unit directions for support points: the 26 k-DOP directions plus `extra` spread evenly. */
function hullDirections(extra: number): number[][] {
  const dirs: number[][] = [];
  for (let x = -1; x <= 1; x++) for (let y = -1; y <= 1; y++) for (let z = -1; z <= 1; z++) {
    if (x === 0 && y === 0 && z === 0) continue;
    const l = Math.hypot(x, y, z);
    dirs.push([x / l, y / l, z / l]);
  }
  const golden = Math.PI * (3 - Math.sqrt(5));
  for (let i = 0; i < extra; i++) {
    const y = 1 - (2 * (i + 0.5)) / extra;
    const r = Math.sqrt(1 - y * y);
    dirs.push([Math.cos(golden * i) * r, y, Math.sin(golden * i) * r]);
  }
  return dirs;
}

/** Convex hull of the support points of `pts` (3 per point); triangles (9 numbers each) wound outward. */
export function supportHull(pts: Float64Array, dirs: number[][], inflate: number): number[] {
  const n = pts.length / 3;
  const support: [number, number, number][] = [];
  const seen = new Set<string>();
  for (const d of dirs) {
    let best = -1, bestDot = -Infinity;
    for (let i = 0; i < n; i++) {
      const dot = pts[i * 3] * d[0] + pts[i * 3 + 1] * d[1] + pts[i * 3 + 2] * d[2];
      if (dot > bestDot) { bestDot = dot; best = i; }
    }
    const p: [number, number, number] = [
      pts[best * 3] + d[0] * inflate, pts[best * 3 + 1] + d[1] * inflate, pts[best * 3 + 2] + d[2] * inflate,
    ];
    const key = p.map((v) => v.toFixed(6)).join(',');
    if (!seen.has(key)) { seen.add(key); support.push(p); }
  }
  const faces = quickhull(support);
  let cx = 0, cy = 0, cz = 0;
  for (const p of support) { cx += p[0]; cy += p[1]; cz += p[2]; }
  cx /= support.length; cy /= support.length; cz /= support.length;
  const tris: number[] = [];
  for (const f of faces) {
    for (let k = 1; k + 1 < f.length; k++) {
      let a = support[f[0]], b = support[f[k]], c = support[f[k + 1]];
      const e1 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]], e2 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
      const nx = e1[1] * e2[2] - e1[2] * e2[1], ny = e1[2] * e2[0] - e1[0] * e2[2], nz = e1[0] * e2[1] - e1[1] * e2[0];
      const area2 = Math.hypot(nx, ny, nz);
      if (area2 < 1e-12) continue; // sliver from coplanar support points
      // Outward: the normal points away from the centroid (the hull is convex, so this is exact).
      if (nx * (a[0] - cx) + ny * (a[1] - cy) + nz * (a[2] - cz) < 0) [b, c] = [c, b];
      tris.push(...a, ...b, ...c);
    }
  }
  return tris;
}

/** Inverse of a rigid transform [t, q] applied to point p: R^T (p - t). */
function inverseRigidPoint(bone: Float64Array, p: number[]): number[] {
  const qx = -bone[3], qy = -bone[4], qz = -bone[5], qw = bone[6];
  const px = p[0] - bone[0], py = p[1] - bone[1], pz = p[2] - bone[2];
  const cx = qy * pz - qz * py, cy = qz * px - qx * pz, cz = qx * py - qy * px;
  return [
    px + 2 * (qw * cx + qy * cz - qz * cy),
    py + 2 * (qw * cy + qz * cx - qx * cz),
    pz + 2 * (qw * cz + qx * cy - qy * cx),
  ];
}

export interface BuiltRig {
  data: RigData;
  /** Per triangle of the source mesh: its dominant joint (for the quality tests). */
  triangleJoint: Int32Array;
  /** Per joint of the source: the zone of its hitbox (the quality measurement's reference). */
  jointZone: Uint8Array;
  /** Per joint: its hitbox name and how the mapping decided it (for the build's report). */
  jointHitbox: string[];
  jointHow: string[];
  /** Hitboxes no vertex feeds, left out of the rig. */
  omitted: string[];
}

/** Builds the rig data from a loaded character. Pure apart from reading `ch`. */
export function buildRig(ch: SkinnedCharacter, source: string, options: BuildOptions = DEFAULT_BUILD_OPTIONS, map: CharacterMap = {}): BuiltRig {
  const mapping = mapSkeleton(
    { jointNames: ch.jointNames, jointParent: jointParents(ch), jointWeight: jointWeights(ch), declaredRoles: ch.declaredRoles },
    map.bones,
  );
  const gathered = gatherHitboxPoints(ch, mapping, options.gather);
  const hb = keepHitboxes(mapping, gathered, source);
  const hulls = buildHulls(hb.points, options);
  const sampled = sampleClipFrames(ch, pickClips(ch, map.clips), hb.primary, options.sampleRate);
  const frameQ = quantiseFrames(sampled.frameParts, source);
  const bound = broadphaseBound(hb.bindPose, dequantiseFrames(frameQ), hulls);
  const meta = rigMeta(ch, source, hb, hulls.triStart, sampled.clipMeta, bound);
  const payload = encodeBase64(packPayload(hulls.triangles, hulls.spheres, hb.bindPose, frameQ));
  const metaJson = JSON.stringify(meta);
  return {
    data: { version: RIG_FORMAT_VERSION, meta: metaJson, payload, hash: rigDataHash(metaJson, payload) },
    triangleJoint: gathered.triangleJoint,
    jointZone: mapping.jointZone,
    jointHitbox: Array.from(mapping.jointHitbox, (h) => HITBOX_ORDER[h]),
    jointHow: mapping.how,
    omitted: hb.omitted.map((h) => HITBOX_ORDER[h]),
  };
}

/** Bind-pose vertices of every candidate hitbox (HITBOX_ORDER), in its primary joint's rigid bind frame. */
interface GatheredPoints {
  /** Per candidate: the rigid bind frame [t, q] of its primary joint (zeros when it has none). */
  candidateBind: Float64Array;
  /** Per triangle of the source mesh: its dominant joint. */
  triangleJoint: Int32Array;
  /** Per candidate: its vertices in candidateBind's frame, 3 numbers each, each vertex once. */
  localPts: number[][];
}

/**
 * Gives every vertex to the hitboxes it feeds: with 'triangle', the hitbox of the dominant joint of
 * each triangle it is a corner of; with 'vertex', the hitbox weighing most on the vertex itself.
 */
function gatherHitboxPoints(ch: SkinnedCharacter, mapping: SkeletonMapping, gather: BuildOptions['gather']): GatheredPoints {
  const hitboxOfJoint = mapping.jointHitbox;
  const HA = HITBOX_ORDER.length;
  const bindG = bindGlobals(ch);
  const frameOf = (j: number, out: Float64Array): Float64Array => rigidFromMat4(out, bindG.subarray(j * 16, j * 16 + 16));
  const candidateBind = new Float64Array(HA * BONE_STRIDE);
  for (let h = 0; h < HA; h++) if (mapping.primary[h] >= 0) candidateBind.set(frameOf(mapping.primary[h], new Float64Array(BONE_STRIDE)), h * BONE_STRIDE);
  const triangleJoint = dominantJointPerTriangle(ch);
  const localPts: number[][] = Array.from({ length: HA }, () => []);
  const used: Set<number>[] = Array.from({ length: HA }, () => new Set());
  const vertexHitbox = dominantHitboxPerVertex(ch, hitboxOfJoint);
  for (let t = 0; t < triangleJoint.length; t++) {
    const th = hitboxOfJoint[triangleJoint[t]];
    for (let c = 0; c < 3; c++) {
      const v = ch.indices[t * 3 + c];
      const h = gather === 'vertex' ? vertexHitbox[v] : th;
      if (mapping.primary[h] < 0 || used[h].has(v)) continue;
      used[h].add(v);
      const bone = candidateBind.subarray(h * BONE_STRIDE, h * BONE_STRIDE + BONE_STRIDE);
      localPts[h].push(...inverseRigidPoint(bone, [ch.positions[v * 3], ch.positions[v * 3 + 1], ch.positions[v * 3 + 2]]));
    }
  }
  return { candidateBind, triangleJoint, localPts };
}

/** Per vertex: the hitbox (index into HITBOX_ORDER) whose joints carry the most of its skin weight. */
function dominantHitboxPerVertex(ch: SkinnedCharacter, hitboxOfJoint: Int32Array): Int32Array {
  const HA = HITBOX_ORDER.length;
  const vertexHitbox = new Int32Array(ch.positions.length / 3);
  const acc = new Float64Array(HA);
  for (let v = 0; v < vertexHitbox.length; v++) {
    acc.fill(0);
    for (let k = 0; k < 4; k++) acc[hitboxOfJoint[ch.joints[v * 4 + k]]] += ch.weights[v * 4 + k];
    let best = 0;
    for (let h = 1; h < HA; h++) if (acc[h] > acc[best]) best = h;
    vertexHitbox[v] = best;
  }
  return vertexHitbox;
}

/** The rig's hitboxes, in HITBOX_ORDER, with what the later steps need of each. */
interface KeptHitboxes {
  /** Indices into HITBOX_ORDER of the hitboxes kept, and of those left out. */
  kept: number[];
  omitted: number[];
  names: string[];
  /** Per kept hitbox: its joint, zone, side, bind frame [t, q] and bone-local vertices. */
  primary: Int32Array;
  zone: Uint8Array;
  side: Uint8Array;
  bindPose: Float64Array;
  points: number[][];
}

/** Keeps the candidates with a frame and enough vertices for a hull; the head must be among them. */
function keepHitboxes(mapping: SkeletonMapping, gathered: GatheredPoints, source: string): KeptHitboxes {
  const { candidateBind, localPts } = gathered;
  const kept: number[] = [];
  const omitted: number[] = [];
  for (let h = 0; h < HITBOX_ORDER.length; h++) (mapping.primary[h] >= 0 && localPts[h].length >= 12 ? kept : omitted).push(h);
  if (!kept.some((h) => HITBOX_ORDER[h] === 'head')) {
    throw new Error(`buildRig: ${source}: no bone maps to the head (the eye height comes from it); name it in a bone map, e.g. {"bones": {"<head bone>": "head"}}`);
  }
  const names = kept.map((h) => HITBOX_ORDER[h]);
  const bindPose = new Float64Array(kept.length * BONE_STRIDE);
  kept.forEach((h, i) => bindPose.set(candidateBind.subarray(h * BONE_STRIDE, h * BONE_STRIDE + BONE_STRIDE), i * BONE_STRIDE));
  return {
    kept,
    omitted,
    names,
    primary: Int32Array.from(kept, (h) => mapping.primary[h]),
    zone: Uint8Array.from(names, (n) => hitboxZoneSide(n).zone),
    side: Uint8Array.from(names, (n) => hitboxZoneSide(n).side),
    bindPose,
    points: kept.map((h) => localPts[h]),
  };
}

/** The hitboxes' hulls as shipped (float32 values), one after another, and a bounding sphere per hitbox. */
interface Hulls {
  /** Bone-local triangles, 9 numbers each; hitbox h has triangles triStart[h] to triStart[h + 1]. */
  triangles: Float64Array;
  triStart: number[];
  /** Per hitbox: center xyz and radius, bone-local. */
  spheres: Float64Array;
}

/** Rounds to float32 and back, so spheres and bounds are computed on the values that ship. */
const f32 = (a: ArrayLike<number>): Float64Array => Float64Array.from(Float32Array.from(a));

/** Each kept hitbox's hull from its bone-local vertices (supportHull), rounded to float32. */
function buildHulls(points: number[][], options: BuildOptions): Hulls {
  const dirs = hullDirections(options.extraDirections);
  const hullTris: number[][] = points.map((pts) => supportHull(Float64Array.from(pts), dirs, options.inflate));
  const triangles = f32(hullTris.flat());
  const triStart = [0];
  for (const t of hullTris) triStart.push(triStart[triStart.length - 1] + t.length / 9);
  return { triangles, triStart, spheres: hullSpheres(triangles, triStart) };
}

/** Per hitbox: a sphere around its hull's box center that holds every (float32) hull vertex. */
function hullSpheres(triangles: Float64Array, triStart: number[]): Float64Array {
  const H = triStart.length - 1;
  const spheres = new Float64Array(H * 4);
  for (let h = 0; h < H; h++) {
    let mnx = Infinity, mny = Infinity, mnz = Infinity, mxx = -Infinity, mxy = -Infinity, mxz = -Infinity;
    for (let i = triStart[h] * 9; i < triStart[h + 1] * 9; i += 3) {
      mnx = Math.min(mnx, triangles[i]); mxx = Math.max(mxx, triangles[i]);
      mny = Math.min(mny, triangles[i + 1]); mxy = Math.max(mxy, triangles[i + 1]);
      mnz = Math.min(mnz, triangles[i + 2]); mxz = Math.max(mxz, triangles[i + 2]);
    }
    const cx = Math.fround((mnx + mxx) / 2), cy = Math.fround((mny + mxy) / 2), cz = Math.fround((mnz + mxz) / 2);
    let r = 0;
    for (let i = triStart[h] * 9; i < triStart[h + 1] * 9; i += 3) {
      r = Math.max(r, Math.hypot(triangles[i] - cx, triangles[i + 1] - cy, triangles[i + 2] - cz));
    }
    // Margin: the sphere must contain the float32 vertices even after float32 rounding of r.
    spheres.set([cx, cy, cz, Math.fround(r * (1 + 1e-5) + 1e-5)], h * 4);
  }
  return spheres;
}

/**
 * Broadphase sphere [cx, cy, cz, r]: every hull vertex in every frame and in the bind pose, model
 * space, as the loader will see them (float32 bind pose, dequantised frames, rotations renormalised).
 */
function broadphaseBound(bindPose: Float64Array, frames: Float64Array, hulls: Hulls): RigMeta['bound'] {
  const { triangles, triStart } = hulls;
  const H = triStart.length - 1;
  const bindPose32 = f32(bindPose);
  normaliseRotations(bindPose32);
  const allPoses: Float64Array[] = [bindPose32];
  for (let o = 0; o < frames.length; o += H * BONE_STRIDE) allPoses.push(frames.subarray(o, o + H * BONE_STRIDE));
  const modelPts: number[] = [];
  const p = [0, 0, 0];
  for (const pose of allPoses) {
    for (let h = 0; h < H; h++) {
      for (let i = triStart[h] * 9; i < triStart[h + 1] * 9; i += 3) {
        transformPoint(p, 0, pose, h * BONE_STRIDE, triangles[i], triangles[i + 1], triangles[i + 2]);
        modelPts.push(p[0], p[1], p[2]);
      }
    }
  }
  const mn = [Infinity, Infinity, Infinity], mx = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < modelPts.length; i += 3) for (let k = 0; k < 3; k++) {
    mn[k] = Math.min(mn[k], modelPts[i + k]); mx[k] = Math.max(mx[k], modelPts[i + k]);
  }
  const bc = [0, 1, 2].map((k) => Math.fround((mn[k] + mx[k]) / 2));
  let br = 0;
  for (let i = 0; i < modelPts.length; i += 3) br = Math.max(br, Math.hypot(modelPts[i] - bc[0], modelPts[i + 1] - bc[1], modelPts[i + 2] - bc[2]));
  // 1 cm margin: frames are interpolated at run time (nlerp between two frames stays close to both).
  br = Math.fround(br + 0.01);
  return [bc[0], bc[1], bc[2], br];
}

/** The rig's meta: hitboxes, clips, bound, and the standing and eye heights. */
function rigMeta(ch: SkinnedCharacter, source: string, hb: KeptHitboxes, triStart: number[], clips: RigMeta['clips'], bound: RigMeta['bound']): RigMeta {
  // Height: top of the bind-pose mesh. Eye height: an estimate halfway between the head joint and the top.
  let top = -Infinity;
  for (let v = 1; v < ch.positions.length; v += 3) top = Math.max(top, ch.positions[v]);
  const headY = hb.bindPose[hb.names.indexOf('head') * BONE_STRIDE + 1];
  return {
    source,
    height: Math.round(top * 1e4) / 1e4,
    eyeHeight: Math.round(((headY + top) / 2) * 1e4) / 1e4,
    hitboxes: hb.names.map((name, h) => ({
      name, joint: ch.jointNames[hb.primary[h]], jointIndex: hb.primary[h], zone: hb.zone[h], side: hb.side[h], triangles: triStart[h + 1] - triStart[h],
    })),
    clips,
    bound,
  };
}

/** The payload's bytes: triangles, spheres and bind pose as little-endian float32, then the int16 frames. */
function packPayload(triangles: Float64Array, spheres: Float64Array, bindPose: Float64Array, frameQ: Int16Array): Uint8Array {
  const all = new Float32Array(triangles.length + spheres.length + bindPose.length);
  let o = 0;
  for (const part of [triangles, spheres, bindPose]) { all.set(part, o); o += part.length; }
  const bytes = new Uint8Array(all.length * 4 + frameQ.length * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < all.length; i++) view.setFloat32(i * 4, all[i], true);
  for (let i = 0; i < frameQ.length; i++) view.setInt16(all.length * 4 + i * 2, frameQ[i], true);
  return bytes;
}
