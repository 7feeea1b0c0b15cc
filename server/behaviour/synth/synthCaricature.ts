/**
 * The rule-breaking caricatures of a synthetic match (./synthState.ts): they face where they walk,
 * and their trigger (everyone's in a 'spray' match) fires at the nearest living player, one in
 * sight or (a wallhack) one behind a wall: an aimbot at the head with a view snap, a backtracker
 * at a render time past the claim tolerance, a sprayer along its facing when nobody is near.
 */
import { CheatKind, wrap } from './synthPlayers';
import { hitboxCentre } from './synthRules';
import type { Player } from './synthPlayer';
import type { SynthMatchState } from './synthState';

/** A caricature turns toward where it walks, at most 1.5 pi rad/s. */
export function caricatureTurn(pl: Player, dtMs: number): void {
  const d = wrap(pl.wishYaw - pl.yaw);
  const maxTurn = 1.5 * Math.PI * (dtMs / 1000);
  pl.yaw += Math.max(-maxTurn, Math.min(maxTurn, d));
}

/** `pl`'s trigger after the tick is recorded (`spray`: fire whenever the weapon allows). */
export function caricatureTrigger(s: SynthMatchState, pl: Player, t: number, spray: boolean): void {
  const m = pl.move, rng = s.rng;
  const ex = m.x, ey = m.y + s.eye, ez = m.z;
  const best = pickTarget(s, pl, ex, ey, ez);
  if (best !== pl.target) { pl.target = best; pl.visibleSinceMs = t; }
  if (best < 0 && !spray) return;
  const receive = t + rng.next() * s.dtMs;
  // The client stamps its action time on its server clock: one way before the arrival.
  const at = receive - pl.rttMs / 2;
  s.shot.timeMs = at;
  if (at < pl.shooter.nextFireMs + 5 + rng.next() * 60) return;
  // Wait for the reload like a client does (its ammo counter mirrors the server's).
  if (s.reloading(pl, at)) return;
  if (best < 0) {
    // Spray: nothing in sight, fire along the facing.
    s.encode(pl, ex, ey, ez, Math.sin(pl.yaw), 0, Math.cos(pl.yaw), 80, at - pl.interpMs, -1);
    s.fire(pl, receive, t);
    return;
  }
  const waited = t - pl.visibleSinceMs;
  if ((pl.cheat === CheatKind.WALLHACK || pl.cheat === CheatKind.BACKTRACK) && waited < 150) return;
  fireAt(s, pl, best, ex, ey, ez, at, receive, t);
}

/** The nearest living player within 60 m: in sight, or (a wallhack) out of sight (-1: none). */
function pickTarget(s: SynthMatchState, pl: Player, ex: number, ey: number, ez: number): number {
  const m = pl.move;
  let best = -1, bestD = Infinity;
  for (const o of s.players) {
    if (o === pl || !o.alive) continue;
    const dx = o.move.x - m.x, dz = o.move.z - m.z;
    const d2 = dx * dx + dz * dz;
    if (d2 >= bestD || d2 > 60 * 60) continue;
    const los = s.visible(ex, ey, ez, o.move.x, o.move.y + 1.3, o.move.z);
    // A wallhack hunts the players it should not see; everyone else only what they see.
    if (pl.cheat === CheatKind.WALLHACK ? los : !los) continue;
    best = o.slot; bestD = d2;
  }
  return best;
}

/**
 * Fires at `target` as `pl`'s client drew it at its render time (a backtracker: at the rewind
 * window's edge, claiming 60 ms past it): at a hitbox's centre (head for aimbots, mostly torso
 * otherwise) with a hand's noise (none for aimbots), unless the aim line is blocked (a wallhack
 * fires anyway).
 */
function fireAt(s: SynthMatchState, pl: Player, target: number, ex: number, ey: number, ez: number, at: number, receive: number, t: number): void {
  const rng = s.rng, scene = s.scene, sampled = s.sampled, aimPoint = s.aimPoint;
  const windowMs = s.validation.rewindWindowMs;
  const honestRender = at - pl.interpMs + (rng.next() - 0.5) * 10;
  const claimed = pl.cheat === CheatKind.BACKTRACK ? at - windowMs - 60 : honestRender;
  const aimAt = pl.cheat === CheatKind.BACKTRACK ? at - windowMs : honestRender;
  scene.histories[target]!.sampleAt(sampled, aimAt, scene.eyePolicy);
  const headAim = pl.cheat === CheatKind.AIMBOT || (!pl.legacy && rng.next() < 0.1);
  hitboxCentre(aimPoint, scene.rewinder, sampled, headAim ? s.headBox : s.torsoBox, s.bones);
  const noise = pl.cheat === CheatKind.AIMBOT ? 0 : 1;
  const tx = aimPoint[0]! + noise * (rng.next() - 0.5) * 0.25;
  const ty = aimPoint[1]! + noise * (rng.next() - 0.5) * 0.3;
  const tz = aimPoint[2]! + noise * (rng.next() - 0.5) * 0.25;
  // Only a wallhack fires at what it cannot see along the aim line.
  if (pl.cheat !== CheatKind.WALLHACK && !s.visible(ex, ey, ez, tx, ty, tz)) return;
  let dx = tx - ex, dy = ty - ey, dz = tz - ez;
  const len = Math.sqrt(dx * dx + dy * dy + dz * dz) || 1;
  dx /= len; dy /= len; dz /= len;
  const reach = Math.min(s.rifle.rangeM * 0.99, len + 20);
  s.encode(pl, ex, ey, ez, dx, dy, dz, reach, claimed, target);
  if (pl.cheat === CheatKind.AIMBOT) pl.yaw = Math.atan2(dx, dz); // the snap: the view jumps onto the target
  s.fire(pl, receive, t);
}
