/**
 * The arena room's message handlers (room.ts registers them in its message table): inputs queued for
 * the tick, pings sent and pongs closing round trips, and weapon messages judged once the inputs sent
 * before them are stepped (waitingShots.ts). Hostile input: every handler runs inside guard, so
 * nothing escapes; a refused message changes nothing and gets a reason back (a `verdict` for weapon
 * messages, a `reject` otherwise), rejects are counted by reason, and a client over its budget of
 * refused messages gets nothing judged (budget.ts).
 */
import type { Client } from '@colyseus/core';
import { deadMovesUntilMs, decodeInput, createInputMessage, InputStatus, Msg, reasonName, VerdictKind, type InputMessage, type RejectReply } from '../../shared/index';
import { applyOutcome, type OutcomeHost } from './applyOutcome';
import { chargeRefusal } from './budget';
import type { ArenaPlayer } from './player';
import { WaitingShots } from './waitingShots';

/** What the handlers need of the room. */
export interface MessageHost extends OutcomeHost {
  /** Room ms now (the match's clock). */
  now(): number;
  /** The arena player of a session. */
  player(sessionId: string): ArenaPlayer | undefined;
}

export class ArenaMessages {
  private readonly waiting = new WaitingShots();
  private readonly inputScratch: InputMessage = createInputMessage();

  constructor(private readonly room: MessageHost) {}

  /** Weapon messages waiting for their inputs. */
  get shotsWaiting(): number {
    return this.waiting.length;
  }

  /**
   * Runs a handler so that nothing escapes: an exception is counted, logged and answered. A client
   * over its budget of refused messages gets nothing judged (budget.ts).
   */
  guard(client: Client, type: string, fn: () => void): void {
    const p = this.room.player(client.sessionId);
    if (p !== undefined && p.kicked) return; // disconnected by the room: whatever still arrives is ignored
    if (p !== undefined && !p.budget.admit(this.room.now())) {
      this.room.cfg.stats.throttled++;
      return;
    }
    try {
      fn();
    } catch (e) {
      this.room.cfg.stats.internalErrors++;
      console.error(`arena: handler for "${type}" failed:`, e);
      try {
        this.reject(client, type, 'INTERNAL_ERROR');
      } catch {
        // the client may be gone; nothing else to do
      }
    }
  }

  reject(client: Client, type: string, reason: string): void {
    const stats = this.room.cfg.stats;
    stats.rejects[reason] = (stats.rejects[reason] ?? 0) + 1;
    this.refused(client, reason);
    const reply: RejectReply = { type: type.slice(0, 32), reason };
    client.send(Msg.REJECT, reply);
  }

  /** A judged message was refused: it costs the client's budget and feeds its hostile-event line. */
  private refused(client: Client, reason: string): void {
    const p = this.room.player(client.sessionId);
    if (p !== undefined) chargeRefusal(p, reason, this.room.now());
  }

  handleInput(client: Client, bytes: unknown): void {
    const p = this.room.player(client.sessionId);
    if (p === undefined) return;
    const match = this.room.match;
    const scratch = this.inputScratch;
    const status = decodeInput(scratch, bytes);
    if (status !== InputStatus.OK) {
      this.reject(client, Msg.INPUT, `INPUT_${inputStatusName(status)}`);
      return;
    }
    if (scratch.seq <= p.lastInputSeq) {
      this.reject(client, Msg.INPUT, 'INPUT_STALE');
      return;
    }
    // A stamped input states a time on the client's stream: not before what it already stated.
    const why = scratch.timeMs > 0 ? match.stamp(p.sessionId, scratch.timeMs) : null;
    if (why !== null) {
      this.reject(client, Msg.INPUT, `INPUT_${why}`);
      return;
    }
    const h = match.player(p.sessionId);
    const alive = h?.alive === true;
    p.takeInput(scratch, alive, alive || h === undefined ? Number.NEGATIVE_INFINITY : deadMovesUntilMs(match.rules, h.diedAtMs));
  }

  sendPings(): void {
    for (const p of this.room.seats) if (p !== null && p.client !== null && p.connected) this.sendPing(p);
  }

  sendPing(p: ArenaPlayer): void {
    const bytes = this.room.match.ping(p.sessionId);
    if (bytes !== null) p.client?.sendBytes(Msg.PING, bytes);
  }

  handlePong(client: Client, bytes: unknown): void {
    if (this.room.player(client.sessionId) === undefined) return;
    const problem = this.room.match.pong(client.sessionId, bytes);
    if (problem !== null) this.reject(client, Msg.PONG, problem);
  }

  /**
   * A weapon message is judged once the inputs sent before it are stepped, so the shooter's eye path
   * includes the moves the client made before firing: at once when none wait, otherwise at the end
   * of the tick that steps the last of them (waitingShots.ts). Its arrival time is kept.
   */
  handleShot(client: Client, bytes: unknown): void {
    const p = this.room.player(client.sessionId);
    if (p === undefined) return;
    this.room.cfg.stats.shots++;
    const at = this.room.now();
    const floor = this.room.match.streamFloor(p.sessionId);
    if (p.inputs.length === 0 && !this.waiting.holds(p)) this.judge(p, bytes, at, floor);
    else this.waiting.push(p, bytes, at, floor);
  }

  /** Judges a weapon message of `p` (frames only: the arena's wire) and applies the outcome. */
  private judge(p: ArenaPlayer, bytes: unknown, receiveTimeMs: number, streamFloorMs: number): void {
    const out = this.room.match.shot(p.sessionId, bytes, { receiveTimeMs, streamFloorMs, objects: false });
    applyOutcome(this.room, p, out);
    if (out.verdict.kind === VerdictKind.REJECTED && p.client !== null) this.refused(p.client, reasonName(out.verdict.reason));
  }

  /** Judges the waiting shots whose inputs are stepped (all of `only`'s when given), in arrival order. */
  judgeWaitingShots(only: ArenaPlayer | null): void {
    this.waiting.drain(only, (p, bytes, at, floor) => {
      try {
        this.judge(p, bytes, at, floor);
      } catch (e) {
        this.room.cfg.stats.internalErrors++;
        console.error('arena: judging a waiting shot failed:', e);
      }
    });
  }
}

function inputStatusName(s: number): string {
  for (const [k, v] of Object.entries(InputStatus)) if (v === s) return k;
  return String(s);
}
