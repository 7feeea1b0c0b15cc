/**
 * One player of a synthetic match (./synthMatch.ts): its state as the match steps it, how it is
 * drawn at the start, how it moves in a fight, and the room's round-trip estimate of it.
 */
import { createMoveState, type MoveState } from '../../../shared/movement/step';
import { createShooterState, type ShooterState } from '../../../shared/validate/verdict';
import type { SpawnPoint } from '../../arena/config';
import { DEFAULT_PING_INTERVAL_MS, RoundTrip } from '../../match/roundTrip';
import { createPingMessage, PING_BYTES } from '../../../shared/protocol/ping';
import { Rng } from '../../../client-sim/rng';
import { drawTraits } from '../../../client-sim/human/traits';
import { drawIdlePitch } from '../../../client-sim/human/hand';
import { drawStrafes, nextJumpAt, nextSideAt } from '../../../client-sim/human/dodge';
import { Behaviour, type CheatKind, drawLink, lerp, profileStream, InputStream, type ViewState } from './synthPlayers';

export interface Player extends ViewState {
  slot: number;
  cheat: CheatKind;
  legacy: boolean;
  /** The profile's own draws. */
  prand: Rng;
  /** Round trip the player really has, and the one the server measures (fakeLag inflates it), ms. */
  baseRttMs: number;
  /** When the room pings next, its round-trip estimator for the player and the pings it has sent. */
  nextRttMs: number;
  rtt: RoundTrip;
  pings: number;
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
  /** How it moves in a fight (fightWish). */
  moves: FightMoves;
}

/** A player's dodging in fights: its own draws, the fight it is in and its side steps and jumps. */
export interface FightMoves {
  rand: Rng;
  /** The target of the fight the state belongs to (-1: none). */
  fight: number;
  strafing: boolean;
  side: number;
  nextSideMs: number;
  nextJumpMs: number;
}

/**
 * This tick's movement wish of a human (every profile but the caricatures) into `out`: walking
 * along its wish heading, or side steps across its view at full speed, and jumps, as the human
 * model dodges (client-sim/human/dodge.ts; the simulator's bots dodge by it too), so the targets
 * the audit is calibrated on are as hard to follow as real ones.
 */
export function fightWish(pl: Player, t: number, out: { wishX: number; wishZ: number; jump: boolean }): void {
  const mv = pl.moves;
  const fight = pl.legacy || pl.engagement === null ? -1 : pl.engagement.target;
  out.wishX = Math.sin(pl.wishYaw) * 0.6; out.wishZ = Math.cos(pl.wishYaw) * 0.6; out.jump = false;
  if (pl.legacy) return;
  if (fight !== mv.fight) {
    mv.fight = fight;
    mv.strafing = fight >= 0 && drawStrafes(mv.rand);
    mv.nextSideMs = 0;
  }
  if (t >= mv.nextJumpMs) {
    out.jump = mv.nextJumpMs > 0;
    mv.nextJumpMs = nextJumpAt(t, fight >= 0, mv.rand);
  }
  if (!mv.strafing) return;
  if (t >= mv.nextSideMs) {
    mv.side = -mv.side;
    mv.nextSideMs = nextSideAt(t, mv.rand);
  }
  // Across the view: the heading turned a quarter left or right.
  out.wishX = Math.cos(pl.yaw) * mv.side; out.wishZ = -Math.sin(pl.yaw) * mv.side;
}

/**
 * Player `i` of a synthetic match at spawn `p`, playing `cheat` (a legacy caricature or a Behaviour
 * at `strengthGiven`): its connection, interpolation delay, human traits, view in height and input
 * stream. Draws from the match's stream `rng` in a fixed order (the match depends on it) and from
 * streams of its own.
 */
export function createPlayer(
  i: number, cheat: CheatKind, legacy: boolean, p: SpawnPoint, strengthGiven: number, seed: number, rng: Rng, windowMs: number, magazines: readonly number[],
  person?: number,
): Player {
  const strength = Math.max(0, Math.min(1, strengthGiven));
  // A person (SynthMatchOptions.persons) brings its make-up from its own seed: round trip, traits,
  // interpolation delay, idle pitch and input link are the same in every match it plays.
  const own = person === undefined ? null : Rng.derive(person >>> 0, 0x9e50);
  const pr = own ?? rng;
  // Round trips from a nearby server to another continent (20-250 ms, most under 100).
  const u = pr.next();
  const baseRttMs = 20 + Math.floor(230 * u * u);
  const wishYaw = rng.next() * 2 * Math.PI;
  const traits = drawTraits(pr);
  // Honest clients pick an interpolation delay for their connection: 40-100 ms plus a quarter of the
  // round trip (a farther server's snapshots come less evenly), as long as the rewind stays inside the
  // window. A backtracker declares a longer one, so its render times sit toward the window's edge.
  // The caricatures keep 100 ms.
  const honestInterp = legacy ? 100 : Math.min(40 + 60 * pr.next() + baseRttMs / 4, windowMs - baseRttMs / 2 - 20);
  const interpMs = cheat === Behaviour.EDGE_BACKTRACK ? lerp(honestInterp, windowMs - baseRttMs / 2 - 12, strength) : honestInterp;
  const pl: Player = {
    slot: i, cheat, legacy, prand: profileStream(seed, i), move: createMoveState(p.x, p.y, p.z, p.dirX, p.dirZ), yaw: Math.atan2(p.dirX, p.dirZ), sentYaw: Math.atan2(p.dirX, p.dirZ), clockErrMs: 10 * rng.normal(), wishYaw,
    nextWishMs: 0, baseRttMs, rttMs: baseRttMs, nextRttMs: 0, rtt: new RoundTrip(), pings: 0, interpMs, shooter: createShooterState(i, magazines), health: 100,
    alive: true, epoch: 1, lifeStartMs: 0, lifePending: true, respawnAtMs: 0, lives: 0, seq: 0, target: -1, visibleSinceMs: 0,
    noise: 0, traits, behaviour: legacy ? Behaviour.HONEST : (cheat as Behaviour), strength, engagement: null,
    pitch: 0, sentPitch: 0, pitchNoise: 0, idlePitch: 0, inputs: null as unknown as InputStream,
    moves: { rand: profileStream(seed ^ 0x27d4eb2f, i), fight: -1, strafing: false, side: 1, nextSideMs: 0, nextJumpMs: 0 },
  };
  // The view in height and the input stream draw from streams of their own (the match's draws stay as they were).
  const vrand = profileStream(seed ^ 0x5bd1e995, i);
  if (!legacy) pl.idlePitch = pl.pitch = pl.sentPitch = drawIdlePitch(own ?? vrand);
  const choke = cheat === Behaviour.FAKE_LAG && strength > 0 ? () => strength * (120 + 180 * vrand.next()) : null;
  pl.inputs = new InputStream(vrand, baseRttMs / 2, choke, undefined, own === null ? undefined : drawLink(own));
  return pl;
}

// One ping's bytes and its pong, reused for every player.
const pingBytes = new Uint8Array(PING_BYTES);
const pong = createPingMessage();

/**
 * One ping's round trip for `pl` at `t`, answered to the room's own estimator (RoundTrip: the
 * median of the last samples). A sample moves a little with every ping; a pong stuck behind a
 * retransmission moves it a lot, and so do held-back pongs (fake lag).
 */
export function sampleRoundTrip(pl: Player, t: number): void {
  const spike = pl.prand.next() < 0.03 ? 30 + 120 * pl.prand.next() : 0;
  const held = pl.inputs.heldMs(t);
  const fake = pl.behaviour === Behaviour.FAKE_LAG ? pl.strength * (120 + 180 * pl.prand.next()) : 0;
  const sample = Math.max(1, pl.baseRttMs + pl.traits.rttNoiseMs * pl.prand.normal() + spike + held + fake);
  pong.id = pl.pings++;
  pl.rtt.ping(pingBytes, pong.id, t);
  pl.rtt.pong(pong, t + sample);
  pl.rttMs = pl.rtt.rttMs;
  pl.nextRttMs = t + DEFAULT_PING_INTERVAL_MS;
}
