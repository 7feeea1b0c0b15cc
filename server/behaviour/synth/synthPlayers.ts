/**
 * How the synthetic players of synthMatch.ts look, turn and pull the trigger: the one human model
 * (client-sim/human/: traits, reaction and confirmation delays, the hand, the trigger finger, the
 * dodging; the same model the simulator's bots play), and the rule-abiding inhuman profiles
 * (client-sim/human/profiles.ts) that each change one part of it by a strength in [0, 1]
 * (0 = the human, 1 = blatant; parameters are interpolated in between).
 *
 * What the synthetic human does with the model:
 * - Notices a target in its field of view and line of sight, within the notice range, as rendered
 *   (half the round trip plus the interpolation delay ago).
 * - Reacts after its reaction time, flicks onto the target (minimum-jerk, overshooting), then
 *   pursues it with a first-order lag plus the hand's wobble; pitch moves with yaw (the wobble at
 *   0.7 x), so the crosshair must be on the body in height as well as across it.
 * - Pulls the trigger once its view has been on the target's body (its silhouette, as the audit
 *   reads it: 0.3 m either side of the root, feet to head top; server/behaviour/motion.ts viewOnBody)
 *   for the confirmation delay; leaving the body starts the confirmation again. Then taps, bursts
 *   and sprays by the horizontal distance, while it keeps walking and dodging (synthPlayer.ts).
 * - Looks where it walks when it has no target, a little below the horizon, with the same wobble.
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
 *   room's; a sample is the round trip plus N(0, the player's rttNoiseMs), plus a 30-150 ms spike
 *   3% of the time, plus what the pong waited behind a retransmission; its heading reaches the log
 *   one tick after its view (the room applies the input that arrived before the tick).
 *
 * Profiles (what the audit sees of each is in server/behaviour/README.md):
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
import { Rng } from '../../../client-sim/rng';
import { Behaviour } from '../../../client-sim/human/profiles';
import { drawConfirm, drawReaction, type HumanTraits } from '../../../client-sim/human/traits';
import { drawFlickMs, drawOvershoot, IDLE_TURN_RATE, minJerk, PITCH_WOBBLE, pursuitGain, wobbleKick, wobbleStep } from '../../../client-sim/human/hand';
import { drawBurstFollowUps, drawBurstPauseMs, drawTapGapMs, TriggerMode, triggerMode } from '../../../client-sim/human/trigger';

export { Behaviour, INHUMAN_PROFILES } from '../../../client-sim/human/profiles';

/** The rule-breaking caricatures (judged by the rules), beside the Behaviour profiles. */
export const CheatKind = { HONEST: 'honest', AIMBOT: 'aimbot', WALLHACK: 'wallhack', BACKTRACK: 'backtrack' } as const;
export type CheatKind = (typeof CheatKind)[keyof typeof CheatKind] | Behaviour;

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
  /** The flick's overshoot, a share of its angle (0 until the flick is planned). */
  overshoot: number;
  /** Shots fired in this engagement, shots left in the current burst, next allowed trigger time. */
  shots: number;
  burstLeft: number;
  nextTriggerMs: number;
}

export const Phase = { REACT: 0, FLICK: 1, TRACK: 2 } as const;

export function newEngagement(target: number, nowMs: number, reactionMs: number, confirmMs: number): Engagement {
  return {
    target, noticedMs: nowMs, seenMs: nowMs, reactAtMs: nowMs + reactionMs, flickStartMs: NaN, flickMs: 0, flickFrom: 0, flickBy: 0, pitchFrom: 0, pitchBy: 0,
    phase: Phase.REACT, onSinceMs: NaN, confirmMs, overshoot: 0, shots: 0, burstLeft: 0, nextTriggerMs: -Infinity,
  };
}

/**
 * A new engagement of `target` at `nowMs`: the human's reaction time and confirmation delay (drawn
 * in that order from `rng`), shortened as the player's profile does.
 */
export function engageTarget(v: ViewState, target: number, nowMs: number, rng: Rng): Engagement {
  const s = v.behaviour === Behaviour.HONEST ? 0 : v.strength;
  let reaction = drawReaction(v.traits, rng);
  let confirm = drawConfirm(rng);
  if (v.behaviour === Behaviour.FLICK) { reaction = lerp(reaction, 35, s); confirm *= 1 - s; }
  else if (v.behaviour === Behaviour.SILENT_AIM) reaction *= 1 - 0.6 * s;
  else if (v.behaviour === Behaviour.TRIGGERBOT) confirm *= 1 - s;
  else if (v.behaviour === Behaviour.PREFIRE) { reaction *= 1 - s; confirm *= 1 - s; }
  return newEngagement(target, nowMs, reaction, confirm);
}

/**
 * The gap before the next trigger pull for a target at `dist` m (taps, bursts, spray: the model's
 * trigger finger, client-sim/human/trigger.ts), and the burst length.
 */
export function cadence(dist: number, fireIntervalMs: number, rng: Rng, e: Engagement): number {
  const mode = triggerMode(dist);
  if (mode === TriggerMode.TAP) return drawTapGapMs(rng);
  if (mode === TriggerMode.BURST) {
    if (e.burstLeft > 0) { e.burstLeft--; return fireIntervalMs; }
    e.burstLeft = drawBurstFollowUps(rng);
    return drawBurstPauseMs(rng);
  }
  return fireIntervalMs;
}

/** A seeded stream for a profile's own draws (so a profile's randomness never shifts the match's). */
export function profileStream(seed: number, slot: number): Rng {
  return Rng.derive(seed, slot);
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

/**
 * One tick of the view: react, flick, then pursue the target at (`targetYaw`, `targetPitch`) (NaN:
 * no target, look toward (`idleYaw`, `idlePitch`) at up to 150 degrees/s). dt in ms.
 */
export function stepView(v: ViewState, nowMs: number, dtMs: number, targetYaw: number, targetPitch: number, idleYaw: number, idlePitch: number, rng: Rng): void {
  const s = v.behaviour === Behaviour.HONEST ? 0 : v.strength;
  const t = v.traits;
  const noiseScale = v.behaviour === Behaviour.AIM_LOCK ? 1 - s : 1;
  const kick = wobbleKick(t.noiseRad * noiseScale, dtMs);
  v.noise = wobbleStep(v.noise, kick, dtMs, rng);
  v.pitchNoise = wobbleStep(v.pitchNoise, PITCH_WOBBLE * kick, dtMs, rng);
  const e = v.engagement;
  if (e === null || targetYaw !== targetYaw || e.phase === Phase.REACT) {
    if (e !== null && e.phase === Phase.REACT && nowMs >= e.reactAtMs && targetYaw === targetYaw) {
      // The reaction is over: plan the flick from here to the target (overshooting as people do).
      const flick = v.behaviour === Behaviour.FLICK ? s : 0;
      const angle = wrap(targetYaw - v.yaw);
      const over = drawOvershoot(rng) * (1 - flick);
      e.overshoot = over;
      e.flickFrom = v.yaw;
      e.flickBy = angle * (1 + over);
      e.pitchFrom = v.pitch;
      e.pitchBy = (targetPitch - v.pitch) * (1 + over);
      const span = Math.max(Math.abs(angle), Math.abs(targetPitch - v.pitch));
      e.flickMs = lerp(drawFlickMs(span, rng), dtMs, flick);
      e.flickStartMs = nowMs;
      e.phase = Phase.FLICK;
    } else {
      // Idle: toward where it walks, with the hand's wobble.
      const max = IDLE_TURN_RATE * (dtMs / 1000);
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
  const k = pursuitGain(dtMs, tau);
  v.yaw = wrap(v.yaw + wrap(targetYaw + v.noise - v.yaw) * k);
  v.pitch += (targetPitch + v.pitchNoise - v.pitch) * k;
}

/** What a client's input stream keeps from match to match: its frame interval, jitter (ms) and loss share. */
export interface InputLink {
  frameMs: number;
  jitterMs: number;
  loss: number;
}

/** A client's input link drawn as InputStream draws its own (50-160 frames per second, 0.5-4.5 ms of jitter, 0-2% loss). */
export function drawLink(rng: Rng): InputLink {
  const frameMs = 1000 / (50 + 110 * rng.next());
  const jitterMs = 0.5 + 4 * rng.next();
  const u = rng.next();
  return { frameMs, jitterMs, loss: 0.02 * u * u };
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

  /** `link`: the client's frame rate, jitter and loss drawn elsewhere (a person's, drawLink); else drawn here from `rng`. */
  constructor(private readonly rng: Rng, private readonly oneWayMs: number, private readonly chokeMs: (() => number) | null, loss?: number, link?: InputLink) {
    const own = link === undefined;
    this.frameMs = own ? 1000 / (50 + 110 * rng.next()) : link.frameMs;
    this.jitterMs = own ? 0.5 + 4 * rng.next() : link.jitterMs;
    this.sendMs = this.frameMs * rng.next();
    const u = own ? rng.next() : 0;
    this.loss = loss ?? (own ? 0.02 * u * u : link.loss);
    this.rtoMs = Math.max(200, 2 * oneWayMs + 4 * this.jitterMs);
    this.next();
  }

  /** Plans the arrival of the frame sent at sendMs. */
  private next(): void {
    const send = this.sendMs;
    let a = send + this.oneWayMs + Math.abs(this.rng.normal()) * this.jitterMs;
    // Lost: resent after the timeout, which doubles each time the resend is lost too.
    for (let rto = this.rtoMs; this.rng.next() < this.loss && rto <= 60_000; rto *= 2) a += rto;
    if (this.chokeMs !== null) {
      if (send >= this.chokeEndMs) this.chokeEndMs = send + this.chokeMs();
      a = Math.max(a, this.chokeEndMs + this.oneWayMs);
    } else if (send >= this.stallEndMs - this.oneWayMs && this.rng.next() < 0.2 * this.frameMs / 1000) {
      this.stallEndMs = send + this.oneWayMs + 30 + 120 * this.rng.next();
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
