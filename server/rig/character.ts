/**
 * Reads a humanoid glTF/GLB/VRM character into plain arrays: joints, node hierarchy, inverse bind
 * matrices, bind-pose vertices with four joint influences each, triangles and animation clips. It
 * takes what exporters actually write: several skins over one skeleton (merged by joint node),
 * meshes parented rigidly to a bone instead of skinned (each vertex then follows that bone with
 * weight 1), quantized or compressed geometry (see ../level/gltfIO), and a VRM file's own humanoid
 * bone table. ./skinning evaluates the result (sampling, skinning); the rig build and the quality
 * measurement start from it.
 */
import { Node, type Animation, type Mesh, type Primitive, type Root, type Skin } from '@gltf-transform/core';
import { readGltfWithJson } from '../level/gltfIO';
import { mat4InvertAffine, mat4Multiply } from './mat4';

export interface SkinnedCharacter {
  /** Joint names in joint-index order (the first skin's order, then joints only later skins use). */
  jointNames: string[];
  /** Every node that an animation or the hierarchy touches: joints first (same index), then ancestors. */
  nodeNames: string[];
  /** Parent node index (into nodeNames) or -1. */
  nodeParent: Int32Array;
  /** Rest TRS per node: 10 numbers (tx ty tz qx qy qz qw sx sy sz). */
  nodeRest: Float64Array;
  /** Inverse bind matrices, 16 per joint. */
  inverseBind: Float64Array;
  /** Bind-pose vertex positions (all primitives merged), 3 per vertex. */
  positions: Float64Array;
  /** Four joint indices and four weights per vertex. */
  joints: Uint16Array;
  weights: Float64Array;
  /** Triangle vertex indices, 3 per triangle. */
  indices: Uint32Array;
  clips: AnimationClipData[];
  /** Bone roles the file declares (VRM humanoid table): joint index -> VRM bone name. */
  declaredRoles: Map<number, string>;
}

export interface AnimationChannelData {
  node: number;
  path: 'translation' | 'rotation' | 'scale';
  interpolation: 'STEP' | 'LINEAR';
  input: Float64Array;
  output: Float64Array;
}

export interface AnimationClipData {
  name: string;
  duration: number;
  channels: AnimationChannelData[];
}

/** Loads the character; throws with a next step when the file holds no usable skinned triangles. */
export async function loadSkinnedCharacter(path: string): Promise<SkinnedCharacter> {
  const { doc, json } = await readGltfWithJson(path, 'character');
  const root = doc.getRoot();
  const skins = root.listSkins();
  if (skins.length === 0) throw new Error(`${path}: no skin; export the character with its armature (a skinned mesh)`);
  const sk = mergeSkins(path, skins);
  const jointCount = sk.jointNodes.length;
  const nodes = addAncestors(sk.jointNodes, sk.indexOf);
  const nodeParent = new Int32Array(nodes.length);
  const nodeRest = new Float64Array(nodes.length * 10);
  nodes.forEach((n, i) => {
    const p = n.getParentNode();
    nodeParent[i] = p ? sk.indexOf.get(p)! : -1;
    nodeRest.set([...n.getTranslation(), ...n.getRotation(), ...n.getScale()], i * 10);
  });
  const inverseBind = Float64Array.from(sk.ibm);
  const geo = readGeometry(path, root, sk, inverseBind);
  if (geo.indices.length === 0) throw new Error(`${path}: no triangles are skinned to or parented under the skeleton; export the character's meshes with its armature`);
  const positions = Float64Array.from(geo.positions);
  toSceneSpace(positions, inverseBind, sk.jointNodes);
  const clips: AnimationClipData[] = root.listAnimations().map((anim) => readClip(anim, sk.indexOf));
  return {
    jointNames: sk.jointNodes.map((n) => n.getName()),
    nodeNames: nodes.map((n) => n.getName()),
    nodeParent,
    nodeRest,
    inverseBind,
    positions,
    joints: Uint16Array.from(geo.joints),
    weights: Float64Array.from(geo.weights),
    indices: Uint32Array.from(geo.indices),
    clips,
    declaredRoles: vrmRoles(json, root.listNodes(), sk.indexOf, jointCount),
  };
}

/** The joints of every skin, merged by joint node. */
interface MergedSkins {
  /** Joint nodes in joint-index order. */
  jointNodes: Node[];
  /** Node -> index: joints first; addAncestors appends their ancestors. */
  indexOf: Map<Node, number>;
  /** Inverse bind matrices, 16 per joint, from the first skin that binds the joint. */
  ibm: number[];
  /** Per skin that binds a shared joint differently: the transform C_K its vertices are moved by. */
  skinToCanon: Map<object, Float64Array>;
}

/**
 * Joints: the union of every skin's joints. Two skins may bind a shared joint differently only by
 * a transform common to the whole skin (a quantizer folds its dequantization into the inverse bind
 * matrices: IBM_K = IBM * C_K); that skin's vertices are then moved by C_K. Anything else is refused.
 */
function mergeSkins(path: string, skins: Skin[]): MergedSkins {
  const jointNodes: Node[] = [];
  const indexOf = new Map<Node, number>();
  const ibm: number[] = [];
  const skinToCanon = new Map<object, Float64Array>();
  const inv = new Float64Array(16);
  for (const skin of skins) {
    const acc = skin.getInverseBindMatrices();
    if (!acc) throw new Error(`${path}: skin "${skin.getName()}" has no inverseBindMatrices; re-export with them`);
    const arr = acc.getArray()!;
    let C: Float64Array | undefined;
    skin.listJoints().forEach((joint, k) => {
      const m: number[] = Array.from(arr.subarray(k * 16, k * 16 + 16) as ArrayLike<number>);
      const known = indexOf.get(joint);
      if (known === undefined) {
        indexOf.set(joint, jointNodes.length);
        jointNodes.push(joint);
        ibm.push(...m);
        return;
      }
      mat4InvertAffine(inv, ibm, known * 16);
      const c = mat4Multiply(new Float64Array(16), inv, m);
      if (!C) C = c;
      else if (c.some((v, i) => Math.abs(v - C![i]) > 1e-4 * (1 + Math.abs(v)))) {
        throw new Error(`${path}: joint "${joint.getName()}" has different bind poses in two skins; apply one armature pose to every mesh and export again`);
      }
    });
    if (C && C.some((v, i) => Math.abs(v - (i % 5 === 0 ? 1 : 0)) > 1e-9)) skinToCanon.set(skin, C);
  }
  return { jointNodes, indexOf, ibm, skinToCanon };
}

/**
 * The joints followed by their ancestors that are not joints (e.g. the armature's root node), which
 * are part of the model-space transform; each ancestor is added to `indexOf` after the joints.
 */
function addAncestors(jointNodes: Node[], indexOf: Map<Node, number>): Node[] {
  const nodes: Node[] = [...jointNodes];
  for (let i = 0; i < nodes.length; i++) {
    const p = nodes[i].getParentNode();
    if (p && !indexOf.has(p)) {
      indexOf.set(p, nodes.length);
      nodes.push(p);
    }
  }
  return nodes;
}

/** Bind-pose geometry gathered over every mesh that moves with the skeleton. */
interface GeometryParts {
  positions: number[];
  joints: number[];
  weights: number[];
  indices: number[];
}

/** How a mesh instance's vertices follow the skeleton: through its skin, or rigidly under one joint. */
type Binding =
  | { skinned: true; skinJoints: number[]; canon: Float64Array | undefined }
  | { skinned: false; bone: number; rigid: Float64Array };

/** Every triangle of every mesh instance that is skinned or parented under a joint; others are skipped. */
function readGeometry(path: string, root: Root, sk: MergedSkins, inverseBind: Float64Array): GeometryParts {
  const out: GeometryParts = { positions: [], joints: [], weights: [], indices: [] };
  for (const mesh of root.listMeshes()) {
    for (const node of mesh.listParents()) {
      if (!(node instanceof Node)) continue;
      const skin = node.getSkin();
      let binding: Binding;
      if (skin) {
        binding = { skinned: true, skinJoints: skin.listJoints().map((j) => sk.indexOf.get(j)!), canon: sk.skinToCanon.get(skin) };
      } else {
        const rigid = rigidAttachment(node, sk, inverseBind);
        if (!rigid) continue; // not attached to the skeleton: it cannot move with the character
        binding = rigid;
      }
      for (const prim of mesh.listPrimitives()) readPrimitive(out, path, mesh, prim, binding);
    }
  }
  return out;
}

/**
 * A mesh node without a skin follows the nearest joint at or above it. Bind-pose position of a
 * vertex p: inv(IBM_bone) * inv(W_bone) * W_node * p, with W the rest world matrices, so
 * G_bone * IBM_bone reproduces the node's motion under the bone. Undefined when no joint is above it.
 */
function rigidAttachment(node: Node, sk: MergedSkins, inverseBind: Float64Array): Binding | undefined {
  const jointCount = sk.jointNodes.length;
  let bone = -1;
  for (let p: Node | null = node; p && bone < 0; p = p.getParentNode()) bone = sk.indexOf.has(p) && sk.indexOf.get(p)! < jointCount ? sk.indexOf.get(p)! : -1;
  if (bone < 0) return undefined;
  const rigid = new Float64Array(16);
  const tmp = new Float64Array(16);
  mat4InvertAffine(tmp, sk.jointNodes[bone].getWorldMatrix());
  mat4Multiply(rigid, tmp, node.getWorldMatrix());
  mat4InvertAffine(tmp, inverseBind, bone * 16);
  mat4Multiply(rigid, tmp, rigid);
  return { skinned: false, bone, rigid };
}

/** Appends one TRIANGLES primitive's vertices (with their four joint influences) and triangles. */
function readPrimitive(out: GeometryParts, path: string, mesh: Mesh, prim: Primitive, b: Binding): void {
  if (prim.getMode() !== 4) throw new Error(`${path}: mesh "${mesh.getName()}" has primitive mode ${prim.getMode()}, not TRIANGLES; triangulate on export`);
  const pos = prim.getAttribute('POSITION');
  const jo = prim.getAttribute('JOINTS_0');
  const we = prim.getAttribute('WEIGHTS_0');
  if (!pos) throw new Error(`${path}: mesh "${mesh.getName()}" has a primitive without POSITION`);
  if (b.skinned && (!jo || !we)) throw new Error(`${path}: skinned mesh "${mesh.getName()}" has a primitive without JOINTS_0/WEIGHTS_0`);
  const base = out.positions.length / 3;
  const n = pos.getCount();
  const v = [0, 0, 0, 0];
  for (let i = 0; i < n; i++) {
    pos.getElement(i, v);
    if (b.skinned) {
      const C = b.canon;
      if (C) out.positions.push(C[0] * v[0] + C[4] * v[1] + C[8] * v[2] + C[12], C[1] * v[0] + C[5] * v[1] + C[9] * v[2] + C[13], C[2] * v[0] + C[6] * v[1] + C[10] * v[2] + C[14]);
      else out.positions.push(v[0], v[1], v[2]);
      jo!.getElement(i, v);
      for (let k = 0; k < 4; k++) {
        const j = b.skinJoints[v[k]];
        if (j === undefined) throw new Error(`${path}: mesh "${mesh.getName()}" vertex ${i} names joint ${v[k]}, but its skin has ${b.skinJoints.length}`);
        out.joints.push(j);
      }
      we!.getElement(i, v);
      out.weights.push(v[0], v[1], v[2], v[3]);
    } else {
      const x = v[0], y = v[1], z = v[2], r = b.rigid;
      out.positions.push(
        r[0] * x + r[4] * y + r[8] * z + r[12],
        r[1] * x + r[5] * y + r[9] * z + r[13],
        r[2] * x + r[6] * y + r[10] * z + r[14],
      );
      out.joints.push(b.bone, b.bone, b.bone, b.bone);
      out.weights.push(1, 0, 0, 0);
    }
  }
  const idx = prim.getIndices();
  if (idx) for (const k of idx.getArray()!) out.indices.push(base + k);
  else for (let k = 0; k < n; k++) out.indices.push(base + k);
}

/** One animation's channels on skeleton nodes (others cannot move a joint); its duration is the last key. */
function readClip(anim: Animation, indexOf: Map<Node, number>): AnimationClipData {
  let duration = 0;
  const channels: AnimationChannelData[] = [];
  for (const ch of anim.listChannels()) {
    const target = ch.getTargetNode();
    const s = ch.getSampler();
    const path = ch.getTargetPath();
    if (!target || !s || !indexOf.has(target)) continue; // a node outside the skeleton cannot move a joint
    if (path !== 'translation' && path !== 'rotation' && path !== 'scale') continue;
    const interp = s.getInterpolation();
    if (interp !== 'STEP' && interp !== 'LINEAR') throw new Error(`${anim.getName()}: ${interp} samplers are not supported; bake the clip to LINEAR`);
    const input = Float64Array.from(s.getInput()!.getArray()!);
    duration = Math.max(duration, input[input.length - 1]);
    // Quantized (normalized) outputs are read through getElement, which dequantizes them.
    const out = s.getOutput()!;
    const output = new Float64Array(out.getCount() * out.getElementSize());
    const el: number[] = [];
    for (let i = 0; i < out.getCount(); i++) output.set(out.getElement(i, el), i * out.getElementSize());
    channels.push({ node: indexOf.get(target)!, path, interpolation: interp, input, output });
  }
  return { name: anim.getName(), duration, channels };
}

/**
 * Skinned vertices live in the skin's bind space: the scene sees a vertex p at G_j * IBM_j * p.
 * Exporters often leave that space scaled or turned against the scene (an armature node scaled by
 * 100 and turned a quarter turn, as Blender writes for centimetre rigs), while clip frames are read
 * in scene space. This moves the bind space onto the scene: with M = G_root * IBM_root for the
 * skeleton's root joint at rest, vertices become M * p and inverse bind matrices IBM * M^-1, which
 * leaves every skinned position unchanged (G * IBM * M^-1 * M * p) and makes the bind pose
 * inverse(IBM) a scene-space pose. Files already in scene space (M = identity) are left as they are.
 */
function toSceneSpace(positions: Float64Array, inverseBind: Float64Array, jointNodes: Node[]): void {
  let root = 0;
  const depth = (n: Node): number => { let d = 0; for (let p = n.getParentNode(); p; p = p.getParentNode()) d++; return d; };
  for (let j = 1; j < jointNodes.length; j++) if (depth(jointNodes[j]) < depth(jointNodes[root])) root = j;
  const M = mat4Multiply(new Float64Array(16), jointNodes[root].getWorldMatrix(), inverseBind, 0, root * 16);
  let off = 0;
  for (let k = 0; k < 16; k++) off = Math.max(off, Math.abs(M[k] - (k % 5 === 0 ? 1 : 0)));
  if (off < 1e-6) return;
  for (let i = 0; i < positions.length; i += 3) {
    const x = positions[i], y = positions[i + 1], z = positions[i + 2];
    positions[i] = M[0] * x + M[4] * y + M[8] * z + M[12];
    positions[i + 1] = M[1] * x + M[5] * y + M[9] * z + M[13];
    positions[i + 2] = M[2] * x + M[6] * y + M[10] * z + M[14];
  }
  const inv = mat4InvertAffine(new Float64Array(16), M);
  const m = new Float64Array(16);
  for (let j = 0; j < jointNodes.length; j++) {
    mat4Multiply(m, inverseBind, inv, j * 16, 0);
    inverseBind.set(m, j * 16);
  }
}

/** The humanoid bone table of a VRM 0.x (`VRM`) or 1.0 (`VRMC_vrm`) file, by joint index. */
function vrmRoles(json: { extensions?: Record<string, unknown> }, nodes: Node[], indexOf: Map<Node, number>, jointCount: number): Map<number, string> {
  const out = new Map<number, string>();
  const add = (bone: unknown, node: unknown): void => {
    if (typeof bone !== 'string' || typeof node !== 'number' || !Number.isInteger(node) || !nodes[node]) return;
    const j = indexOf.get(nodes[node]);
    if (j !== undefined && j < jointCount) out.set(j, bone);
  };
  const ext = json.extensions ?? {};
  const v1 = (ext.VRMC_vrm as { humanoid?: { humanBones?: Record<string, { node?: unknown }> } } | undefined)?.humanoid?.humanBones;
  if (v1 && typeof v1 === 'object') for (const [bone, ref] of Object.entries(v1)) add(bone, ref?.node);
  const v0 = (ext.VRM as { humanoid?: { humanBones?: { bone?: unknown; node?: unknown }[] } } | undefined)?.humanoid?.humanBones;
  if (Array.isArray(v0)) for (const b of v0) add(b?.bone, b?.node);
  return out;
}

/** Nearest ancestor of each joint that is itself a joint, or -1. */
export function jointParents(ch: SkinnedCharacter): Int32Array {
  const J = ch.jointNames.length;
  const out = new Int32Array(J).fill(-1);
  for (let j = 0; j < J; j++) {
    let p = ch.nodeParent[j];
    while (p >= J) p = ch.nodeParent[p];
    out[j] = p;
  }
  return out;
}

/** Sum of skin weights on each joint over every vertex. */
export function jointWeights(ch: SkinnedCharacter): Float64Array {
  const out = new Float64Array(ch.jointNames.length);
  for (let i = 0; i < ch.joints.length; i++) out[ch.joints[i]] += ch.weights[i];
  return out;
}

/**
 * Scales the whole character uniformly by `s` in place (a character modelled in centimetres, or a
 * giant robot brought to game size): bind-pose vertices, the root nodes' rest transforms and their
 * animated translation and scale, and the inverse bind matrices (IBM * S^-1, so G' * IBM' * p' =
 * S * G * IBM * p for every pose).
 */
export function scaleCharacter(ch: SkinnedCharacter, s: number): void {
  if (!(s > 0) || !Number.isFinite(s)) throw new Error(`scaleCharacter: scale ${s} must be a positive finite number`);
  for (let i = 0; i < ch.positions.length; i++) ch.positions[i] *= s;
  for (let j = 0; j < ch.jointNames.length; j++) for (let k = 0; k < 12; k++) if (k % 4 !== 3) ch.inverseBind[j * 16 + k] /= s;
  for (let n = 0; n < ch.nodeNames.length; n++) {
    if (ch.nodeParent[n] !== -1) continue;
    for (const k of [0, 1, 2, 7, 8, 9]) ch.nodeRest[n * 10 + k] *= s;
  }
  for (const clip of ch.clips) {
    for (const c of clip.channels) if (ch.nodeParent[c.node] === -1 && c.path !== 'rotation') for (let i = 0; i < c.output.length; i++) c.output[i] *= s;
  }
}
