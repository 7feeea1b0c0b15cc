/**
 * How a human (or inhuman profile) player of a synthetic match (./synthState.ts) sees and shoots:
 * before it moves, it notices the players its client draws, keeps or drops its engagement and
 * turns its view; after the tick is recorded, its trigger fires when the crosshair is on the
 * target and the weapon is ready.
 */
import { rewindStatusUsable } from '../../../shared/lagcomp/history';
import { FOV_HALF, LOSE_AFTER_MS, NOTICE_RANGE_M, drawHeadAim } from '../../../client-sim/human/traits';
import { viewOnBody } from '../motion';
import { DEFAULT_MEASURE_WINDOWS } from '../shotMeasures';
import { Behaviour, Phase, cadence, engageTarget, lerp, stepView, wrap, type Engagement } from './synthPlayers';
import { hitboxCentre } from './synthRules';
import type { Player } from './synthPlayer';
import type { SynthMatchState } from './synthState';

/** Height of the chest above a player's root, m: where the synthetic players look (and check line of sight to). */
const CHEST_M = 1.3;

/**
 * `pl`'s tick before moving: notices targets, keeps or drops its engagement, and turns its view
 * toward its target (or, with wallhack knowledge, leans its idle view toward a hidden player).
 */
export function perceiveAndTurn(s: SynthMatchState, pl: Player, tick: number, t: number): void {
  const m = pl.move, seen = s.seen;
  const ex = m.x, ey = m.y + s.eye, ez = m.z;
  const lag = Math.round((pl.baseRttMs / 2 + pl.interpMs) / s.dtMs);
  const hidden = notice(s, pl, tick, t, lag);
  const g = pl.engagement;
  let targetYaw = NaN, targetPitch = NaN;
  if (g !== null && s.rendered(seen, g.target, tick, lag)) {
    const dx = seen[0]! - ex, dz = seen[2]! - ez;
    targetYaw = Math.atan2(dx, dz);
    targetPitch = Math.atan2(seen[1]! + CHEST_M - ey, Math.sqrt(dx * dx + dz * dz));
  }
  let idle = pl.wishYaw, idlePitch = pl.idlePitch;
  if (hidden >= 0 && s.rendered(seen, hidden, tick, lag)) {
    // Wallhack knowledge: the view leans toward the hidden player's chest by the strength.
    const dx = seen[0]! - ex, dz = seen[2]! - ez;
    idle = pl.wishYaw + wrap(Math.atan2(dx, dz) - pl.wishYaw) * pl.strength;
    idlePitch = lerp(pl.idlePitch, Math.atan2(seen[1]! + CHEST_M - ey, Math.sqrt(dx * dx + dz * dz)), pl.strength);
  }
  stepView(pl, t, s.dtMs, targetYaw, targetPitch, idle, idlePitch, pl.prand);
}

/**
 * Looks over the players `pl`'s client draws (`lag` ticks behind): keeps its engagement while its
 * target stays in sight (drops it when lost too long or dead), engages the nearest seen player
 * when it has none, and answers the nearest hidden one a prefirer wants (-1: none).
 */
function notice(s: SynthMatchState, pl: Player, tick: number, t: number, lag: number): number {
  const m = pl.move, seen = s.seen, players = s.players;
  const ex = m.x, ey = m.y + s.eye, ez = m.z;
  let best = -1, bestD = Infinity, hidden = -1, hiddenD = Infinity;
  const e = pl.engagement;
  let engagedSeen = false;
  for (const o of players) {
    if (o === pl || !s.rendered(seen, o.slot, tick, lag)) continue;
    const dx = seen[0]! - ex, dz = seen[2]! - ez;
    const d = Math.sqrt(dx * dx + dz * dz);
    if (d > NOTICE_RANGE_M || d < 1e-6) continue;
    const inFov = Math.abs(wrap(Math.atan2(dx, dz) - pl.yaw)) <= FOV_HALF;
    const wantHidden = pl.behaviour === Behaviour.PREFIRE && d < hiddenD;
    if (!inFov && !wantHidden) continue;
    const los = s.visible(ex, ey, ez, seen[0]!, seen[1]! + 1.3, seen[2]!);
    if (los && inFov) {
      if (e !== null && e.target === o.slot) engagedSeen = true;
      if (d < bestD) { best = o.slot; bestD = d; }
    } else if (!los && wantHidden) { hidden = o.slot; hiddenD = d; }
  }
  if (e !== null) {
    if (engagedSeen) e.seenMs = t;
    else if (t - e.seenMs > LOSE_AFTER_MS || !players[e.target]!.alive) pl.engagement = null;
  }
  if (pl.engagement === null && best >= 0) pl.engagement = engageTarget(pl, best, t, pl.prand);
  return hidden;
}

/**
 * `pl`'s trigger after the tick is recorded: aims at a hitbox of its target as its client drew it,
 * waits for the crosshair on the body (and a first pull's confirmation) and for the weapon, and
 * fires along its view (silent aim pulls the shot toward the aim point by the strength).
 */
export function humanTrigger(s: SynthMatchState, pl: Player, t: number): void {
  const g = pl.engagement;
  if (g === null || g.phase === Phase.REACT) return;
  const strength = pl.behaviour === Behaviour.HONEST ? 0 : pl.strength;
  const m = pl.move, rng = s.rng, scene = s.scene, sampled = s.sampled, aimPoint = s.aimPoint;
  const ex = m.x, ey = m.y + s.eye, ez = m.z;
  const receive = t + rng.next() * s.dtMs;
  // The client stamps its action on its estimate of the server clock, one way before the arrival
  // (fake lag claims the inflated one way its held-back pongs made the server measure), and
  // claims the render time its interpolation delay behind (a backtracker up to 50 ms more).
  const at = receive - (pl.behaviour === Behaviour.FAKE_LAG ? pl.rttMs : pl.baseRttMs) / 2 + pl.clockErrMs;
  const claimed = at - pl.interpMs + (rng.next() - 0.5) * 10 - (pl.behaviour === Behaviour.EDGE_BACKTRACK ? 50 * strength : 0);
  if (!rewindStatusUsable(scene.histories[g.target]!.sampleAt(sampled, claimed, scene.eyePolicy)) || !sampled.alive) return;
  const head = drawHeadAim(pl.traits, pl.prand);
  hitboxCentre(aimPoint, scene.rewinder, sampled, head ? s.headBox : s.torsoBox, s.bones);
  const ax = aimPoint[0]! - ex, ay = aimPoint[1]! - ey, az = aimPoint[2]! - ez;
  const hd = Math.sqrt(ax * ax + az * az);
  const dist = Math.sqrt(ax * ax + ay * ay + az * az);
  if (!(hd > 0.3)) return;
  const exactYaw = Math.atan2(ax, az);
  const exactPitch = Math.atan2(ay, hd);
  // The shot goes where the crosshair is; silent aim pulls it toward the aim point.
  const pull = pl.behaviour === Behaviour.SILENT_AIM ? strength : 0;
  const shotYaw = pl.yaw + wrap(exactYaw - pl.yaw) * pull;
  const pitch = pl.pitch + (exactPitch - pl.pitch) * pull;
  if (!onTarget(s, g, ex, ey, ez, shotYaw, pitch, exactYaw, exactPitch, hd, t)) return;
  if (t < g.nextTriggerMs || !s.ready(pl, at, 5 + rng.next() * 20)) return;
  const cp = Math.cos(pitch);
  const dx = Math.sin(shotYaw) * cp, dy = Math.sin(pitch), dz = Math.cos(shotYaw) * cp;
  if (!s.visible(ex, ey, ez, ex + dx * Math.min(dist, 2), ey + dy * Math.min(dist, 2), ez + dz * Math.min(dist, 2))) return;
  // The segment stops where the bullet meets the world, as a client's does.
  let reach = Math.min(s.rifle.rangeM * 0.99, dist + 20);
  if (s.world.firstHit(s.worldHit, ex, ey, ez, ex + dx * reach, ey + dy * reach, ez + dz * reach)) reach *= s.worldHit.t;
  s.shot.timeMs = at;
  s.encode(pl, ex, ey, ez, dx, dy, dz, reach, claimed, g.target);
  s.fire(pl, receive, t);
  g.shots++;
  g.nextTriggerMs = t + cadence(hd, s.rifle.fireIntervalMs, pl.prand, g);
}

/**
 * The crosshair (yaw, pitch) is on the target (s.sampled; the exact direction to the aim point
 * `hd` away horizontally), long enough: a first pull waits for it on the body (the silhouette the
 * audit reads, viewOnBody) for the engagement's confirmation; later pulls keep firing while it
 * stays near the aim point. Keeps since when it has been on in `g`.
 */
function onTarget(
  s: SynthMatchState, g: Engagement, ex: number, ey: number, ez: number, yaw: number, pitch: number, exactYaw: number, exactPitch: number, hd: number, t: number,
): boolean {
  const width = Math.atan2(0.3, hd), height = Math.atan2(0.45, hd);
  const sampled = s.sampled;
  const on = g.shots === 0
    ? viewOnBody(ex, ey, ez, Math.sin(yaw), Math.tan(pitch), Math.cos(yaw), sampled.x, sampled.y, sampled.z, s.eye, DEFAULT_MEASURE_WINDOWS.bodyHalfWidthM, false)
    : Math.abs(wrap(exactYaw - yaw)) <= 1.5 * width && Math.abs(exactPitch - pitch) <= 1.5 * height;
  if (!on) { g.onSinceMs = NaN; return false; }
  if (g.onSinceMs !== g.onSinceMs) g.onSinceMs = t;
  return !(g.shots === 0 && t - g.onSinceMs < g.confirmMs);
}
