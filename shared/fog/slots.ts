/**
 * Fog of war's per-slot state (./fog FogOfWar extends it): where each player is, how it moves and the
 * horizons its timing gives, in flat arrays indexed by slot. The regions (./regions) are built from
 * these arrays, shared, not copied.
 */
import { MAX_HORIZON_S } from './reach';

export class FogSlots {
  readonly capacity: number;
  /** Per slot: in the match (1) or not; alive; team (-1: none, everyone is an enemy). */
  readonly present: Uint8Array;
  readonly alive: Uint8Array;
  readonly team: Int32Array;
  /** Per slot: feet position, velocity (m/s), eye height above the feet. */
  readonly px: Float64Array; readonly py: Float64Array; readonly pz: Float64Array;
  readonly vx: Float64Array; readonly vy: Float64Array; readonly vz: Float64Array;
  readonly eye: Float64Array;
  /**
   * Per slot: a speed, m/s, the reach starts from at least (0 by default). Set it to the max speed
   * when the velocity is not the player's own (a tick that stepped no input shows none while the
   * player still runs): ./reach then grows nothing from rest.
   */
  readonly speedFloor: Float64Array;
  /**
   * Per slot, seconds of its own movement its server position may still make up faster than real
   * time (0 by default): inputs its link held back (a stall, a retransmission) arrive in a burst and
   * the server steps several a tick. Its body's region grows over this much more time.
   */
  readonly catchUp: Float64Array;
  /**
   * Per viewer slot, seconds its eye's horizon grows by beyond the timing's (0 by default, at most
   * MAX_STALL_S): an upstream stall, during which its client keeps moving its screen's eye on from
   * inputs the server has not received (FogFilter sets it from the stamp lag while the link is silent).
   */
  readonly stall: Float64Array;
  /**
   * Per slot, metres: how far its feet were, over the look-back its viewers' screens may still draw
   * of it (a backfill's poses: server/match/fogFeed), from where they are now: across, and below and
   * above (0 by default). Its body's region holds those places too.
   */
  readonly pastR: Float64Array;
  readonly pastDrop: Float64Array;
  readonly pastRise: Float64Array;
  /**
   * Per viewer slot (setTiming), seconds: how far ahead its eye must be covered (horizon), a moving
   * point (bodyHorizon), and others' bodies beyond their newest snapshot (bodyAhead: as bodyHorizon,
   * or one tick for a viewer that takes backfills: see ./fog).
   */
  readonly horizon: Float64Array;
  readonly bodyHorizon: Float64Array;
  readonly bodyAhead: Float64Array;
  /**
   * Per viewer slot: 1 when its pairs are decided precisely (0 by default): on the plain regions
   * where the grown ones show a line (hiddenTight 0 for that viewer), and a verdict found by a line
   * from the regions' edges not held (./fog). More withheld, more rays; ./precision hands it out
   * within a time budget.
   */
  readonly precise: Uint8Array;

  constructor(capacity: number) {
    if (!(capacity >= 1 && capacity <= 256 && Math.floor(capacity) === capacity)) throw new Error('FogOfWar: capacity must be an integer 1..256.');
    const n = capacity;
    this.capacity = n;
    this.present = new Uint8Array(n);
    this.alive = new Uint8Array(n);
    this.team = new Int32Array(n).fill(-1);
    this.px = new Float64Array(n); this.py = new Float64Array(n); this.pz = new Float64Array(n);
    this.vx = new Float64Array(n); this.vy = new Float64Array(n); this.vz = new Float64Array(n);
    this.eye = new Float64Array(n);
    this.speedFloor = new Float64Array(n);
    this.catchUp = new Float64Array(n);
    this.stall = new Float64Array(n);
    this.pastR = new Float64Array(n);
    this.pastDrop = new Float64Array(n);
    this.pastRise = new Float64Array(n);
    this.horizon = new Float64Array(n).fill(MAX_HORIZON_S);
    this.bodyHorizon = new Float64Array(n).fill(MAX_HORIZON_S);
    this.bodyAhead = new Float64Array(n).fill(MAX_HORIZON_S);
    this.precise = new Uint8Array(n);
  }
}
