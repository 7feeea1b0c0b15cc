/**
 * A player slot's server-side data, never synced: the connection, the movement state and its queue
 * of inputs (inputQueue.ts), the weapon rules state, health and life, score, and the round-trip estimate.
 */
import type { Client } from '@colyseus/core';
import type { InputMessage } from '../../shared/protocol/input';
import { createMoveState, type MoveConfig, type MoveState, type MoveWorld } from '../../shared/movement/step';
import { InputQueue } from './inputQueue';
import { createShooterState, type ShooterState } from '../../shared/validate/verdict';
import type { PlayerState } from '../state/schema';
import { RoundTrip } from './roundTrip';
import { RejectBudget, type RejectBudgetConfig } from './budget';
import type { ValidationConfig } from '../../shared/validate/shot';
import type { SpawnPoint } from './config';

export class Slot {
  readonly index: number;
  client: Client | null = null;
  sessionId = '';
  state: PlayerState | null = null;
  move: MoveState = createMoveState(0, 0, 0);
  /** Inputs received and not stepped yet, in order, and the one held when none waits. */
  readonly inputs: InputQueue;
  /** Newest input seq received (older or repeated ones are refused), and newest stepped (synced). */
  lastInputSeq = -1;
  appliedInputSeq = -1;
  /** Inputs received since the last tick record (the log's input arrivals). */
  inputsSinceTick = 0;
  shooter: ShooterState;
  health = 0;
  alive = false;
  epoch = 0;
  lifeStartMs = 0;
  /** True until the first snapshot of the current life is recorded (its time becomes lifeStartMs). */
  lifePending = true;
  respawnAtMs = 0;
  /** Server ms of the kill that ended the last life (NaN before the first death and while alive). */
  diedAtMs = Number.NaN;
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

  constructor(index: number, magazines: readonly number[], loadout: readonly number[], budget: RejectBudgetConfig, tickRate: number) {
    this.index = index;
    this.inputs = new InputQueue(tickRate);
    this.shooter = createShooterState(index, magazines, loadout);
    this.budget = new RejectBudget(budget);
  }

  /**
   * A newer input (checked by the room): queued for the ticks to step in order. Inputs sent while
   * dead are not queued (the next life starts from the spawn).
   */
  takeInput(inp: InputMessage): void {
    if (this.alive) this.inputs.push(inp);
    this.lastInputSeq = inp.seq;
    this.inputsSinceTick++;
  }

  /** This tick's movement (inputQueue.ts): queued commands in order, or held keys. */
  stepInputs(world: MoveWorld, cfg: MoveConfig, dt: number): void {
    const seq = this.inputs.tick(this.move, world, cfg, dt);
    if (seq >= 0) this.appliedInputSeq = seq;
  }

  /** A new player takes the slot: nothing of the previous occupant carries over. */
  seat(client: Client, interpDelayMs: number, debug: boolean, rules: ValidationConfig, budget: RejectBudgetConfig): void {
    this.client = client;
    this.sessionId = client.sessionId;
    this.interpDelayMs = interpDelayMs;
    this.debug = debug;
    this.shooter = createShooterState(this.index, rules.weapons.map((w) => w.magazine), rules.loadout);
    this.lastInputSeq = -1;
    this.appliedInputSeq = -1;
    this.inputs.clear();
    this.inputsSinceTick = 0;
    this.kills = 0;
    this.deaths = 0;
    this.lives = 0;
    this.rtt.reset();
    this.connected = true;
    this.kicked = false;
    this.budget = new RejectBudget(budget);
    this.refusedSinceReport = 0;
  }

  /**
   * A new life at `p`: standing, full health, full magazines, the loadout's first weapon in hand and
   * drawn, a new epoch (a teleport mark in the history). The seq and the action and fire clocks
   * carry on (they only ever move forward).
   */
  spawnAt(p: SpawnPoint, idleClip: number, maxHealth: number, rules: ValidationConfig): void {
    this.move = createMoveState(p.x, p.y, p.z, p.dirX, p.dirZ);
    this.move.clip = idleClip;
    this.move.onGround = true;
    this.inputs.clear();
    this.inputs.hold(this.move.viewX, this.move.viewY, this.move.viewZ);
    this.health = maxHealth;
    this.alive = true;
    this.diedAtMs = Number.NaN;
    this.epoch++;
    this.lifePending = true;
    const weapons = rules.weapons;
    for (let w = 0; w < weapons.length; w++) {
      this.shooter.ammo[w] = weapons[w]!.magazine;
      this.shooter.reloadEndMs[w] = 0;
    }
    this.shooter.equipped = rules.loadout[0] ?? 0;
    this.shooter.drawEndMs = 0;
    this.shooter.alive = true;
  }
}
