/**
 * Who a shot can hit (step 6 of shot.ts) and what a hit does (step 7): the histories of the players
 * that count as targets for one shot, and the damage of a hit. A player counts when it is not the
 * shooter, its current life began at or before the rewound time, its data reaches the rewound time,
 * it had not left the match by the action time, it is alive now (or, with shots in flight honoured, was alive at the action time),
 * and it is not a teammate under friendly fire 'off'.
 */
import { rewindStatusUsable, type PlayerHistory, type RewindPolicy } from '../lagcomp/history';
import { falloffAt, type WeaponSpec } from '../weapons';
import type { ShotScene, ShotTargets, ValidationConfig } from './rules';

// scratch: the masked histories handed to the rewinder (released after each shot)
const scratchMasked: (PlayerHistory | undefined)[] = [];
const scratchRoot = new Float64Array(4);

/** Whether slots a and b are on the same team (both >= 0). */
export function teammates(targets: ShotTargets, a: number, b: number): boolean {
  const team = targets.team;
  if (team === undefined) return false;
  const ta = team[a], tb = team[b];
  return ta !== undefined && ta >= 0 && ta === tb;
}

/**
 * The histories a shot at rewound time `when`, fired at action time `at`, can hit, by slot (others
 * undefined). The array is shared scratch: hand it back with releaseTargets.
 */
export function maskTargets(
  scene: ShotScene, config: ValidationConfig, targets: ShotTargets, shooter: number, when: number, at: number, inFlight: boolean, aliveByMs = at,
): (PlayerHistory | undefined)[] {
  const n = Math.min(config.maxPlayers, scene.histories.length);
  const left = targets.leftMs, until = targets.dataUntilMs;
  const noTeammates = config.friendlyFire === 'off';
  scratchMasked.length = n;
  for (let i = 0; i < n; i++) {
    // With shots in flight honoured, a player killed after aliveByMs (the action time, or with the
    // trade rule that less the time the kill's news may still have been on the way to the shooter:
    // ./times tradeGraceMs) still stands where the shooter saw it (the rewinder skips whoever was
    // dead at the rewound time); the room applies no damage. One already dead by then is not.
    let live = i !== shooter && (targets.lifeStartMs[i] ?? Infinity) <= when;
    // Gone before the shot was fired: its history still holds its last pose, but nobody stands there.
    if (live && left !== undefined && (left[i] ?? Number.NaN) <= at) live = false;
    // Held only up to a time before the rewound one (a client's tail of a withheld player): nothing to hit there.
    if (live && until !== undefined && (until[i] ?? Infinity) < when) live = false;
    if (live && noTeammates && teammates(targets, shooter, i)) live = false;
    if (live && targets.alive[i] !== true) live = inFlight && aliveAt(scene.histories[i], aliveByMs, scene.eyePolicy);
    scratchMasked[i] = live ? scene.histories[i] : undefined;
  }
  return scratchMasked;
}

/** Drops the references maskTargets handed out (nothing keeps a history alive between shots). */
export function releaseTargets(masked: (PlayerHistory | undefined)[]): void {
  for (let i = 0; i < masked.length; i++) masked[i] = undefined;
}

/** Whether the history has its player alive at `timeMs` (its newest snapshot for later times). */
function aliveAt(history: PlayerHistory | undefined, timeMs: number, policy: RewindPolicy): boolean {
  return history !== undefined && rewindStatusUsable(history.sampleRootAt(scratchRoot, timeMs, policy)) && scratchRoot[3] === 1;
}

/**
 * Damage of a hit in `zone` at fraction `t` of a segment of squared length `len2`: the weapon's
 * damage times the zone's multiplier (the weapon's table, else the rules'), times its falloff at
 * the hit's distance from the start when it has one.
 */
export function hitDamage(weapon: WeaponSpec, config: ValidationConfig, zone: number, t: number, len2: number): number {
  const table = weapon.zoneMultipliers ?? config.zoneMultipliers;
  const damage = weapon.damage * (table[zone] ?? 1);
  const falloff = weapon.falloff;
  if (falloff === null || falloff === undefined || falloff.length === 0) return damage;
  return damage * falloffAt(falloff, t * Math.sqrt(len2));
}
