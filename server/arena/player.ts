/**
 * An arena player's game-side data, never synced: the connection, hitreg's movement state and its
 * queue of inputs (inputQueue.ts), respawn timing, and the budget of refused messages. Its life,
 * health, weapons and round trip are the match's (hitreg/server): the arena reads them there.
 */
import type { Client } from '@colyseus/core';
import { createMoveState, type InputMessage, type MoveConfig, type MoveState, type MoveWorld } from '../../shared/index';
import { InputQueue } from './inputQueue';
import { RejectBudget, type RejectBudgetConfig } from './budget';
import type { StateView } from '@colyseus/schema';
import type { PlayerState, RosterEntry } from './schema';
import type { SpawnPoint } from './config';

export class ArenaPlayer {
  /** The match's slot of this player (the schema's `slot`, and the log's). */
  readonly index: number;
  readonly sessionId: string;
  client: Client | null;
  state: PlayerState | null = null;
  /** Fog of war on: what this client is sent of `players` (Colyseus StateView), and its scoreboard entry. */
  view: StateView | null = null;
  roster: RosterEntry | null = null;
  move: MoveState = createMoveState(0, 0, 0);
  /** Inputs received and not stepped yet, in order, and the one held when none waits. */
  readonly inputs: InputQueue;
  /** Newest input seq received (older or repeated ones are refused), and newest stepped (synced). */
  lastInputSeq = -1;
  appliedInputSeq = -1;
  /** Inputs received since the last tick record (the log's input arrivals). */
  inputsSinceTick = 0;
  /** Room ms at which the next life begins after a death (0: none pending). */
  respawnAtMs = 0;
  /** Room ms at which the current life began: inputs stamped before it were sent for the last one. */
  lifeFromMs = Number.NEGATIVE_INFINITY;
  /** Lives begun after the first (spawn points rotate with them). */
  respawns = 0;
  /** This client asked for debug verdicts and the room allows them. */
  readonly debug: boolean;
  /** False while the connection is lost and the slot waits for the same session to reconnect. */
  connected = true;
  /** The server disconnected this client (no reconnection for it). */
  kicked = false;
  budget: RejectBudget;
  /** Refused messages since the last hostile-event line, and when that line was written (room ms). */
  refusedSinceReport = 0;
  lastReportMs = Number.NEGATIVE_INFINITY;
  lastRefusal = '';

  constructor(client: Client, index: number, tickRate: number, budget: RejectBudgetConfig, debug: boolean) {
    this.client = client;
    this.sessionId = client.sessionId;
    this.index = index;
    this.inputs = new InputQueue(tickRate);
    this.budget = new RejectBudget(budget);
    this.debug = debug;
  }

  /**
   * A newer input (checked by the room): queued for the ticks to step in order. Not queued: those
   * stamped before this life began that a stall held back until after it, and, while dead, all but
   * the commands stamped no later than `deadUntilMs` (the moves its client made before it could
   * know of its death, which the eye path of a shot judged after the death runs over; the next
   * life starts from the spawn).
   */
  takeInput(inp: InputMessage, alive: boolean, deadUntilMs = Number.NEGATIVE_INFINITY): void {
    const stamped = inp.timeMs > 0;
    if ((alive || (stamped && inp.timeMs <= deadUntilMs)) && !(stamped && inp.timeMs < this.lifeFromMs)) this.inputs.push(inp);
    this.lastInputSeq = inp.seq;
    this.inputsSinceTick++;
  }

  /** This tick's movement (inputQueue.ts): queued commands in order, or (alive) held keys. */
  stepInputs(world: MoveWorld, cfg: MoveConfig, dt: number, alive = true): void {
    const seq = this.inputs.tick(this.move, world, cfg, dt, alive);
    if (seq >= 0) this.appliedInputSeq = seq;
  }

  /** Standing at `p`, facing its direction, idle, nothing queued, from room ms `atMs`. */
  placeAt(p: SpawnPoint, idleClip: number, atMs: number): void {
    this.lifeFromMs = atMs;
    this.move = createMoveState(p.x, p.y, p.z, p.dirX, p.dirZ);
    this.move.clip = idleClip;
    this.move.onGround = true;
    this.inputs.clear();
    this.inputs.hold(this.move.viewX, this.move.viewY, this.move.viewZ);
  }
}
