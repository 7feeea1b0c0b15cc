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
  readonly rtt = new RoundTrip();

  constructor(index: number, magazines: readonly number[], loadout: readonly number[]) {
    this.index = index;
    this.shooter = createShooterState(index, magazines, loadout);
  }
}
