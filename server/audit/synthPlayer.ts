/**
 * One player of a synthetic match (./synthMatch.ts): its state as the match steps it, and how it is
 * drawn at the start.
 */
import { createMoveState, type MoveState } from '../../shared/movement/step';
import { createShooterState, type ShooterState } from '../../shared/validate/verdict';
import type { SpawnPoint } from '../room/config';
import { Behaviour, DEG, drawTraits, lerp, normal, profileStream, InputStream, type ViewState } from './synthPlayers';
import type { CheatKind } from './synthMatch';

export interface Player extends ViewState {
  slot: number;
  cheat: CheatKind;
  legacy: boolean;
  /** The profile's own draws. */
  prand: () => number;
  /** Round trip the player really has, and the one the server measures (fakeLag inflates it), ms. */
  baseRttMs: number;
  nextRttMs: number;
  /** The view of the previous tick (what the room has applied when this tick is recorded). */
  sentYaw: number;
  sentPitch: number;
  /** Where it looks in height when it has no target, radians (below the horizon). */
  idlePitch: number;
  /** Its client's inputs as the room receives them. */
  inputs: InputStream;
  /** The client's error in its estimate of the server clock, ms (its render times are off by this). */
  clockErrMs: number;
  move: MoveState;
  yaw: number;
  wishYaw: number;
  nextWishMs: number;
  rttMs: number;
  interpMs: number;
  shooter: ShooterState;
  health: number;
  alive: boolean;
  epoch: number;
  lifeStartMs: number;
  lifePending: boolean;
  respawnAtMs: number;
  lives: number;
  seq: number;
  /** Legacy caricatures: target being tracked and since when it has been visible, ms. */
  target: number;
  visibleSinceMs: number;
}

/**
 * Player `i` of a synthetic match at spawn `p`, playing `cheat` (a legacy caricature or a Behaviour
 * at `strengthGiven`): its connection, interpolation delay, human traits, view in height and input
 * stream. Draws from the match's stream `rand` in a fixed order (the match depends on it) and from
 * streams of its own.
 */
export function createPlayer(
  i: number, cheat: CheatKind, legacy: boolean, p: SpawnPoint, strengthGiven: number, seed: number, rand: () => number, windowMs: number, magazines: readonly number[],
): Player {
  const strength = Math.max(0, Math.min(1, strengthGiven));
  const baseRttMs = 30 + Math.floor(rand() * 90);
  const wishYaw = rand() * 2 * Math.PI;
  const traits = drawTraits(rand);
  // Honest clients pick an interpolation delay for their connection (60-130 ms); a backtracker declares a
  // longer one, so its render times sit toward the window's edge. The caricatures keep 100 ms.
  const honestInterp = legacy ? 100 : 60 + 70 * rand();
  const interpMs = cheat === Behaviour.EDGE_BACKTRACK ? lerp(honestInterp, windowMs - baseRttMs / 2 - 12, strength) : honestInterp;
  const pl: Player = {
    slot: i, cheat, legacy, prand: profileStream(seed, i), move: createMoveState(p.x, p.y, p.z, p.dirX, p.dirZ), yaw: Math.atan2(p.dirX, p.dirZ), sentYaw: Math.atan2(p.dirX, p.dirZ), clockErrMs: 10 * normal(rand), wishYaw,
    nextWishMs: 0, baseRttMs, rttMs: baseRttMs, nextRttMs: 0, interpMs, shooter: createShooterState(i, magazines), health: 100,
    alive: true, epoch: 1, lifeStartMs: 0, lifePending: true, respawnAtMs: 0, lives: 0, seq: 0, target: -1, visibleSinceMs: 0,
    noise: 0, traits, behaviour: legacy ? Behaviour.HONEST : (cheat as Behaviour), strength, engagement: null,
    pitch: 0, sentPitch: 0, pitchNoise: 0, idlePitch: 0, inputs: null as unknown as InputStream,
  };
  // The view in height and the input stream draw from streams of their own (the match's draws stay as they were).
  const vrand = profileStream(seed ^ 0x5bd1e995, i);
  if (!legacy) pl.idlePitch = pl.pitch = pl.sentPitch = -(1 + 5 * vrand()) * DEG;
  const choke = cheat === Behaviour.FAKE_LAG && strength > 0 ? () => strength * (120 + 180 * vrand()) : null;
  pl.inputs = new InputStream(vrand, baseRttMs / 2, choke);
  return pl;
}
