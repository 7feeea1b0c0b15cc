/**
 * Which hitbox (and so which hit zone) each joint of a humanoid skeleton belongs to, for any of the
 * common naming conventions: Mixamo (`mixamorig:LeftUpLeg`, `LeftArm`, `LeftForeArm`), VRM humanoid
 * (`leftUpperLeg`, also read from a VRM file's own humanoid table), Unity humanoid (`LeftUpperLeg`,
 * `Left Thumb Proximal`), Unreal (`pelvis`, `spine_01`, `thigh_l`, `calf_l`, `ball_l`), Blender
 * (`thigh.L`, `shin.R`, `upper_arm.L`, `spine.001`), 3ds Max Biped (`Bip01 L Thigh`), VRoid
 * (`J_Bip_L_UpperArm`) and the mannequin's own (`thigh.l`, `lowerarm.r`). An override map (bone name
 * -> role or hitbox name, or "none") settles rigs whose names say nothing. Joints with no role (twist
 * and IK bones, roots, props) take the hitbox of their nearest mapped ancestor, or the pelvis.
 *
 * The rig build groups triangles by the result, and the rig-quality measurement uses it to name the
 * zone of a skinned triangle.
 */
import { HitZone, Side } from '../../shared/rig/rig';

/** Hitbox order in every built rig (stable: hitbox indices appear in audit logs). Absent ones are skipped. */
export const HITBOX_ORDER = [
  'head', 'neck', 'upper_torso', 'lower_torso', 'pelvis',
  'upper_arm.l', 'upper_arm.r', 'forearm.l', 'forearm.r', 'hand.l', 'hand.r',
  'thigh.l', 'thigh.r', 'calf.l', 'calf.r', 'foot.l', 'foot.r',
] as const;

/** What a bone is, whatever it is called. `spineChain` is a numbered spine bone, split later. */
type Kind =
  | 'hips' | 'spineChain' | 'spine' | 'chest' | 'neck' | 'head' | 'headPart'
  | 'shoulder' | 'upperArm' | 'lowerArm' | 'hand' | 'finger'
  | 'upperLeg' | 'lowerLeg' | 'foot' | 'toes';

/** Name patterns on the base name (lower case, separators removed, side taken off). First match wins. */
const KINDS: readonly [RegExp, Kind][] = [
  [/^(hips?|pelvis)$/, 'hips'],
  [/^spine\d*$/, 'spineChain'],
  [/^(abdomen|belly|waist|stomach|lowerspine|spinelower|lowertorso)$/, 'spine'],
  [/^(upperchest|chest|torso|ribcage|upperspine|spineupper|uppertorso)$/, 'chest'],
  [/^neck\d*$/, 'neck'],
  [/^head$/, 'head'],
  [/^(eye|jaw|headtop)/, 'headPart'],
  [/^(shoulder|clavicle|collar|collarbone)$/, 'shoulder'],
  [/^(upperarm|uparm|arm)$/, 'upperArm'],
  [/^(lowerarm|forearm|elbow)$/, 'lowerArm'],
  [/^(hand|wrist)$/, 'hand'],
  [/^(hand)?(thumb|index|middle|ring|pinky|little|finger|palm)/, 'finger'],
  [/^(upperleg|upleg|thigh)$/, 'upperLeg'],
  [/^(lowerleg|leg|calf|shin|knee)$/, 'lowerLeg'],
  [/^(foot|ankle)$/, 'foot'],
  [/^(toes?|toebase|ball)\d*$/, 'toes'],
];

/** The hitbox stem of each kind, and whether the kind carries the hitbox's frame (its principal bone). */
const HITBOX_OF_KIND: Record<Kind, { stem: string; limb: boolean; principal: boolean }> = {
  hips: { stem: 'pelvis', limb: false, principal: true },
  spineChain: { stem: 'lower_torso', limb: false, principal: true },
  spine: { stem: 'lower_torso', limb: false, principal: true },
  chest: { stem: 'upper_torso', limb: false, principal: true },
  neck: { stem: 'neck', limb: false, principal: true },
  head: { stem: 'head', limb: false, principal: true },
  headPart: { stem: 'head', limb: false, principal: false },
  shoulder: { stem: 'upper_torso', limb: false, principal: false },
  upperArm: { stem: 'upper_arm', limb: true, principal: true },
  lowerArm: { stem: 'forearm', limb: true, principal: true },
  hand: { stem: 'hand', limb: true, principal: true },
  finger: { stem: 'hand', limb: true, principal: false },
  upperLeg: { stem: 'thigh', limb: true, principal: true },
  lowerLeg: { stem: 'calf', limb: true, principal: true },
  foot: { stem: 'foot', limb: true, principal: true },
  toes: { stem: 'foot', limb: true, principal: false },
};

const ZONE_OF_STEM: Record<string, HitZone> = {
  head: HitZone.HEAD, neck: HitZone.NECK, upper_torso: HitZone.UPPER_TORSO, lower_torso: HitZone.LOWER_TORSO,
  pelvis: HitZone.PELVIS, upper_arm: HitZone.UPPER_ARM, forearm: HitZone.FOREARM, hand: HitZone.HAND,
  thigh: HitZone.THIGH, calf: HitZone.CALF, foot: HitZone.FOOT,
};

/** Zone and side of a hitbox by name ("forearm.l" -> FOREARM, LEFT). */
export function hitboxZoneSide(name: string): { zone: HitZone; side: Side } {
  const m = /^(.*?)(?:\.(l|r))?$/.exec(name)!;
  return { zone: ZONE_OF_STEM[m[1]], side: m[2] === 'l' ? Side.LEFT : m[2] === 'r' ? Side.RIGHT : Side.CENTER };
}

interface ParsedName {
  kind: Kind | undefined;
  side: Side;
}

/** Reads a bone name in any of the supported conventions into its kind and side. */
export function parseBoneName(raw: string): ParsedName {
  let n = raw.trim();
  n = n.replace(/^.*[:|]/, ''); // mixamorig:Hips, Armature|Hips
  n = n.replace(/^(DEF|ORG|MCH)[-_.]/i, ''); // Blender Rigify layers
  n = n.replace(/^J_(Bip|Adj|Sec|Opt)_/i, ''); // VRoid
  n = n.replace(/^Bip0*1[ _]/i, ''); // 3ds Max Biped
  n = n.replace(/[._ -]end$/i, ''); // leaf markers: head_end, ball.l_end, Foot.L_end
  let side: Side = Side.CENTER;
  let m: RegExpExecArray | null;
  // "LeftUpLeg", "leftUpperArm", "Left Thumb Proximal" (not "leftover": a capital or separator follows).
  if ((m = /^([Ll]eft|[Rr]ight|LEFT|RIGHT)(?=[A-Z0-9_ .-])/.exec(n))) {
    side = m[1][0].toLowerCase() === 'l' ? Side.LEFT : Side.RIGHT;
    n = n.slice(m[0].length);
  } else if ((m = /[._ -](l|r|left|right)$/i.exec(n))) {
    side = m[1][0].toLowerCase() === 'l' ? Side.LEFT : Side.RIGHT;
    n = n.slice(0, m.index);
  } else if ((m = /^(l|r|c)[._ -]/i.exec(n))) {
    if (m[1].toLowerCase() !== 'c') side = m[1].toLowerCase() === 'l' ? Side.LEFT : Side.RIGHT;
    n = n.slice(m[0].length);
  } else if ((m = /(?<=[a-z])(Left|Right)$/.exec(n))) {
    side = m[1] === 'Left' ? Side.LEFT : Side.RIGHT;
    n = n.slice(0, m.index);
  }
  const base = n.toLowerCase().replace(/[._ -]/g, '');
  for (const [re, kind] of KINDS) if (re.test(base)) return { kind, side };
  return { kind: undefined, side };
}

/** A skeleton as the mapping needs it: joint names, nearest joint ancestor, skin weight per joint. */
export interface Skeleton {
  jointNames: readonly string[];
  /** Index of the nearest ancestor that is a joint, or -1. */
  jointParent: Int32Array;
  /** Sum of skin weights on each joint over every vertex. */
  jointWeight: Float64Array;
  /** Roles a file declares itself (a VRM humanoid table): joint index -> VRM bone name. */
  declaredRoles?: ReadonlyMap<number, string>;
}

/** Bone name -> role (VRM name such as "leftUpperArm"), hitbox name (such as "upper_arm.l") or "none". */
export type BoneOverrides = Readonly<Record<string, string>>;

export interface SkeletonMapping {
  /** Per joint: index into HITBOX_ORDER. */
  jointHitbox: Int32Array;
  /** Per joint: its hitbox's zone. */
  jointZone: Uint8Array;
  /** Per HITBOX_ORDER entry: the joint whose frame carries it, or -1 when no joint with skin weight feeds it. */
  primary: Int32Array;
  /** Per joint: how it was mapped ("name", "declared", "override", "inherited", "default"), for the build's report. */
  how: string[];
}

/** Maps every joint of `sk` to a hitbox. Throws on an override naming no joint or an unknown role. */
export function mapSkeleton(sk: Skeleton, overrides: BoneOverrides = {}): SkeletonMapping {
  const { kinds, sides, how } = readKinds(sk, overrides);
  splitSpineChain(sk.jointParent, kinds);
  findUpperLegs(sk.jointParent, kinds, sides);
  const { jointHitbox, principal } = assignHitboxes(sk.jointParent, kinds, sides, how);
  const primary = primaryJoints(sk.jointWeight, jointHitbox, principal);
  const jointZone = Uint8Array.from(jointHitbox, (h) => hitboxZoneSide(HITBOX_ORDER[h]).zone);
  return { jointHitbox, jointZone, primary, how };
}

/** Per joint: the kind and side its override, declared role or name says, and which of those decided. */
interface JointKinds {
  kinds: (Kind | undefined)[];
  sides: Uint8Array;
  how: string[];
}

function readKinds(sk: Skeleton, overrides: BoneOverrides): JointKinds {
  const J = sk.jointNames.length;
  const kinds: (Kind | undefined)[] = new Array(J).fill(undefined);
  const sides = new Uint8Array(J);
  const how: string[] = new Array(J).fill('');
  const byName = new Map<string, number>();
  sk.jointNames.forEach((n, j) => byName.set(n, j));
  for (const name of Object.keys(overrides)) {
    if (!byName.has(name)) {
      throw new Error(`bone map: no joint is called "${name}"; the skeleton's joints are: ${sk.jointNames.join(', ')}`);
    }
  }
  for (let j = 0; j < J; j++) {
    const name = sk.jointNames[j];
    const override = overrides[name];
    const declared = sk.declaredRoles?.get(j);
    let p: ParsedName;
    if (override !== undefined) {
      if (override === 'none') { how[j] = 'override'; continue; }
      p = parseOverride(name, override);
      how[j] = 'override';
    } else if (declared !== undefined) {
      p = parseBoneName(declared);
      if (p.kind === 'spineChain') p.kind = 'spine';
      how[j] = 'declared';
    } else {
      p = parseBoneName(name);
      how[j] = 'name';
    }
    if (!p.kind || (HITBOX_OF_KIND[p.kind].limb && p.side === Side.CENTER)) { how[j] = ''; continue; }
    kinds[j] = p.kind;
    sides[j] = p.side;
  }
  return { kinds, sides, how };
}

/** An override's role; throws when it names none (or a limb without its side). */
function parseOverride(name: string, override: string): ParsedName {
  const p = parseBoneName(override);
  if (!p.kind || (HITBOX_OF_KIND[p.kind].limb && p.side === Side.CENTER)) {
    throw new Error(
      `bone map: "${name}": "${override}" is not a role; use a VRM humanoid bone name (hips, spine, chest, neck, head, ` +
        `leftShoulder, leftUpperArm, leftLowerArm, leftHand, leftUpperLeg, leftLowerLeg, leftFoot, leftToes, right...), ` +
        `a hitbox name (${HITBOX_ORDER.join(', ')}) or "none"`,
    );
  }
  if (p.kind === 'spineChain') p.kind = 'spine'; // named outright: not split with the chain
  return p;
}

function depth(jointParent: Int32Array, j: number): number {
  let d = 0;
  for (let p = jointParent[j]; p >= 0; p = jointParent[p]) d++;
  return d;
}

function isAncestor(jointParent: Int32Array, a: number, b: number): boolean {
  for (let p = jointParent[b]; p >= 0; p = jointParent[p]) if (p === a) return true;
  return false;
}

/**
 * Numbered spine bones: below an explicit chest on the spine (a descendant of the hips) they are
 * the lower torso, above it the upper. With no such chest, the lower half (rounded down) is the
 * lower torso and the rest the upper torso; a single one is the upper torso (the hips' bone
 * carries the belly).
 */
function splitSpineChain(jointParent: Int32Array, kinds: (Kind | undefined)[]): void {
  const J = kinds.length;
  const chain = [...Array(J).keys()].filter((j) => kinds[j] === 'spineChain').sort((a, b) => depth(jointParent, a) - depth(jointParent, b) || a - b);
  const hips = [...Array(J).keys()].filter((j) => kinds[j] === 'hips');
  const chests = [...Array(J).keys()].filter((j) => kinds[j] === 'chest' && hips.some((h) => isAncestor(jointParent, h, j)));
  if (chests.length > 0) {
    for (const j of chain) kinds[j] = chests.some((c) => isAncestor(jointParent, c, j)) ? 'chest' : 'spine';
  } else if (chain.length === 1) {
    kinds[chain[0]] = 'chest';
  } else {
    chain.forEach((j, i) => { kinds[j] = i < Math.floor(chain.length / 2) ? 'spine' : 'chest'; });
  }
}

/**
 * "leg" is Mixamo's lower leg; in a skeleton with no upper-leg name, the shallower of two
 * lower-leg names on one side is the upper leg.
 */
function findUpperLegs(jointParent: Int32Array, kinds: (Kind | undefined)[], sides: Uint8Array): void {
  const J = kinds.length;
  for (const side of [Side.LEFT, Side.RIGHT]) {
    if ([...Array(J).keys()].some((j) => kinds[j] === 'upperLeg' && sides[j] === side)) continue;
    const lower = [...Array(J).keys()].filter((j) => kinds[j] === 'lowerLeg' && sides[j] === side);
    const top = lower.find((a) => lower.some((b) => isAncestor(jointParent, a, b)));
    if (top !== undefined) kinds[top] = 'upperLeg';
  }
}

/**
 * Per joint: its hitbox (index into HITBOX_ORDER) by kind and side; a joint with no kind takes its
 * nearest mapped ancestor's, else the pelvis (noted in `how`). `principal` marks joints whose kind
 * carries its hitbox's frame.
 */
function assignHitboxes(jointParent: Int32Array, kinds: (Kind | undefined)[], sides: Uint8Array, how: string[]): { jointHitbox: Int32Array; principal: Uint8Array } {
  const J = kinds.length;
  const hitboxIndex = new Map<string, number>();
  HITBOX_ORDER.forEach((n, i) => hitboxIndex.set(n, i));
  const pelvis = hitboxIndex.get('pelvis')!;
  const jointHitbox = new Int32Array(J).fill(-1);
  const principal = new Uint8Array(J);
  for (let j = 0; j < J; j++) {
    const k = kinds[j];
    if (!k) continue;
    const info = HITBOX_OF_KIND[k];
    const name = info.limb ? `${info.stem}.${sides[j] === Side.LEFT ? 'l' : 'r'}` : info.stem;
    jointHitbox[j] = hitboxIndex.get(name)!;
    principal[j] = info.principal ? 1 : 0;
  }
  // Unmapped joints: nearest mapped ancestor, else the pelvis.
  for (let j = 0; j < J; j++) {
    if (jointHitbox[j] >= 0) continue;
    let h = -1;
    for (let p = jointParent[j]; p >= 0 && h < 0; p = jointParent[p]) if (kinds[p]) h = jointHitbox[p];
    jointHitbox[j] = h >= 0 ? h : pelvis;
    how[j] = h >= 0 ? 'inherited' : 'default';
  }
  return { jointHitbox, principal };
}

/** Frame of each hitbox: its principal joint with the most skin weight, else any joint of it with weight, else -1. */
function primaryJoints(jointWeight: Float64Array, jointHitbox: Int32Array, principal: Uint8Array): Int32Array {
  const J = jointHitbox.length;
  const primary = new Int32Array(HITBOX_ORDER.length).fill(-1);
  for (let h = 0; h < HITBOX_ORDER.length; h++) {
    let best = -1;
    for (const wantPrincipal of [1, 0]) {
      for (let j = 0; j < J; j++) {
        if (jointHitbox[j] !== h || jointWeight[j] <= 0 || (wantPrincipal && !principal[j])) continue;
        if (best < 0 || jointWeight[j] > jointWeight[best]) best = j;
      }
      if (best >= 0) break;
    }
    primary[h] = best;
  }
  return primary;
}
