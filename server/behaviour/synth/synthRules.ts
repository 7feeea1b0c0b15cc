/**
 * What a synthetic match (./synthMatch.ts) takes from the real server: the rules a default
 * createGameServer builds, and where a posed player's hitbox centre lies (what a synthetic player
 * aims at).
 */
import type { PlayerPose } from '../../../shared/lagcomp/pose';
import type { Rewinder } from '../../../shared/lagcomp/rewind';
import { MANNEQUIN_RIG, Clip } from '../../rig/mannequin';
import { BONE_STRIDE, DEFAULT_ZONE_MULTIPLIERS, HIT_ZONE_COUNT } from '../../../shared/rig/rig';
import { transformPoint } from '../../../shared/rig/posing';
import { WEAPONS } from '../../../shared/weapons';
import { defaultValidationConfig, type ValidationConfig } from '../../../shared/validate/shot';
import { defaultMoveConfig, type MoveConfig } from '../../../shared/movement/step';
import { sceneOptionsFor } from '../../../shared/validate/scene';
import type { MatchHeader } from '../../match/recorder';

/** The same rules a default createGameServer builds (see server/index.ts). */
export function defaultRules(maxPlayers: number, tickRate: number): { validation: ValidationConfig; header: Pick<MatchHeader, 'scene'> & { movement: MoveConfig } } {
  const zoneMultipliers: number[] = [];
  for (let z = 0; z < HIT_ZONE_COUNT; z++) zoneMultipliers.push((DEFAULT_ZONE_MULTIPLIERS as Record<number, number>)[z] ?? 1);
  const validation = defaultValidationConfig(WEAPONS, zoneMultipliers, MANNEQUIN_RIG.eyeHeight, maxPlayers);
  return {
    validation,
    header: {
      scene: sceneOptionsFor(tickRate, validation),
      movement: defaultMoveConfig({ idle: Clip.IDLE, jog: Clip.JOG, run: Clip.RUN, fall: Clip.FALL }, MANNEQUIN_RIG.clips.map((c) => c.duration)),
    },
  };
}

/** World-space centre of hitbox `h`'s bounding sphere with the player posed at `pose`. */
export function hitboxCentre(out: Float64Array, rewinder: Rewinder, pose: PlayerPose, h: number, bones: Float64Array): Float64Array {
  rewinder.poseBones(bones, pose);
  const sph = rewinder.rig.hitboxSpheres;
  transformPoint(out, 0, bones, h * BONE_STRIDE, sph[h * 4]!, sph[h * 4 + 1]!, sph[h * 4 + 2]!);
  return out;
}
