/**
 * Which hit zone and hitbox each joint of the mannequin skeleton belongs to. The rig build groups
 * triangles by it, and the rig-quality tests use it to name the zone of a skinned triangle.
 * Joint names follow the mannequin (Unreal-style: pelvis, spine_01, thigh.l, lowerarm.r, ...).
 */
import { HitZone, Side } from '../../shared/rig/rig';

export interface JointGroup {
  /** Hitbox name, e.g. "forearm.l". */
  hitbox: string;
  /** The joint whose frame carries the hitbox (its triangles are rigid in this frame). */
  primaryJoint: string;
  zone: HitZone;
  side: Side;
}

const SIDE_SUFFIX: Record<string, Side> = { l: Side.LEFT, r: Side.RIGHT };

/** The group of a joint by name; throws with a hint when the skeleton has a joint this table does not know. */
export function groupOfJoint(name: string): JointGroup {
  // Normalise "ball.l_end" -> base "ball_end", side l.
  let base = name;
  let sideKey = '';
  const sm = /\.(l|r)(_end)?$/.exec(name);
  if (sm) {
    sideKey = sm[1];
    base = name.slice(0, sm.index) + (sm[2] ?? '');
  }
  const side = sideKey ? SIDE_SUFFIX[sideKey] : Side.CENTER;
  const s = sideKey ? '.' + sideKey : '';
  if (base === 'head' || base === 'head_end') return { hitbox: 'head', primaryJoint: 'head', zone: HitZone.HEAD, side };
  if (base === 'neck_01') return { hitbox: 'neck', primaryJoint: 'neck_01', zone: HitZone.NECK, side };
  if (base === 'spine_02' || base === 'clavicle') return { hitbox: 'upper_torso', primaryJoint: 'spine_02', zone: HitZone.UPPER_TORSO, side: Side.CENTER };
  if (base === 'spine_01') return { hitbox: 'lower_torso', primaryJoint: 'spine_01', zone: HitZone.LOWER_TORSO, side };
  if (base === 'pelvis' || base === 'root') return { hitbox: 'pelvis', primaryJoint: 'pelvis', zone: HitZone.PELVIS, side: Side.CENTER };
  if (base === 'upperarm') return { hitbox: 'upper_arm' + s, primaryJoint: 'upperarm' + s, zone: HitZone.UPPER_ARM, side };
  if (base === 'lowerarm') return { hitbox: 'forearm' + s, primaryJoint: 'lowerarm' + s, zone: HitZone.FOREARM, side };
  if (base === 'hand' || /^(thumb|index|middle|ring|pinky)_0\d(_end)?$/.test(base)) {
    return { hitbox: 'hand' + s, primaryJoint: 'hand' + s, zone: HitZone.HAND, side };
  }
  if (base === 'thigh') return { hitbox: 'thigh' + s, primaryJoint: 'thigh' + s, zone: HitZone.THIGH, side };
  if (base === 'calf') return { hitbox: 'calf' + s, primaryJoint: 'calf' + s, zone: HitZone.CALF, side };
  if (base === 'foot' || base === 'ball' || base === 'ball_end') return { hitbox: 'foot' + s, primaryJoint: 'foot' + s, zone: HitZone.FOOT, side };
  throw new Error(`groupOfJoint: no hit zone for joint "${name}"; add it to server/rig/zones.ts`);
}
