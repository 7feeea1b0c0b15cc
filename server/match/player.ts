/**
 * One player as the match keeps it: the game's id, the slot its history lives in, its team, its
 * life (alive, health, when the life began and ended), its weapon rules state, and its round trip.
 * The game reads it through HitregPlayer (read-only); only the match writes it.
 */
import { createShooterState, type ShooterState } from '../../shared/validate/verdict';
import type { ValidationConfig } from '../../shared/validate/rules';
import type { PingMessage } from '../../shared/protocol/ping';
import { PongResult, RoundTrip } from './roundTrip';

/** What the game may read of a player (match.player(id)). */
export interface HitregPlayer<Id> {
  readonly id: Id;
  /** The history ring and log slot of this player (stable while it stays; reused after it leaves). */
  readonly slot: number;
  /** Team number (>= 0), or -1 for none. */
  readonly team: number;
  readonly alive: boolean;
  readonly health: number;
  /** Bumps at every respawn and teleport (a client must not interpolate across it). */
  readonly epoch: number;
  /** Lives begun (the first at join counts). */
  readonly lives: number;
  readonly kills: number;
  readonly deaths: number;
  /** Match ms of the current life's first recorded snapshot (the life counts as a target from then on). */
  readonly lifeStartMs: number;
  /** Match ms of the kill that ended the last life (NaN while alive and before the first death). */
  readonly diedAtMs: number;
  /** False between a lost connection (drop) and the same session's reconnection. */
  readonly connected: boolean;
  /** Interpolation delay the shooter renders others with, ms (as joined, clamped by the match). */
  readonly interpDelayMs: number;
  /** The round-trip estimate used for this player, ms (0 before the first sample). */
  readonly rttMs: number;
  /** The weapon rules state (equipped, rounds, reloads, fire clock, seq) as of its last message. */
  readonly weapons: Readonly<ShooterState>;
}

export class MatchPlayer<Id> implements HitregPlayer<Id> {
  id: Id;
  readonly slot: number;
  team = -1;
  alive = false;
  health = 0;
  epoch = 0;
  lives = 0;
  kills = 0;
  deaths = 0;
  diedAtMs = Number.NaN;
  connected = true;
  interpDelayMs = 100;
  /** Match ms of the first snapshot of the current life (its time becomes lifeStartMs); pending until then. */
  lifeStartMs = 0;
  lifePending = true;
  /** Whether this slot holds a player now (false once it left). */
  present = false;
  /** The round trip the game measured itself (NaN: hitreg's ping measures it). */
  externalRttMs = Number.NaN;
  /**
   * The newest time this player's stream has stated, match ms (NaN: nothing yet): its inputs'
   * stamps (HitregMatch.stamp), the send times of the pings it answered, its actions' claims. Over
   * one ordered stream nothing it sends later can honestly claim an earlier time.
   */
  streamFloorMs = Number.NaN;
  /** Match ms the newest message of this player's arrived (a stamp, a pong, a shot; NaN: none yet): fog of war tells a stall by the silence since. */
  heardMs = Number.NaN;
  /** The stamp of the latest input taken (HitregMatch.stamp; NaN: none yet): when it is later than the pose's newest stepped one, inputs are still queued. */
  stampedMs = Number.NaN;
  readonly rtt = new RoundTrip();
  weapons: ShooterState;

  constructor(id: Id, slot: number, magazines: readonly number[], loadout: readonly number[]) {
    this.id = id;
    this.slot = slot;
    this.weapons = createShooterState(slot, magazines, loadout);
  }

  /** The stream stated time `t` (ignored unless later than what it stated before). */
  raiseFloor(t: number): void {
    if (!(this.streamFloorMs >= t)) this.streamFloorMs = t;
  }

  /**
   * A pong arrived at `nowMs`: counted, and the floor raised to its ping's send time (what the
   * client sends after cannot have been sent before it). False: it answers no ping in flight.
   */
  takePong(pong: PingMessage, nowMs: number): boolean {
    if (this.rtt.pong(pong, nowMs) === PongResult.UNKNOWN_ID) return false;
    this.raiseFloor(this.rtt.answeredSentMs);
    return true;
  }

  /**
   * A stamp of the game's own arrived at `nowMs` (HitregMatch.stamp): null when it stands (the
   * floor raised to it), else why not: NON_FINITE, TIME_FUTURE (beyond futureSlackMs and half the
   * largest round trip told to the client: its clock runs ahead by up to half of it, uncapped by
   * maxRttMs, since a stamp ahead of the claims it precedes buys nothing), or BACKDATED (earlier
   * than the floor, beyond streamSlackMs).
   */
  takeStamp(stampMs: number, nowMs: number, rules: Pick<ValidationConfig, 'futureSlackMs' | 'streamSlackMs'>): string | null {
    if (!(typeof stampMs === 'number' && stampMs - stampMs === 0)) return 'NON_FINITE';
    if (stampMs > nowMs + rules.futureSlackMs + this.toldRttMs() / 2) return 'TIME_FUTURE';
    if (rules.streamSlackMs !== undefined && stampMs < this.streamFloorMs - rules.streamSlackMs) return 'BACKDATED';
    this.raiseFloor(stampMs);
    return null;
  }

  get rttMs(): number {
    return this.externalRttMs === this.externalRttMs ? this.externalRttMs : this.rtt.rttMs;
  }

  /** The largest round trip the client was told lately (the game's own estimate when it measures it). */
  toldRttMs(): number {
    return this.externalRttMs === this.externalRttMs ? this.externalRttMs : this.rtt.toldMaxMs();
  }
}
