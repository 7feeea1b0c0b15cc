/**
 * A bot's weapon messages between sending and their verdicts: each one's log (./shots ShotLog) made
 * with its prediction and kept by seq until its verdict comes; the mirrored rules state
 * (shared/client/weaponState) settled by the verdict of a message that moved it, or a second after
 * the link lost it (a client that hears nothing gives up); and the damage each predicted hit will do,
 * counted against its target (`doomed`) until its verdict comes, so a player as good as dead is not
 * engaged.
 */
import type { VerdictReply } from '../shared/protocol/messages';
import { ShotAction } from '../shared/protocol/shot';
import type { WeaponState } from '../shared/client/weaponState';
import { reasonName, VerdictKind, type Verdict } from '../shared/validate/verdict';
import type { MatchView } from './view';
import { predictedPellets, ShotBook, type Intent, type ShotLog } from './shots';

/** Who sends a message and what it knows then (the log's sender fields). */
export interface Sender {
  bot: number;
  roomId: string;
  slot: number;
  profile: string;
  strength: number;
  /** The sender's server clock and round trip at the send. */
  serverMs: number;
  rttMs: number;
  /** The sender believed itself dead, and the own life it knew. */
  deadKnown: boolean;
  epoch: number;
}

export class ShotOutbox {
  readonly book = new ShotBook();
  /** Damage on its way to each slot from predicted hits. */
  readonly doomed: Float64Array;
  /** Logs whose message moved the mirrored rules state (a replayed seq does not). */
  private readonly tracked = new Set<ShotLog>();

  constructor(private readonly view: MatchView, private readonly weapons: WeaponState) {
    this.doomed = new Float64Array(view.maxPlayers);
  }

  /** The log of `payload` (a weapon message's bytes) predicted as `p`, sent at local ms `now`. */
  log(payload: Uint8Array, p: Verdict, from: Sender, intent: Intent, expected: string | null, now: number): ShotLog {
    const dv = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
    const renderTimeMs = dv.getFloat64(24, true);
    return {
      bot: from.bot, roomId: from.roomId, slot: from.slot, profile: from.profile, strength: from.strength,
      intent, expected, action: payload[1]!, weapon: payload[2]!, seq: dv.getUint32(4, true), timeMs: dv.getFloat64(16, true), renderTimeMs,
      sentAt: now, sentServerMs: from.serverMs, rttMs: from.rttMs, dropped: false, bytes: payload,
      deadKnown: from.deadKnown, epochAtSend: from.epoch,
      predictedKind: p.kind, predictedReason: reasonName(p.reason), predictedTarget: p.target, predictedZone: p.zone, predictedDamage: p.damage,
      predictedOriginOffsetM: p.originOffsetM, predictedFired: p.fired, predictedPellets: predictedPellets(p),
      unseen: payload[1] === ShotAction.FIRE ? this.unseenAt(from.slot, renderTimeMs) : [],
      verdict: null, verdictAt: -1, diedInFlight: false, targetDiedInFlight: false, respawnedInFlight: false, floorLeadMs: Number.NaN,
    };
  }

  /**
   * `log`, predicted as `p`, moves the mirrored rules state (`moves`: a new seq the prediction
   * took) and dooms its predicted target; call before the send.
   */
  sending(log: ShotLog, p: Verdict, moves: boolean): void {
    if (moves) {
      this.weapons.sent(log.seq, log.action, log.weapon, log.timeMs, p.fired, p.after);
      this.tracked.add(log);
    }
    if (p.kind === VerdictKind.HIT && p.target >= 0) this.doomed[p.target]! += p.damage;
  }

  /** `log` went out (or the link dropped it: settled a second later): kept for its verdict. */
  sent(log: ShotLog): void {
    this.book.add(log);
    if (log.dropped) {
      setTimeout(() => {
        if (this.tracked.delete(log)) this.weapons.settle(log.seq, null);
        this.undoom(log);
      }, 1000).unref?.();
    }
  }

  /** The verdict `v` arrived at local ms `at`: its log (null when none waits), settled and undoomed. */
  answer(v: VerdictReply, at: number): ShotLog | null {
    const log = this.book.take(v.seq);
    if (log === null) return null;
    log.verdict = v;
    log.verdictAt = at;
    if (this.tracked.delete(log)) this.weapons.settle(log.seq, v);
    this.undoom(log);
    return log;
  }

  /** No damage is on its way to players the view shows dead. */
  clearDead(): void {
    for (let k = 0; k < this.doomed.length; k++) if (!this.view.aliveLatest(k)) this.doomed[k] = 0;
  }

  private undoom(log: ShotLog): void {
    if (log.predictedKind === VerdictKind.HIT && log.predictedTarget >= 0) {
      this.doomed[log.predictedTarget] = Math.max(0, this.doomed[log.predictedTarget]! - log.predictedDamage);
    }
  }

  /** The other slots the view holds no data for at render time `t` (ShotLog.unseen; empty slots too: the state does not tell them apart). */
  private unseenAt(own: number, t: number): number[] {
    const out: number[] = [];
    for (let s = 0; s < this.view.maxPlayers; s++) if (s !== own && !this.view.holdsAt(s, t)) out.push(s);
    return out;
  }
}
