/**
 * A player slot's server-side data, never synced: the connection, the movement state and latest
 * input, the weapon rules state, health and life, score, and the round-trip estimate.
 */
import type { Client } from '@colyseus/core';
import { createMoveState, type MoveState } from '../../shared/movement/step';
import { createInputMessage, type InputMessage } from '../../shared/protocol/input';
import { createShooterState, type ShooterState } from '../../shared/validate/verdict';
import type { PlayerState } from '../state/schema';
import { RoundTrip } from './roundTrip';
import { RejectBudget, type RejectBudgetConfig } from './budget';

export class Slot {
  readonly index: number;
  client: Client | null = null;
  sessionId = '';
  state: PlayerState | null = null;
  move: MoveState = createMoveState(0, 0, 0);
  input: InputMessage = createInputMessage();
  jumpLatched = false;
  lastInputSeq = -1;
  shooter: ShooterState;
  health = 0;
  alive = false;
  epoch = 0;
  lifeStartMs = 0;
  /** True until the first snapshot of the current life is recorded (its time becomes lifeStartMs). */
  lifePending = true;
  respawnAtMs = 0;
  lives = 0;
  kills = 0;
  deaths = 0;
  interpDelayMs = 100;
  /** This client asked for debug verdicts and the room allows them. */
  debug = false;
  readonly rtt = new RoundTrip();
  /** False while the connection is lost and the slot waits for the same session to reconnect. */
  connected = true;
  /** The server disconnected this client (no reconnection for it). */
  kicked = false;
  budget: RejectBudget;
  /** Refused messages since the last hostile-event line, and when that line was written (room ms). */
  refusedSinceReport = 0;
  lastReportMs = Number.NEGATIVE_INFINITY;
  lastRefusal = '';

  constructor(index: number, magazines: readonly number[], loadout: readonly number[], budget: RejectBudgetConfig) {
    this.index = index;
    this.shooter = createShooterState(index, magazines, loadout);
    this.budget = new RejectBudget(budget);
  }
}
