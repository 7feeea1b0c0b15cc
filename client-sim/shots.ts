/**
 * Shot logging and prediction: every weapon message a bot sends (fire, switch, reload) is first
 * predicted with the shared validateShot against the bot's own view and its own rules state
 * (shared/client: ShotPredictor, WeaponState), then logged with its prediction and kept by sequence number until the
 * server's verdict for the same number comes back. The logs are the simulator's ground truth for
 * the report (report.ts): what each message was meant to be (Intent, and for a rule-breaking cheat
 * the reason the server should give), what the bot predicted, what the server said.
 */
import type { VerdictReply } from '../shared/protocol/messages';
import { ShotAction, type ShotMessage } from '../shared/protocol/shot';
import { createWorldHit, type World } from '../shared/world/world';
import type { Verdict } from '../shared/validate/verdict';

/** What a message was meant to be, for the report. */
export const Intent = {
  /** An honest player's message: must be accepted, and the prediction must agree. */
  HONEST: 'honest',
  /** A cheater's ordinary message (between cheats): valid, not counted as honest. */
  VALID: 'valid',
  /** A rule-breaking cheat the server must refuse (ShotLog.expected names how). */
  INVALID: 'invalid',
  /** Rule-abiding but inhuman (aim, timing, knowledge): the server accepts it; the audit must flag the player. */
  INHUMAN: 'inhuman',
} as const;
export type Intent = (typeof Intent)[keyof typeof Intent];

/**
 * Expected outcome of a cheat that the server overrules rather than rejects: its claimed render
 * time is replaced by the server's estimate (or clamped), so the old pose it aimed at is not hit.
 */
export const OVERRULED = 'OVERRULED';

/** One weapon message as the bot saw it: its prediction and, once it arrives, the server's verdict. */
export interface ShotLog {
  bot: number;
  /** Room and slot it was sent from. */
  roomId: string;
  slot: number;
  profile: string;
  /** The profile's strength (0..1); 0 for honest players. */
  strength: number;
  intent: Intent;
  /** INVALID: the verdict reason the cheat should be refused with (or OVERRULED). */
  expected: string | null;
  action: number;
  weapon: number;
  seq: number;
  /** Claimed action time and render time, server ms. */
  timeMs: number;
  renderTimeMs: number;
  /** Local ms when the message was handed to the link. */
  sentAt: number;
  /** The bot's server clock at sending, and the round trip it assumed, ms. */
  sentServerMs: number;
  rttMs: number;
  /** The link lost it (no verdict will come). */
  dropped: boolean;
  /** The payload as sent (the replay cheat resends it; the audit test finds slots by it). */
  bytes: Uint8Array;
  /** The bot knew it was dead when it sent this. */
  deadKnown: boolean;
  /** The own life (epoch) the bot knew at sending. */
  epochAtSend: number;
  predictedKind: number;
  predictedReason: string;
  predictedTarget: number;
  predictedZone: number;
  predictedDamage: number;
  predictedOriginOffsetM: number;
  /** The prediction carried the action out. */
  predictedFired: boolean;
  /**
   * Each pellet's predicted reason and first player met (reason, target pairs), when the verdict
   * reply will carry pellets (a pull of several, or a single one that passed a wall); else null.
   */
  predictedPellets: Int32Array | null;
  verdict: VerdictReply | null;
  verdictAt: number;
  /** Race facts, set by the simulator from the server's record of the arrival (see simulate.ts). */
  /**
   * A fire: the other slots its view held no data for at the render time (absent from its newest
   * state, as a player the server's fog of war withholds or an empty slot, or back only later). The
   * prediction cannot hit them; the server, judging with its whole history, may.
   */
  unseen: number[];
  diedInFlight: boolean;
  targetDiedInFlight: boolean;
  respawnedInFlight: boolean;
  /** In-process: how far its stream's floor at arrival lay ahead of its claimed time, ms (NaN: unknown). */
  floorLeadMs: number;
  /**
   * In-process, when the server's own verdict differs from the reply in kind or reason (fog of war
   * reads a refusal about a withheld player as a miss to the shooter): the reply with the server's.
   */
  serverVerdict?: VerdictReply;
  /** A launch: where the shooter predicted its projectile would end, and where the server's did (launches.ts). */
  impactPredicted?: ProjectileImpact;
  impactServer?: ProjectileImpact;
  /** The predicted end was replaced by a flight re-flown from the server's start (the verdict came after the first end). */
  impactReflown?: boolean;
}

/** How a projectile's flight ended: FlightEventKind, the centre, the player it struck (-1), the players its blast damaged (sorted). */
export interface ProjectileImpact {
  kind: number;
  x: number; y: number; z: number;
  player: number;
  victims: number[];
}

const fillHit = createWorldHit();

/**
 * Fills `m` with a shot from `eye` toward the point, `length` metres long, claimed at action time
 * `timeMs` with render time `renderTimeMs`. With a world (honest clients) the segment stops where
 * the bullet meets it, a few centimetres into the surface so the server finds the same impact for
 * the bullet hole; with null it runs its full length through whatever is in the way. seq 0: the
 * sender takes the next one. Returns m.
 */
export function fillFire(m: ShotMessage, world: World | null, eye: Float64Array, px: number, py: number, pz: number, length: number, renderTimeMs: number, timeMs: number, weapon: number, claimedTarget = -1): ShotMessage {
  const dx = px - eye[0]!, dy = py - eye[1]!, dz = pz - eye[2]!;
  const l = Math.sqrt(dx * dx + dy * dy + dz * dz) || 1;
  const ux = dx / l, uy = dy / l, uz = dz / l;
  let len = length;
  if (world !== null && world.firstHit(fillHit, eye[0]!, eye[1]!, eye[2]!, eye[0]! + ux * length, eye[1]! + uy * length, eye[2]! + uz * length)) {
    len = Math.min(length, fillHit.t * length + 0.05);
  }
  m.action = ShotAction.FIRE;
  m.weapon = weapon;
  m.claimedTarget = claimedTarget;
  m.seq = 0;
  m.timeMs = timeMs;
  m.renderTimeMs = renderTimeMs;
  m.sx = eye[0]!; m.sy = eye[1]!; m.sz = eye[2]!;
  m.ex = eye[0]! + ux * len; m.ey = eye[1]! + uy * len; m.ez = eye[2]! + uz * len;
  m.pelletCount = 0;
  return m;
}

/** Fills `m` with a switch (to `weapon`) or a reload (of `weapon`, the equipped one) at action time `timeMs`. */
export function fillAction(m: ShotMessage, action: number, weapon: number, timeMs: number): ShotMessage {
  m.action = action;
  m.weapon = weapon;
  m.claimedTarget = 0;
  m.seq = 0;
  m.timeMs = timeMs;
  m.renderTimeMs = 0;
  m.sx = 0; m.sy = 0; m.sz = 0; m.ex = 0; m.ey = 0; m.ez = 0;
  m.pelletCount = 0;
  return m;
}

/** Logs by seq until their verdicts arrive (a replayed seq may have several, in send order). */
export class ShotBook {
  readonly logs: ShotLog[] = [];
  private readonly pending = new Map<number, ShotLog[]>();

  add(log: ShotLog): void {
    this.logs.push(log);
    if (log.dropped) return;
    const list = this.pending.get(log.seq);
    if (list === undefined) this.pending.set(log.seq, [log]);
    else list.push(log);
  }

  /** The log a verdict answers (the oldest pending one of its seq), or null. */
  take(seq: number): ShotLog | null {
    const list = this.pending.get(seq);
    const log = list?.shift();
    if (list !== undefined && list.length === 0) this.pending.delete(seq);
    return log ?? null;
  }

  /** Messages sent whose verdict never came (lost, or still in flight when the run ended). */
  unresolved(): number {
    let n = 0;
    for (const s of this.logs) if (s.verdict === null) n++;
    return n;
  }
}

/**
 * A prediction's pellets as the reply will carry them (server/match/outcome.ts verdictReply: a pull
 * of several pellets, or one that passed a wall): reason and first player met per pellet; null when
 * the reply carries none.
 */
export function predictedPellets(v: Verdict): Int32Array | null {
  const p = v.pellets;
  if (!(p.count > 1 || (p.count === 1 && p.walls[0]! > 0))) return null;
  const out = new Int32Array(2 * p.count);
  for (let k = 0; k < p.count; k++) {
    out[2 * k] = p.reason[k]!;
    out[2 * k + 1] = p.target[k]!;
  }
  return out;
}

/** Whether a reply's pellets say what the prediction said of each (both absent counts as agreeing). */
export function pelletsAgree(predicted: Int32Array | null, reply: VerdictReply): boolean {
  const got = reply.pellets;
  if (predicted === null || got === undefined) return predicted === null && got === undefined;
  if (got.length * 2 !== predicted.length) return false;
  for (let k = 0; k < got.length; k++) {
    if (got[k]!.reason !== predicted[2 * k] || got[k]!.target !== predicted[2 * k + 1]) return false;
  }
  return true;
}
