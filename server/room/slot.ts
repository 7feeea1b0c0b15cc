/**
 * A player slot's server-side data, never synced: the connection, the movement state and its queue
 * of inputs (inputQueue.ts), the weapon rules state, health and life, score, and the round-trip estimate.
 */
import type { Client } from '@colyseus/core';
import { createInputMessage, InputButton, type InputMessage } from '../../shared/protocol/input';
import { createMoveState, setView, stepMovement, type MoveConfig, type MoveState, type MoveWorld } from '../../shared/movement/step';
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
  /** The input stepped last (its view is kept by a tick that steps without one). */
  input: InputMessage = createInputMessage();
  /** Inputs received and not stepped yet, in order. */
  readonly inputs: InputQueue;
  /** Newest input seq received (older or repeated ones are refused), and newest stepped (synced). */
  lastInputSeq = -1;
  appliedInputSeq = -1;
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

  constructor(index: number, magazines: readonly number[], loadout: readonly number[], budget: RejectBudgetConfig, tickRate: number) {
    this.index = index;
    this.inputs = new InputQueue(tickRate);
    this.shooter = createShooterState(index, magazines, loadout);
    this.budget = new RejectBudget(budget);
  }

  /**
   * A newer input (checked by the room): queued for the ticks to step in order. Inputs sent while
   * dead are not queued (the next life starts from the spawn). False when the queue is full: the
   * client sends faster than the tick rate.
   */
  takeInput(inp: InputMessage): boolean {
    if (this.alive && !this.inputs.push(inp)) return false;
    this.lastInputSeq = inp.seq;
    return true;
  }

  /**
   * This tick's movement: the queued inputs the tick's credit allows, each one step of dt, in order;
   * none queued holds the player, unless the client has sent nothing for a second of ticks (then a
   * step with no wish). Returns the steps taken.
   */
  stepInputs(world: MoveWorld, cfg: MoveConfig, dt: number): number {
    const q = this.inputs;
    const inp = this.input;
    const n = q.stepsThisTick();
    for (let i = 0; i < n; i++) {
      q.shift(inp);
      this.appliedInputSeq = inp.seq;
      setView(this.move, inp.viewX, inp.viewY, inp.viewZ);
      stepMovement(this.move, { wishX: inp.wishX, wishZ: inp.wishZ, viewX: inp.viewX, viewY: inp.viewY, viewZ: inp.viewZ, jump: (inp.buttons & InputButton.JUMP) !== 0 }, world, cfg, dt);
    }
    if (n > 0 || !q.idleStep()) return n;
    inp.wishX = 0;
    inp.wishZ = 0;
    inp.buttons = 0;
    stepMovement(this.move, { wishX: 0, wishZ: 0, viewX: inp.viewX, viewY: inp.viewY, viewZ: inp.viewZ, jump: false }, world, cfg, dt);
    return 1;
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
    this.input = createInputMessage();
    this.inputs.clear();
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
    this.input.viewX = this.move.viewX;
    this.input.viewY = this.move.viewY;
    this.input.viewZ = this.move.viewZ;
    this.input.wishX = 0;
    this.input.wishZ = 0;
    this.input.buttons = 0;
    this.inputs.clear();
    this.health = maxHealth;
    this.alive = true;
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
