/**
 * How the synthetic players of synthMatch.ts look, turn and pull the trigger: a human model, and
 * rule-abiding but inhuman profiles that each change one part of it by a strength in [0, 1]
 * (0 = the human, 1 = blatant; parameters are interpolated in between).
 *
 * The human (parameters drawn per player, so players differ from each other as people do):
 * - Notices a target in its field of view (50 degrees either side of its heading) and line of
 *   sight, within 60 m, as rendered (half the round trip plus the interpolation delay ago).
 * - Reacts after 140 + lognormal ms (median 215-275 per player, spread 0.45: about 190-350 ms,
 *   with a long tail).
 * - Flicks onto the target in (70 + 2 ms per degree) x U(0.85, 1.15) along a minimum-jerk profile,
 *   overshooting by N(7%, 5%) of the angle, then pursues it with a first-order lag (time constant
 *   80-130 ms per player) plus hand noise (an Ornstein-Uhlenbeck wobble of 0.8-1.5 degrees, 120 ms).
 * - Pulls the trigger once its view has been on the target's body (its silhouette, as the audit
 *   reads it: 0.3 m either side of the root, feet to head top; server/behaviour/motion.ts viewOnBody)
 *   for a confirmation delay (60 + lognormal, median 130 ms); leaving the body starts the
 *   confirmation again. Then it taps beyond 25 m (220-450 ms apart), fires bursts of 3-5
 *   at the full rate from 10 to 25 m, sprays at the full rate closer, while it keeps walking.
 * - Dodges in fights as the simulator's bots do (synthPlayer.ts fightWish): side steps across its
 *   view in six fights of ten, switching side every 0.3-1 s, and jumps (0.5 a second in a fight,
 *   0.1 out of one); otherwise walks where it wanders.
 * - Looks where it walks when it has no target (turning at up to 150 degrees/s), a little below
 *   the horizon (1-6 degrees per player), with the same hand wobble.
 * - Pitch moves with yaw: the flick, the overshoot, the pursuit lag and the wobble (0.7 x) apply to
 *   both; the crosshair must be on the body in height as well as across it.
 * - Plays 20-250 ms of round trip from the server (most under 100) and renders 40-100 ms plus a
 *   quarter of that behind the server (its interpolation delay, declared at join), as long as its
 *   rewinds stay inside the window.
 * - Its client sends one input per frame (50-160 frames per second per player); each arrives half
 *   a round trip plus |N(0, 0.5-4.5 ms)| later, in order (one TCP stream). Its link loses a share
 *   of its segments (0-2% per player, half of them under 0.5%): a lost one is sent again after the
 *   retransmission timeout (at least 200 ms, doubling when lost again) and everything behind it
 *   waits and arrives at once; 0.2 times a second the client itself hitches for 30-150 ms.
 * - Its client's estimate of the server clock is off by N(0, 10 ms) (its render times with it). The
 *   server's round-trip estimate is the median of its last 9 samples, one every 250 ms, as the
 *   room's; a sample is the round trip plus N(0, 2-40 ms per player, most under 12), plus a 30-150
 *   ms spike 3% of the time, plus what the pong waited behind a retransmission; its heading reaches
 *   the log one tick after its view (the room applies the input that arrived before the tick).
 *
 * Profiles (what the audit sees of each is in docs/audit.md):
 * - silentAim: the shot's direction is pulled from the view toward the aim point by s, and it
 *   fires once that pulled direction is on target; reaction x (1 - 0.6 s).
 * - flick: reaction toward 35 ms, flick time toward one tick, no overshoot, no confirmation delay.
 * - triggerbot: the view stays human; fires the instant the view is on the body (confirmation
 *   delay x (1 - s)), mid-flick included.
 * - aimLock: pursuit lag and hand noise x (1 - s): the view sits on the target through movement.
 * - edgeBacktrack: declares a longer interpolation delay and claims render times up to 50 ms older
 *   than its estimate (inside the claim tolerance), so shots rewind toward the window's edge.
 * - fakeLag: holds its pongs and inputs back: the server's round-trip estimate rises by
 *   s x (120-300 ms) and changes every half second; its render times follow, rewinding deep; its
 *   inputs are choked for s x (120-300 ms) at a time and released together, over and over.
 * - prefire: knows where hidden players are: with no target in sight its view (heading and
 *   pitch) turns toward the nearest hidden one (by s), and it fires as soon as that player comes
 *   into sight (reaction and confirmation x (1 - s)).
 */
import { mulberry32 } from '../../../shared/util/prng';

export const Behaviour = {
  HONEST: 'honest',
  SILENT_AIM: 'silentAim',
  FLICK: 'flick',
  TRIGGERBOT: 'triggerbot',
  AIM_LOCK: 'aimLock',
  EDGE_BACKTRACK: 'edgeBacktrack',
  FAKE_LAG: 'fakeLag',
  PREFIRE: 'prefire',
} as const;
export type Behaviour = (typeof Behaviour)[keyof typeof Behaviour];

/** The rule-breaking caricatures (judged by the rules), beside the Behaviour profiles. */
export const CheatKind = { HONEST: 'honest', AIMBOT: 'aimbot', WALLHACK: 'wallhack', BACKTRACK: 'backtrack' } as const;
export type CheatKind = (typeof CheatKind)[keyof typeof CheatKind] | Behaviour;

/** The rule-abiding inhuman profiles, in report order. */
export const INHUMAN_PROFILES: readonly Behaviour[] = [
  Behaviour.SILENT_AIM, Behaviour.FLICK, Behaviour.TRIGGERBOT, Behaviour.AIM_LOCK, Behaviour.EDGE_BACKTRACK, Behaviour.FAKE_LAG, Behaviour.PREFIRE,
];

/** One player's human make-up. */
export interface HumanTraits {
  reactionMedianMs: number;
  pursuitTauMs: number;
  noiseRad: number;
  headAimP: number;
  /** How much the server's round-trip estimate of this player wanders, ms (its connection's quality). */
  rttNoiseMs: number;
}

export const DEG = Math.PI / 180;
/** Half the horizontal field of view a player notices targets in, radians. */
export const FOV_HALF = 50 * DEG;
export const NOTICE_RANGE_M = 60;
/** A target out of sight this long is given up, ms. */
export const LOSE_AFTER_MS = 400;

type Rand = () => number;

export function normal(rand: Rand): number {
  const u = 1 - rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

export function drawTraits(rand: Rand): HumanTraits {
  return {
    reactionMedianMs: 215 + 60 * rand(),
    pursuitTauMs: 80 + 50 * rand(),
    noiseRad: (0.8 + 0.7 * rand()) * DEG,
    headAimP: 0.08 + 0.1 * rand(),
    rttNoiseMs: 2 + 38 * rand() ** 2,
  };
}

/** A reaction time: 140 ms plus a lognormal part whose median puts the whole at the player's median. */
export function drawReaction(t: HumanTraits, rand: Rand): number {
  return 140 + (t.reactionMedianMs - 140) * Math.exp(0.45 * normal(rand));
}

/** Time the view rests on the target before the first trigger pull, ms. */
export function drawConfirm(rand: Rand): number {
  return 60 + 70 * Math.exp(0.5 * normal(rand));
}

/** Minimum-jerk position profile, 0..1 over u in 0..1. */
export function minJerk(u: number): number {
  const x = Math.max(0, Math.min(1, u));
  return x * x * x * (10 - 15 * x + 6 * x * x);
}

/** Wraps an angle difference into (-pi, pi]. */
export function wrap(a: number): number {
  return Math.atan2(Math.sin(a), Math.cos(a));
}

export const lerp = (a: number, b: number, s: number) => a + (b - a) * s;

/** Per-player aim state: the engagement with one target. */
export interface Engagement {
  target: number;
  /** When the target was first noticed, and last seen, ms. */
  noticedMs: number;
  seenMs: number;
  /** When the flick starts (the reaction ends), and its plan. */
  reactAtMs: number;
  flickStartMs: number;
  flickMs: number;
  flickFrom: number;
  flickBy: number;
  /** 'react' | 'flick' | 'track'. */
  phase: number;
  /** The flick's pitch plan, radians. */
  pitchFrom: number;
  pitchBy: number;
  /** When the view came onto the body (NaN: not on it), and the confirmation delay. */
  onSinceMs: number;
  confirmMs: number;
  /** Shots fired in this engagement, shots left in the current burst, next allowed trigger time. */
  shots: number;
  burstLeft: number;
  nextTriggerMs: number;
}

export const Phase = { REACT: 0, FLICK: 1, TRACK: 2 } as const;

export function newEngagement(target: number, nowMs: number, reactionMs: number, confirmMs: number): Engagement {
  return {
    target, noticedMs: nowMs, seenMs: nowMs, reactAtMs: nowMs + reactionMs, flickStartMs: NaN, flickMs: 0, flickFrom: 0, flickBy: 0, pitchFrom: 0, pitchBy: 0,
    phase: Phase.REACT, onSinceMs: NaN, confirmMs, shots: 0, burstLeft: 0, nextTriggerMs: -Infinity,
  };
}

/** The gap before the next trigger pull for a target at `dist` m (taps, bursts, spray), and the burst length. */
export function cadence(dist: number, fireIntervalMs: number, rand: Rand, e: Engagement): number {
  if (dist > 25) return 220 + 230 * rand();
  if (dist > 10) {
    if (e.burstLeft > 0) { e.burstLeft--; return fireIntervalMs; }
    e.burstLeft = 2 + Math.floor(3 * rand());
    return 200 + 200 * rand();
  }
  return fireIntervalMs;
}

/** A seeded stream for a profile's own draws (so a profile's randomness never shifts the match's). */
export function profileStream(seed: number, slot: number): Rand {
  return mulberry32((Math.imul(seed, 0x9e3779b1) ^ Math.imul(slot + 1, 0x85ebca6b)) >>> 0);
}

/** What stepView needs of the player and what it changes: its heading and aim state. */
export interface ViewState {
  yaw: number;
  /** Up from the horizon, radians. */
  pitch: number;
  /** Hand noise (Ornstein-Uhlenbeck) across and in height, radians. */
  noise: number;
  pitchNoise: number;
  traits: HumanTraits;
  behaviour: Behaviour;
  strength: number;
  engagement: Engagement | null;
}

/** Vertical hand wobble relative to the horizontal one. */
const PITCH_NOISE = 0.7;

/**
 * One tick of the view: react, flick, then pursue the target at (`targetYaw`, `targetPitch`) (NaN:
 * no target, look toward (`idleYaw`, `idlePitch`) at up to 150 degrees/s). dt in ms.
 */
export function stepView(v: ViewState, nowMs: number, dtMs: number, targetYaw: number, targetPitch: number, idleYaw: number, idlePitch: number, rand: Rand): void {
  const s = v.behaviour === Behaviour.HONEST ? 0 : v.strength;
  const t = v.traits;
  const noiseScale = v.behaviour === Behaviour.AIM_LOCK ? 1 - s : 1;
  const kick = t.noiseRad * noiseScale * Math.sqrt((2 * dtMs) / 120);
  v.noise += (-v.noise * dtMs) / 120 + kick * normal(rand);
  v.pitchNoise += (-v.pitchNoise * dtMs) / 120 + PITCH_NOISE * kick * normal(rand);
  const e = v.engagement;
  if (e === null || targetYaw !== targetYaw || e.phase === Phase.REACT) {
    if (e !== null && e.phase === Phase.REACT && nowMs >= e.reactAtMs && targetYaw === targetYaw) {
      // The reaction is over: plan the flick from here to the target (overshooting as people do).
      const flick = v.behaviour === Behaviour.FLICK ? s : 0;
      const angle = wrap(targetYaw - v.yaw);
      const over = (0.07 + 0.05 * normal(rand)) * (1 - flick);
      e.flickFrom = v.yaw;
      e.flickBy = angle * (1 + over);
      e.pitchFrom = v.pitch;
      e.pitchBy = (targetPitch - v.pitch) * (1 + over);
      const span = Math.max(Math.abs(angle), Math.abs(targetPitch - v.pitch));
      e.flickMs = lerp((70 + (2 * span) / DEG) * (0.85 + 0.3 * rand()), dtMs, flick);
      e.flickStartMs = nowMs;
      e.phase = Phase.FLICK;
    } else {
      // Idle: toward where it walks, with the hand's wobble.
      const max = 150 * DEG * (dtMs / 1000);
      const d = wrap(idleYaw + v.noise - v.yaw);
      v.yaw = wrap(v.yaw + Math.max(-max, Math.min(max, d)));
      const dp = idlePitch + v.pitchNoise - v.pitch;
      v.pitch += Math.max(-max, Math.min(max, dp));
      return;
    }
  }
  if (e.phase === Phase.FLICK) {
    const u = (nowMs - e.flickStartMs) / e.flickMs;
    const m = minJerk(u);
    v.yaw = wrap(e.flickFrom + e.flickBy * m);
    v.pitch = e.pitchFrom + e.pitchBy * m;
    if (u >= 1) e.phase = Phase.TRACK;
    return;
  }
  // Pursuit: a first-order lag behind the target, plus the hand's wobble.
  const tau = v.behaviour === Behaviour.AIM_LOCK ? Math.max(1e-3, t.pursuitTauMs * (1 - s)) : t.pursuitTauMs;
  const k = 1 - Math.exp(-dtMs / tau);
  v.yaw = wrap(v.yaw + wrap(targetYaw + v.noise - v.yaw) * k);
  v.pitch += (targetPitch + v.pitchNoise - v.pitch) * k;
}

/**
 * A client's input stream as the server receives it: one input per frame, in order (one TCP
 * stream), each half a round trip plus a little jitter after it was sent. A lost segment waits for
 * its retransmission timeout (RFC 6298: the round trip plus four times its variation, at least 200
 * ms; doubled each time it is lost again) and holds back everything sent behind it, which then
 * arrives at once; now and then the client hitches and what it sent meanwhile arrives together. A
 * fake-lag client chokes its inputs for `chokeMs()` at a time and releases them together.
 * `take(t)` counts the inputs that arrived by t.
 */
export class InputStream {
  private sendMs: number;
  private arriveMs = -Infinity;
  private stallEndMs = -Infinity;
  private chokeEndMs = -Infinity;
  private readonly frameMs: number;
  private readonly jitterMs: number;
  /** Share of this link's segments lost, and its retransmission timeout, ms. */
  private readonly loss: number;
  private readonly rtoMs: number;

  constructor(private readonly rand: Rand, private readonly oneWayMs: number, private readonly chokeMs: (() => number) | null, loss?: number) {
    this.frameMs = 1000 / (50 + 110 * rand());
    this.jitterMs = 0.5 + 4 * rand();
    this.sendMs = this.frameMs * rand();
    const u = rand();
    this.loss = loss ?? 0.02 * u * u;
    this.rtoMs = Math.max(200, 2 * oneWayMs + 4 * this.jitterMs);
    this.next();
  }

  /** Plans the arrival of the frame sent at sendMs. */
  private next(): void {
    const send = this.sendMs;
    let a = send + this.oneWayMs + Math.abs(normal(this.rand)) * this.jitterMs;
    // Lost: resent after the timeout, which doubles each time the resend is lost too.
    for (let rto = this.rtoMs; this.rand() < this.loss && rto <= 60_000; rto *= 2) a += rto;
    if (this.chokeMs !== null) {
      if (send >= this.chokeEndMs) this.chokeEndMs = send + this.chokeMs();
      a = Math.max(a, this.chokeEndMs + this.oneWayMs);
    } else if (send >= this.stallEndMs - this.oneWayMs && this.rand() < 0.2 * this.frameMs / 1000) {
      this.stallEndMs = send + this.oneWayMs + 30 + 120 * this.rand();
    }
    a = Math.max(a, this.stallEndMs, this.arriveMs);
    this.arriveMs = a;
  }

  /**
   * How much later than its one-way delay a message sent at `t` (after take(t)) arrives: the wait
   * behind a retransmission or a hitch the stream is in (a pong waits there too).
   */
  heldMs(t: number): number {
    return Math.max(0, this.arriveMs - t - this.oneWayMs);
  }

  /** Inputs that arrived at or before `t` and were not counted yet. */
  take(t: number): number {
    let n = 0;
    while (this.arriveMs <= t) {
      n++;
      this.sendMs += this.frameMs;
      this.next();
    }
    return n;
  }
}
