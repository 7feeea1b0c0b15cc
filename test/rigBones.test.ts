// Bone mapping (server/rig/bones.ts): the skeletons of the common conventions, written out as they
// ship (names and hierarchy), map every joint to the hitbox a person would pick; numbered spines
// split into lower and upper torso; unmapped joints follow their parent; overrides win and typos in
// them are refused.
import { describe, expect, it } from 'vitest';
import { HITBOX_ORDER, mapSkeleton, parseBoneName, type BoneOverrides } from '../server/rig/bones';
import { Side } from '../shared/rig/rig';

/** A skeleton from "child<parent" lines; every joint weighs 1 unless listed in `weightless`. */
function skeleton(spec: string[], weightless: string[] = [], declared?: Map<number, string>) {
  const names = spec.map((s) => s.split('<')[0]);
  const jointParent = Int32Array.from(spec, (s) => (s.includes('<') ? names.indexOf(s.split('<')[1]) : -1));
  jointParent.forEach((p, j) => { if (spec[j].includes('<') && p < 0) throw new Error(`bad parent in ${spec[j]}`); });
  const jointWeight = Float64Array.from(names, (n) => (weightless.includes(n) ? 0 : 1));
  return { jointNames: names, jointParent, jointWeight, declaredRoles: declared };
}

function hitboxes(sk: ReturnType<typeof skeleton>, overrides?: BoneOverrides): Record<string, string> {
  const m = mapSkeleton(sk, overrides);
  return Object.fromEntries(sk.jointNames.map((n, j) => [n, HITBOX_ORDER[m.jointHitbox[j]]]));
}

/** A humanoid chain written with a naming function: (role, side) -> bone name. */
function humanoid(name: (role: string, side: '' | 'l' | 'r') => string, spine: string[]): string[] {
  const out = [`${name('hips', '')}`];
  let parent = name('hips', '');
  for (const s of spine) { out.push(`${s}<${parent}`); parent = s; }
  out.push(`${name('neck', '')}<${parent}`, `${name('head', '')}<${name('neck', '')}`);
  for (const side of ['l', 'r'] as const) {
    out.push(`${name('shoulder', side)}<${parent}`, `${name('upperArm', side)}<${name('shoulder', side)}`,
      `${name('lowerArm', side)}<${name('upperArm', side)}`, `${name('hand', side)}<${name('lowerArm', side)}`,
      `${name('finger', side)}<${name('hand', side)}`,
      `${name('upperLeg', side)}<${name('hips', '')}`, `${name('lowerLeg', side)}<${name('upperLeg', side)}`,
      `${name('foot', side)}<${name('lowerLeg', side)}`, `${name('toes', side)}<${name('foot', side)}`);
  }
  return out;
}

const EXPECTED: Record<string, string> = {
  hips: 'pelvis', neck: 'neck', head: 'head', shoulder: 'upper_torso', upperArm: 'upper_arm', lowerArm: 'forearm',
  hand: 'hand', finger: 'hand', upperLeg: 'thigh', lowerLeg: 'calf', foot: 'foot', toes: 'foot',
};

const CONVENTIONS: Record<string, { name: (role: string, side: '' | 'l' | 'r') => string; spine: string[]; lower: string[] }> = {
  mixamo: {
    name: (r, s) => 'mixamorig:' + (s ? (s === 'l' ? 'Left' : 'Right') : '') + ({ hips: 'Hips', neck: 'Neck', head: 'Head', shoulder: 'Shoulder', upperArm: 'Arm', lowerArm: 'ForeArm', hand: 'Hand', finger: 'HandIndex1', upperLeg: 'UpLeg', lowerLeg: 'Leg', foot: 'Foot', toes: 'ToeBase' } as Record<string, string>)[r],
    spine: ['mixamorig:Spine', 'mixamorig:Spine1', 'mixamorig:Spine2'], lower: ['mixamorig:Spine'],
  },
  vrm: {
    name: (r, s) => (s ? (s === 'l' ? 'left' : 'right') + r[0].toUpperCase() + r.slice(1) : r).replace('Finger', 'IndexProximal'),
    spine: ['spine', 'chest', 'upperChest'], lower: ['spine'],
  },
  unity: {
    name: (r, s) => (s ? (s === 'l' ? 'Left' : 'Right') : '') + ({ hips: 'Hips', neck: 'Neck', head: 'Head', shoulder: 'Shoulder', upperArm: 'UpperArm', lowerArm: 'LowerArm', hand: 'Hand', finger: ' Index Proximal', upperLeg: 'UpperLeg', lowerLeg: 'LowerLeg', foot: 'Foot', toes: 'Toes' } as Record<string, string>)[r],
    spine: ['Spine', 'Chest', 'UpperChest'], lower: ['Spine'],
  },
  unreal5: {
    name: (r, s) => ({ hips: 'pelvis', neck: 'neck_01', head: 'head', shoulder: 'clavicle', upperArm: 'upperarm', lowerArm: 'lowerarm', hand: 'hand', finger: 'index_01', upperLeg: 'thigh', lowerLeg: 'calf', foot: 'foot', toes: 'ball' } as Record<string, string>)[r] + (s ? `_${s}` : ''),
    spine: ['spine_01', 'spine_02', 'spine_03', 'spine_04', 'spine_05'], lower: ['spine_01', 'spine_02'],
  },
  blender: {
    name: (r, s) => ({ hips: 'hips', neck: 'neck', head: 'head', shoulder: 'shoulder', upperArm: 'upper_arm', lowerArm: 'forearm', hand: 'hand', finger: 'f_index.01', upperLeg: 'thigh', lowerLeg: 'shin', foot: 'foot', toes: 'toe' } as Record<string, string>)[r] + (s ? `.${s.toUpperCase()}` : ''),
    spine: ['spine', 'spine.001', 'spine.002', 'spine.003'], lower: ['spine', 'spine.001'],
  },
  biped: {
    name: (r, s) => 'Bip01 ' + (s ? `${s.toUpperCase()} ` : '') + ({ hips: 'Pelvis', neck: 'Neck', head: 'Head', shoulder: 'Clavicle', upperArm: 'UpperArm', lowerArm: 'Forearm', hand: 'Hand', finger: 'Finger1', upperLeg: 'Thigh', lowerLeg: 'Calf', foot: 'Foot', toes: 'Toe0' } as Record<string, string>)[r],
    spine: ['Bip01 Spine', 'Bip01 Spine1', 'Bip01 Spine2'], lower: ['Bip01 Spine'],
  },
  vroid: {
    name: (r, s) => 'J_Bip_' + (s ? s.toUpperCase() : 'C') + '_' + ({ hips: 'Hips', neck: 'Neck', head: 'Head', shoulder: 'Shoulder', upperArm: 'UpperArm', lowerArm: 'LowerArm', hand: 'Hand', finger: 'Index1', upperLeg: 'UpperLeg', lowerLeg: 'LowerLeg', foot: 'Foot', toes: 'ToeBase' } as Record<string, string>)[r],
    spine: ['J_Bip_C_Spine', 'J_Bip_C_Chest', 'J_Bip_C_UpperChest'], lower: ['J_Bip_C_Spine'],
  },
  mannequin: {
    name: (r, s) => ({ hips: 'pelvis', neck: 'neck_01', head: 'head', shoulder: 'clavicle', upperArm: 'upperarm', lowerArm: 'lowerarm', hand: 'hand', finger: 'index_01', upperLeg: 'thigh', lowerLeg: 'calf', foot: 'foot', toes: 'ball' } as Record<string, string>)[r] + (s ? `.${s}` : ''),
    spine: ['spine_01', 'spine_02'], lower: ['spine_01'],
  },
  robotExpressive: {
    name: (r, s) => ({ hips: 'Hips', neck: 'Neck', head: 'Head', shoulder: 'Shoulder', upperArm: 'UpperArm', lowerArm: 'LowerArm', hand: 'Palm2', finger: 'Middle1', upperLeg: 'UpperLeg', lowerLeg: 'LowerLeg', foot: 'Foot', toes: 'Foot_end' } as Record<string, string>)[r] + (s ? `.${s.toUpperCase()}` : ''),
    spine: ['Abdomen', 'Torso'], lower: ['Abdomen'],
  },
};

describe('bone mapping by naming convention', () => {
  for (const [convention, c] of Object.entries(CONVENTIONS)) {
    it(`${convention}: every joint lands in the hitbox of its role and side`, () => {
      const sk = skeleton(humanoid(c.name, c.spine));
      const got = hitboxes(sk);
      for (const role of Object.keys(EXPECTED)) {
        for (const side of (['l', 'r'] as const)) {
          const limb = !['hips', 'neck', 'head', 'shoulder'].includes(role);
          const name = c.name(role, ['hips', 'neck', 'head'].includes(role) ? '' : side);
          expect(got[name], `${name} (${role})`).toBe(EXPECTED[role] + (limb ? `.${side}` : ''));
        }
      }
      for (const s of c.spine) expect(got[s], s).toBe(c.lower.includes(s) ? 'lower_torso' : 'upper_torso');
      // Every hitbox gets a frame (a principal joint with weight).
      expect(Array.from(mapSkeleton(sk).primary).every((p) => p >= 0)).toBe(true);
    });
  }

  it('reads sides in every spelling, and leaves "leftover" alone', () => {
    const cases: [string, Side][] = [
      ['LeftHand', Side.LEFT], ['rightHand', Side.RIGHT], ['Left Hand', Side.LEFT], ['hand_l', Side.LEFT], ['hand.R', Side.RIGHT],
      ['hand-L', Side.LEFT], ['L_Hand', Side.LEFT], ['r hand', Side.RIGHT], ['HandLeft', Side.LEFT], ['J_Bip_R_Hand', Side.RIGHT],
      ['Bip01 R Hand', Side.RIGHT], ['DEF-hand.L', Side.LEFT], ['mixamorig1:RightHand', Side.RIGHT], ['hand', Side.CENTER],
    ];
    for (const [name, side] of cases) {
      expect(parseBoneName(name), name).toEqual({ kind: 'hand', side });
    }
    expect(parseBoneName('leftover').kind).toBeUndefined();
    expect(parseBoneName('upperarm_twist_01_l')).toEqual({ kind: undefined, side: Side.LEFT });
  });

  it('unmapped joints follow their nearest mapped ancestor; a root above the hips falls to the pelvis', () => {
    const sk = skeleton(['root', 'pelvis<root', 'spine_01<pelvis', 'spine_02<spine_01', 'neck_01<spine_02', 'head<neck_01',
      'thigh_l<pelvis', 'thigh_twist_01_l<thigh_l', 'calf_l<thigh_l', 'ik_foot_root<root', 'ik_foot_l<ik_foot_root']);
    const got = hitboxes(sk);
    expect(got.root).toBe('pelvis');
    expect(got.thigh_twist_01_l).toBe('thigh.l');
    expect(got.ik_foot_l).toBe('pelvis');
    const m = mapSkeleton(sk);
    expect(m.how[sk.jointNames.indexOf('thigh_twist_01_l')]).toBe('inherited');
    expect(m.how[sk.jointNames.indexOf('root')]).toBe('default');
  });

  it('a single spine bone is the upper torso; a hitbox whose joints carry no weight has no frame', () => {
    const sk = skeleton(['Hips', 'Spine<Hips', 'Neck<Spine', 'Head<Neck'], ['Neck']);
    const m = mapSkeleton(sk);
    expect(hitboxes(sk).Spine).toBe('upper_torso');
    expect(m.primary[HITBOX_ORDER.indexOf('neck')]).toBe(-1);
    expect(m.primary[HITBOX_ORDER.indexOf('lower_torso')]).toBe(-1);
    expect(m.primary[HITBOX_ORDER.indexOf('head')]).toBe(3);
  });

  it('"leg" is the lower leg beside an upper leg, the upper leg when the chain has no other', () => {
    expect(hitboxes(skeleton(['Hips', 'LeftUpLeg<Hips', 'LeftLeg<LeftUpLeg'])).LeftLeg).toBe('calf.l');
    const got = hitboxes(skeleton(['hips', 'leg.L<hips', 'shin.L<leg.L']));
    expect(got['leg.L']).toBe('thigh.l');
    expect(got['shin.L']).toBe('calf.l');
  });

  it('overrides win (role names, hitbox names, "none"); VRM tables beat names; typos are refused', () => {
    const sk = skeleton(['Armature', 'Body<Armature', 'Bone.001<Body', 'Bone.002<Bone.001', 'Head<Bone.002', 'Hips<Armature'],
      [], new Map([[2, 'chest']]));
    const got = hitboxes(sk, { Body: 'upper_torso', 'Bone.002': 'neck', Hips: 'none' });
    expect(got).toMatchObject({ Body: 'upper_torso', 'Bone.001': 'upper_torso', 'Bone.002': 'neck', Head: 'head', Hips: 'pelvis' });
    expect(mapSkeleton(sk, { Body: 'leftUpperArm' }).how[1]).toBe('override');
    expect(hitboxes(sk, { Body: 'leftUpperArm' }).Body).toBe('upper_arm.l');
    expect(mapSkeleton(sk).how[2]).toBe('declared');
    expect(() => mapSkeleton(sk, { Bodyy: 'chest' })).toThrow(/no joint is called "Bodyy".*Armature, Body/);
    expect(() => mapSkeleton(sk, { Body: 'tail' })).toThrow(/"Body": "tail" is not a role/);
    expect(() => mapSkeleton(sk, { Body: 'upperArm' })).toThrow(/is not a role/); // a limb needs its side
  });
});
