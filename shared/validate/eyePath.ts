/**
 * Step 5 of the weapon-message pipeline (shot.ts): where the shooter's eye was. The eye path runs
 * from the eye at the rewound time (A) to the eye where the shooter's moves up to its claimed
 * action time took it (B, shot.ts eyeEnd): the shooter's own client predicts itself ahead of the
 * rewound time, so both ends are legitimate, and nothing after the claim is. Each eye is the rewound
 * root plus that snapshot's eye height (crouching lowers it), or the rules' eye height when the
 * snapshot carries none. The claimed start must lie within originToleranceM of the path, with no
 * world geometry between the nearest path point (C) and the start.
 */
import { rewindStatusUsable, type PlayerHistory } from '../lagcomp/history';
import { createPlayerPose, type PlayerPose } from '../lagcomp/pose';
import { VerdictReason, type Verdict } from './verdict';
import type { ShotScene, ValidationConfig } from './rules';

/** The eye path's ends and the point nearest the start, metres (filled by judgeOrigin). */
export interface EyePath {
  ax: number; ay: number; az: number;
  bx: number; by: number; bz: number;
  cx: number; cy: number; cz: number;
}

export function createEyePath(): EyePath {
  return { ax: 0, ay: 0, az: 0, bx: 0, by: 0, bz: 0, cx: 0, cy: 0, cz: 0 };
}

/** judgeOrigin passed. */
export const ORIGIN_OK = -1;

const scratchPose: PlayerPose = createPlayerPose();

/** The eye height of a sampled pose: its own when it has one, else the rules'. */
export function eyeHeightOf(pose: PlayerPose, config: Pick<ValidationConfig, 'eyeHeightM'>): number {
  const e = pose.eyeHeight;
  return e - e === 0 ? e : config.eyeHeightM;
}

/**
 * Fills `eye` from the shooter's history and judges the start (sx, sy, sz) within `tolerance` of
 * the path (the rules' originToleranceM unless given): writes originOffsetM into `out` and returns
 * ORIGIN_OK or the reason (NO_SHOOTER, ORIGIN_MISMATCH, START_BLOCKED).
 */
export function judgeOrigin(
  eye: EyePath, out: Verdict, scene: ShotScene, config: ValidationConfig, history: PlayerHistory,
  when: number, endMs: number, sx: number, sy: number, sz: number, tolerance: number = config.originToleranceM,
): number {
  const p = scratchPose;
  if (!rewindStatusUsable(history.sampleAt(p, when, scene.eyePolicy))) return VerdictReason.NO_SHOOTER;
  let ax = p.x, ay = p.y + eyeHeightOf(p, config), az = p.z;
  const epochA = p.epoch;
  if (!rewindStatusUsable(history.sampleAt(p, endMs, scene.eyePolicy))) return VerdictReason.NO_SHOOTER;
  const bx = p.x, by = p.y + eyeHeightOf(p, config), bz = p.z;
  // A respawn or teleport in between: the straight line from the old eye to the new one is no path
  // the shooter ever took (it can cross the whole level), so only the current life's eye counts.
  if (p.epoch !== epochA) {
    ax = bx; ay = by; az = bz;
  }
  // Closest point C on segment AB to the start S.
  const abx = bx - ax, aby = by - ay, abz = bz - az;
  const ab2 = abx * abx + aby * aby + abz * abz;
  let u = 0;
  if (ab2 > 1e-12) {
    u = ((sx - ax) * abx + (sy - ay) * aby + (sz - az) * abz) / ab2;
    u = Math.max(0, Math.min(1, u));
  }
  const cx = ax + u * abx, cy = ay + u * aby, cz = az + u * abz;
  eye.ax = ax; eye.ay = ay; eye.az = az;
  eye.bx = bx; eye.by = by; eye.bz = bz;
  eye.cx = cx; eye.cy = cy; eye.cz = cz;
  const ox = sx - cx, oy = sy - cy, oz = sz - cz;
  const off2 = ox * ox + oy * oy + oz * oz;
  out.originOffsetM = Math.sqrt(off2);
  if (off2 > tolerance * tolerance) return VerdictReason.ORIGIN_MISMATCH;
  if (off2 > 1e-12 && scene.world.anyHit(cx, cy, cz, sx, sy, sz)) return VerdictReason.START_BLOCKED;
  return ORIGIN_OK;
}
