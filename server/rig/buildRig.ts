/**
 * Builds the hitbox rig from the skinned mannequin and writes it as shipped data
 * (shared/rig/mannequinData.ts). Run with `npm run build:rig` after changing the asset or the
 * hull settings; the tests load the shipped data, so they see exactly what production sees.
 *
 * Steps: assign each triangle to the joint weighing most on its three vertices; group joints into
 * hitboxes (server/rig/zones.ts); bring each hitbox's bind-pose vertices into its primary joint's
 * rigid bind frame; build a low-poly convex hull from their support points along a fixed set of
 * bone-local directions (a k-DOP's corners, pushed out by a small margin), wound counter-clockwise
 * seen from outside; resample every clip's bone transforms at ~30 Hz in model space; compute the
 * broadphase sphere over every frame; stamp the content hash.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type QuickHull from 'quickhull3d';
import {
  BONE_STRIDE, FRAME_ROTATION_SCALE, FRAME_TRANSLATION_QUANTUM, RIG_FORMAT_VERSION, encodeBase64, normaliseRotations, rigDataHash,
  type RigData, type RigMeta,
} from '../../shared/rig/rig';
import { transformPoint } from '../../shared/rig/posing';
import {
  bindGlobals, dominantJointPerTriangle, globalMatrices, loadSkinnedCharacter, rigidFromMat4, sampleLocalTRS,
  type SkinnedCharacter,
} from './mannequin';
import { groupOfJoint } from './zones';

// quickhull3d's dist/index.js imports its own files without extensions, which Node's ESM loader
// rejects (tsx tolerates it, vitest does not); its self-contained bundle next to it loads everywhere.
const quickhull: typeof QuickHull = (
  await import(new URL('../../node_modules/quickhull3d/dist/quickhull3d.js', import.meta.url).href)
).default;

export const MANNEQUIN_PATH = fileURLToPath(new URL('../assets/mannequiny-0.3.0.glb', import.meta.url));
export const MANNEQUIN_DATA_PATH = fileURLToPath(new URL('../../shared/rig/mannequinData.ts', import.meta.url));

/** Hitbox order in the shipped rig (stable: hitbox indices appear in audit logs). */
export const HITBOX_ORDER = [
  'head', 'neck', 'upper_torso', 'lower_torso', 'pelvis',
  'upper_arm.l', 'upper_arm.r', 'forearm.l', 'forearm.r', 'hand.l', 'hand.r',
  'thigh.l', 'thigh.r', 'calf.l', 'calf.r', 'foot.l', 'foot.r',
] as const;

/** Clip order in the shipped rig: Clip.IDLE = 0, JOG = 1, RUN = 2, FALL = 3 (see shared/rig/mannequin.ts). */
export const CLIP_ORDER = ['Idle-loop', 'Jog-loop', 'Run-loop', 'Fall-loop'] as const;

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
}

/** Builds the rig data from a loaded character. Pure apart from reading `ch`. */
export function buildRig(ch: SkinnedCharacter, source: string, options: BuildOptions = DEFAULT_BUILD_OPTIONS): BuiltRig {
  const H = HITBOX_ORDER.length;
  const hitboxOf = new Map<string, number>();
  HITBOX_ORDER.forEach((name, i) => hitboxOf.set(name, i));
  const jointIndex = new Map<string, number>();
  ch.jointNames.forEach((n, i) => jointIndex.set(n, i));

  const primary = new Int32Array(H).fill(-1);
  const zone = new Uint8Array(H);
  const side = new Uint8Array(H);
  for (const name of ch.jointNames) {
    const g = groupOfJoint(name);
    const h = hitboxOf.get(g.hitbox);
    if (h === undefined) throw new Error(`buildRig: hitbox ${g.hitbox} is not in HITBOX_ORDER; add it there`);
    const j = jointIndex.get(g.primaryJoint);
    if (j === undefined) throw new Error(`buildRig: primary joint ${g.primaryJoint} of ${g.hitbox} is missing from the skin`);
    primary[h] = j;
    zone[h] = g.zone;
    side[h] = g.side;
  }
  for (let h = 0; h < H; h++) if (primary[h] < 0) throw new Error(`buildRig: no joint feeds hitbox ${HITBOX_ORDER[h]}`);

  // Rigid bind frames of the primary joints (model space).
  const bindG = bindGlobals(ch);
  const bindPose = new Float64Array(H * BONE_STRIDE);
  const tmp = new Float64Array(BONE_STRIDE);
  for (let h = 0; h < H; h++) {
    rigidFromMat4(tmp, bindG.subarray(primary[h] * 16, primary[h] * 16 + 16));
    bindPose.set(tmp, h * BONE_STRIDE);
  }

  // Triangles -> hitbox via their dominant joint; collect bone-local vertices per hitbox.
  const triangleJoint = dominantJointPerTriangle(ch);
  const localPts: number[][] = Array.from({ length: H }, () => []);
  const used: Set<number>[] = Array.from({ length: H }, () => new Set());
  const hitboxOfJoint = Int32Array.from(ch.jointNames.map((n) => hitboxOf.get(groupOfJoint(n).hitbox)!));
  const vertexHitbox = new Int32Array(ch.positions.length / 3);
  const acc = new Float64Array(H);
  for (let v = 0; v < vertexHitbox.length; v++) {
    acc.fill(0);
    for (let k = 0; k < 4; k++) acc[hitboxOfJoint[ch.joints[v * 4 + k]]] += ch.weights[v * 4 + k];
    let best = 0;
    for (let h = 1; h < H; h++) if (acc[h] > acc[best]) best = h;
    vertexHitbox[v] = best;
  }
  for (let t = 0; t < triangleJoint.length; t++) {
    const th = hitboxOfJoint[triangleJoint[t]];
    for (let c = 0; c < 3; c++) {
      const v = ch.indices[t * 3 + c];
      const h = options.gather === 'vertex' ? vertexHitbox[v] : th;
      const bone = bindPose.subarray(h * BONE_STRIDE, h * BONE_STRIDE + BONE_STRIDE);
      if (used[h].has(v)) continue;
      used[h].add(v);
      localPts[h].push(...inverseRigidPoint(bone, [ch.positions[v * 3], ch.positions[v * 3 + 1], ch.positions[v * 3 + 2]]));
    }
  }

  const dirs = hullDirections(options.extraDirections);
  const hullTris: number[][] = localPts.map((pts, h) => {
    if (pts.length < 12) throw new Error(`buildRig: hitbox ${HITBOX_ORDER[h]} has too few vertices (${pts.length / 3})`);
    return supportHull(Float64Array.from(pts), dirs, options.inflate);
  });

  // Round everything that ships to float32 first, so spheres and bounds are computed on the shipped values.
  const f32 = (a: ArrayLike<number>): Float64Array => Float64Array.from(Float32Array.from(a));
  const triangles = f32(hullTris.flat());
  const triStart = [0];
  for (const t of hullTris) triStart.push(triStart[triStart.length - 1] + t.length / 9);

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

  // Clip frames at ~sampleRate, frame i at i * duration / n (frame n repeats frame 0 for loops).
  const clips = CLIP_ORDER.map((name) => {
    const clip = ch.clips.find((c) => c.name === name);
    if (!clip) throw new Error(`buildRig: clip ${name} not found in ${source}; update CLIP_ORDER`);
    return clip;
  });
  const local = new Float64Array(ch.nodeNames.length * 10);
  const globals = new Float64Array(ch.nodeNames.length * 16);
  const frameParts: number[] = [];
  const clipMeta: RigMeta['clips'] = [];
  for (const clip of clips) {
    const n = Math.max(1, Math.round(clip.duration * options.sampleRate));
    for (let i = 0; i <= n; i++) {
      sampleLocalTRS(local, ch, clip, (i * clip.duration) / n);
      globalMatrices(globals, ch, local);
      for (let h = 0; h < H; h++) {
        rigidFromMat4(tmp, globals.subarray(primary[h] * 16, primary[h] * 16 + 16));
        frameParts.push(...tmp);
      }
    }
    clipMeta.push({ name: clip.name, duration: Math.fround(clip.duration), frameCount: n + 1 });
  }
  // Quantise frames to int16 (see shared/rig/rig.ts) and keep the values the loader will see.
  const frameQ = new Int16Array(frameParts.length);
  for (let i = 0; i < frameParts.length; i++) {
    const v = i % BONE_STRIDE < 3 ? frameParts[i] / FRAME_TRANSLATION_QUANTUM : frameParts[i] * FRAME_ROTATION_SCALE;
    const q = Math.round(v);
    if (q < -32767 || q > 32767) throw new Error(`buildRig: frame value ${frameParts[i]} does not fit the int16 quantisation; widen FRAME_TRANSLATION_QUANTUM`);
    frameQ[i] = q;
  }
  const frames = new Float64Array(frameQ.length);
  for (let i = 0; i < frameQ.length; i++) frames[i] = i % BONE_STRIDE < 3 ? frameQ[i] * FRAME_TRANSLATION_QUANTUM : frameQ[i] / FRAME_ROTATION_SCALE;
  normaliseRotations(frames);
  const bindPose32 = f32(bindPose);
  normaliseRotations(bindPose32);

  // Broadphase sphere: every hull vertex in every frame and in the bind pose, model space.
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
  let mn = [Infinity, Infinity, Infinity], mx = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < modelPts.length; i += 3) for (let k = 0; k < 3; k++) {
    mn[k] = Math.min(mn[k], modelPts[i + k]); mx[k] = Math.max(mx[k], modelPts[i + k]);
  }
  const bc = [0, 1, 2].map((k) => Math.fround((mn[k] + mx[k]) / 2));
  let br = 0;
  for (let i = 0; i < modelPts.length; i += 3) br = Math.max(br, Math.hypot(modelPts[i] - bc[0], modelPts[i + 1] - bc[1], modelPts[i + 2] - bc[2]));
  // 1 cm margin: frames are interpolated at run time (nlerp between two frames stays close to both).
  br = Math.fround(br + 0.01);

  // Height: top of the bind-pose mesh. Eye height: an estimate halfway between the head joint and the top.
  let top = -Infinity;
  for (let v = 1; v < ch.positions.length; v += 3) top = Math.max(top, ch.positions[v]);
  const headY = bindPose[hitboxOf.get('head')! * BONE_STRIDE + 1];
  const meta: RigMeta = {
    source,
    height: Math.round(top * 1e4) / 1e4,
    eyeHeight: Math.round(((headY + top) / 2) * 1e4) / 1e4,
    hitboxes: HITBOX_ORDER.map((name, h) => ({
      name, joint: ch.jointNames[primary[h]], jointIndex: primary[h], zone: zone[h], side: side[h], triangles: triStart[h + 1] - triStart[h],
    })),
    clips: clipMeta,
    bound: [bc[0], bc[1], bc[2], br],
  };

  const all = new Float32Array(triangles.length + spheres.length + bindPose.length);
  let o = 0;
  for (const part of [triangles, spheres, bindPose]) { all.set(part, o); o += part.length; }
  const bytes = new Uint8Array(all.length * 4 + frameQ.length * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < all.length; i++) view.setFloat32(i * 4, all[i], true);
  for (let i = 0; i < frameQ.length; i++) view.setInt16(all.length * 4 + i * 2, frameQ[i], true);
  const payload = encodeBase64(bytes);
  const metaJson = JSON.stringify(meta);
  return { data: { version: RIG_FORMAT_VERSION, meta: metaJson, payload, hash: rigDataHash(metaJson, payload) }, triangleJoint };
}

/** The generated module's text. */
export function rigDataModule(data: RigData, exportName: string, note: string): string {
  return [
    '// Generated by `npm run build:rig` (server/rig/buildRig.ts). Do not edit: loadRig checks the hash.',
    `// ${note}`,
    "import type { RigData } from './rig';",
    '',
    `export const ${exportName}: RigData = {`,
    `  version: ${data.version},`,
    `  hash: '${data.hash}',`,
    `  meta: ${JSON.stringify(data.meta)},`,
    `  payload: '${data.payload}',`,
    '};',
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const ch = await loadSkinnedCharacter(MANNEQUIN_PATH);
  const built = buildRig(ch, 'mannequiny-0.3.0.glb');
  const meta = JSON.parse(built.data.meta) as RigMeta;
  const note = `Source: server/assets/mannequiny-0.3.0.glb (CC BY 4.0, "mannequiny" by GDQuest and contributors). ${meta.hitboxes.length} hitboxes, ${meta.hitboxes.reduce((s, h) => s + h.triangles, 0)} triangles.`;
  writeFileSync(MANNEQUIN_DATA_PATH, rigDataModule(built.data, 'MANNEQUIN_RIG_DATA', note));
  console.log(`wrote ${MANNEQUIN_DATA_PATH}: hash ${built.data.hash}, ${built.data.payload.length} base64 chars`);
  for (const h of meta.hitboxes) console.log(`  ${h.name.padEnd(12)} joint ${h.joint.padEnd(11)} zone ${h.zone} side ${h.side} triangles ${h.triangles}`);
  console.log(`  clips ${meta.clips.map((c) => `${c.name} ${c.duration.toFixed(3)} s ${c.frameCount} frames`).join(', ')}`);
  console.log(`  height ${meta.height} m, eye ${meta.eyeHeight} m, bound center ${meta.bound.slice(0, 3).map((v) => v.toFixed(3))} r ${meta.bound[3].toFixed(3)}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
