/**
 * Fog of war's regions (./fog): per update, each player's speed, walking slope, step and floor
 * (prepare), and from them the viewer's eye region and the enemy's body region over their horizons,
 * and a moving point's prism, as upright 8-sided prisms (./rays PRISM_STRIDE numbers each; the eye
 * region cut by walls with a walk grid, ./walk); built once per update, tier and slot and copied per pair. The rule these bounds serve, and why each term
 * is there, is stated in ./fog's module comment. Allocates nothing.
 */
import { climbCell, floorUnder } from './climb';
import type { FogConfig } from './config';
import { jumpRise, MAX_HORIZON_S, MAX_STALL_S, reachInto, V_DROP, V_H, V_REACH, V_RISE, V_SLOPE, V_STEP, V_VY, VERTICAL_STRIDE, verticalInto, walkRise } from './reach';
import { P_AX, P_AZ, P_CX, P_CZ, P_EYE, P_K, P_MID, P_R, P_S, P_Y0, P_Y1, PRISM_STRIDE, setOctagon, tightenSupports } from './rays';
import { floodSupports, W_CX, W_CZ, W_FEET_HI, W_FEET_LO, W_REACH, W_X, W_Z, WALK_QUERY, walkFlood } from './walk';
import type { FogSlots } from './slots';

/** FogOfWar.point's fields (see seesPoint): position, velocity, gravity, radius, lead, turns. */
export const POINT_STRIDE = 10;
export const Q_X = 0, Q_Y = 1, Q_Z = 2, Q_VX = 3, Q_VY = 4, Q_VZ = 5, Q_GRAVITY = 6, Q_RADIUS = 7, Q_LEAD = 8, Q_TURNS = 9;

/** Regions as the players' bounds give them, grown by the slack and lead (a verdict that lasts), grown hiddenWiden times more, grown hiddenTight times as much (a verdict that lasts an update or two). */
export const PLAIN = 0, GROWN = 1, WIDE = 2, TIGHT = 3;
/** How many tiers there are. */
const TIERS = 4;
/** Height above the floor under a player where its region starts, metres (see place()). */
const FLOOR_LIFT = 0.01;
/** The head's line aims this far below the top of the body envelope, metres. */
const HEAD_BELOW_TOP = 0.1;
const J = PRISM_STRIDE;
/** ./reach reachInto's scratch: the horizon, a speed, the eye's reach, the body's. */
const R_H = 0, R_S = 1, R_EYE = 2, R_BODY = 3;

export class FogRegions {
  /** Per slot, set by prepare(): horizontal speed m/s, walking slope and step near it, the floor under it (./climb floorUnder). */
  private readonly speed: Float64Array;
  private readonly slope: Float64Array;
  private readonly step: Uint8Array;
  private readonly floor: Float64Array;
  /** Scratch for reachOf: a horizon and a speed in, two reaches out. */
  private readonly rr = new Float64Array(4);
  /** Scratch: ./reach verticalInto's numbers, and place()'s radius and heights. */
  private readonly vert = new Float64Array(VERTICAL_STRIDE);
  private readonly pl = new Float64Array(3);
  /** Scratch: the supports of the cells an eye region's body reaches (./walk). */
  private readonly sup = new Float64Array(8);
  private readonly walkQuery = new Float64Array(WALK_QUERY);
  /** cut()'s margins (a double argument would be boxed). */
  private readonly growBy = new Float64Array(1);
  /** The flood left in the walk grid's queue: its viewer, update and the grid's generation after it, and its cells (0: none cut). */
  private floodSlot = -1;
  private floodStamp = -1;
  private floodGen = -1;
  private floodCount = 0;
  /**
   * Per tier (PLAIN, GROWN, WIDE, TIGHT) and slot: its eye and body regions as built in the update stamped
   * (the body's over the horizon in bodyKey), PRISM_STRIDE numbers each.
   */
  private readonly eyeMemo: Float64Array;
  private readonly bodyMemo: Float64Array;
  private readonly eyeStamp: Int32Array;
  private readonly bodyStamp: Int32Array;
  private readonly bodyKey: Float64Array;
  /** Per tier: seconds of its motion a region is moved by (its centre; its radius grows by the speed times it). Read from an array: a double returned by a call is boxed. */
  private readonly leads: Float64Array;
  /** The update prepare() was last called for. */
  private stamp = -1;

  constructor(private readonly cfg: FogConfig, private readonly players: FogSlots) {
    const n = players.capacity;
    this.speed = new Float64Array(n);
    this.slope = new Float64Array(n);
    this.step = new Uint8Array(n);
    this.floor = new Float64Array(n);
    this.eyeMemo = new Float64Array(TIERS * n * J);
    this.bodyMemo = new Float64Array(TIERS * n * J);
    this.eyeStamp = new Int32Array(TIERS * n).fill(-1);
    this.bodyStamp = new Int32Array(TIERS * n).fill(-1);
    this.bodyKey = new Float64Array(TIERS * n);
    this.leads = Float64Array.of(PLAIN, GROWN, WIDE, TIGHT).map((t) => (t !== PLAIN && cfg.hiddenSlackM > 0 ? 0.5 * this.slackTimes(t) * cfg.hiddenLeadS : 0));
  }

  /**
   * The prism of seesPoint's point over its lead plus viewer v's body horizon at out[o..]: its arc's
   * bounds, or its ball when it may turn. (Slots only cross the call: a double argument would be boxed.)
   */
  pointRegion(out: Float64Array, o: number, v: number, p: Float64Array): void {
    const t = p[Q_LEAD] + this.players.bodyHorizon[v], grow = p[Q_RADIUS] + this.cfg.marginM, x = p[Q_X], y = p[Q_Y], z = p[Q_Z];
    const vx = p[Q_VX], vy = p[Q_VY], vz = p[Q_VZ], g = p[Q_GRAVITY];
    // An upward gravity is no arc this bounds: the ball then, as for a turn.
    if (p[Q_TURNS] !== 0 || g < 0) {
      const d = Math.sqrt(vx * vx + vy * vy + vz * vz) * t + 0.5 * Math.abs(g) * t * t + grow;
      out[o + P_CX] = x; out[o + P_CZ] = z; out[o + P_R] = d;
      out[o + P_Y0] = y - d; out[o + P_Y1] = y + d;
      out[o + P_EYE] = y; out[o + P_MID] = y;
      out[o + P_AX] = x; out[o + P_AZ] = z;
      setOctagon(out, o);
      return;
    }
    // The arc: a straight horizontal segment; its height is highest at the apex (vy / g, when within t).
    const hx = 0.5 * vx * t, hz = 0.5 * vz * t;
    const yEnd = y + vy * t - 0.5 * g * t * t;
    let lo = y < yEnd ? y : yEnd, hi = y > yEnd ? y : yEnd;
    if (g > 0 && vy > 0 && vy < g * t) {
      const apex = y + (0.5 * vy * vy) / g;
      if (apex > hi) hi = apex;
    }
    out[o + P_CX] = x + hx; out[o + P_CZ] = z + hz; out[o + P_R] = Math.sqrt(hx * hx + hz * hz) + grow;
    out[o + P_Y0] = lo - grow; out[o + P_Y1] = hi + grow;
    out[o + P_EYE] = 0.5 * (lo + hi); out[o + P_MID] = out[o + P_EYE];
    out[o + P_AX] = out[o + P_CX]; out[o + P_AZ] = out[o + P_CZ];
    setOctagon(out, o);
  }


  /**
   * Writes viewer v's eye region (at 0) and enemy e's body region (at PRISM_STRIDE) over v's
   * horizons; GROWN: hiddenSlackM wider, hiddenSlackYM taller both ways and covering hiddenLeadS of
   * their motion (see the module comment); WIDE: all three hiddenWiden times as much, its heights
   * also moved by the vertical speed over half that lead (place()). False when a
   * number is not finite. (The tier and slots only cross the call: a double argument would be boxed.)
   */
  regions(out: Float64Array, v: number, e: number, tier: number): boolean {
    // Each region is built once per update, tier and slot (the body's also per horizon: its key).
    const n = this.players.capacity, stamp = this.stamp, em = tier * n + v, bm = tier * n + e, rr = this.rr;
    this.eyeMemoOf(em, v, tier);
    // Written through the scratch array: a double kept in a local here was boxed.
    rr[R_H] = this.players.bodyAhead[v] + this.players.catchUp[e];
    if (rr[R_H] > MAX_HORIZON_S) rr[R_H] = MAX_HORIZON_S;
    if (this.bodyStamp[bm] !== stamp || this.bodyKey[bm] !== rr[R_H]) {
      this.bodyKey[bm] = rr[R_H];
      this.bodyRegion(this.bodyMemo, bm * J, e, tier);
      this.bodyStamp[bm] = stamp;
    }
    const eo = em * J, bo = bm * J;
    for (let k = 0; k < J; k++) {
      out[k] = this.eyeMemo[eo + k];
      out[J + k] = this.bodyMemo[bo + k];
    }
    // The corners follow from the centre and supports: finite when those are.
    let check = 0;
    for (let k = 0; k < P_K; k++) check += out[k] + out[J + k];
    return check - check === 0;
  }

  /** Writes enemy e's body region over rr[R_H] seconds at out[o..] (grown as in regions()). */
  private bodyRegion(out: Float64Array, o: number, e: number, tier: number): void {
    const k = this.slackTimes(tier), body = this.cfg.body, g = this.cfg.marginM + k * this.cfg.hiddenSlackM;
    const gy = this.cfg.marginM + k * this.cfg.hiddenSlackYM;
    const rr = this.rr, pl = this.pl;
    this.reachOf(R_BODY, e);
    this.vertical(e, R_BODY);
    // The body: the envelope moved over hb, and over where its feet were within the look-back a
    // screen may still draw (pastR, pastDrop, pastRise); never below the floor under the enemy.
    const fy = this.players.py[e], vt = this.vert, ps = this.players;
    pl[0] = body.radius + (rr[R_BODY] > ps.pastR[e] ? rr[R_BODY] : ps.pastR[e]) + g;
    pl[1] = fy + body.bottom - (vt[V_DROP] > ps.pastDrop[e] ? vt[V_DROP] : ps.pastDrop[e]) - gy;
    pl[2] = fy + body.top + (vt[V_RISE] > ps.pastRise[e] ? vt[V_RISE] : ps.pastRise[e]) + gy;
    this.place(out, o, e, tier);
    out[o + P_EYE] = fy + body.top - HEAD_BELOW_TOP;
    out[o + P_MID] = fy + 0.5 * (body.bottom + body.top);
  }

  /**
   * Viewer v's eye region of this tier as this update builds it for its pairs (built now when none of
   * them needed it yet), at out[o..]: what FogOfWar.seesPoint tests a point against, so a point
   * tested for many viewers, or a viewer for many points, builds each viewer's region once an update.
   * Before the first update it is built afresh each call.
   */
  eyeOf(out: Float64Array, o: number, v: number, tier: number): void {
    if (this.stamp < 0) {
      this.eyeRegion(out, o, v, tier);
      return;
    }
    const em = tier * this.players.capacity + v, eo = em * J;
    this.eyeMemoOf(em, v, tier);
    for (let k = 0; k < J; k++) out[o + k] = this.eyeMemo[eo + k];
  }

  /** The eye memo at em (tier * capacity + v) built for this update. */
  private eyeMemoOf(em: number, v: number, tier: number): void {
    if (this.eyeStamp[em] === this.stamp) return;
    this.eyeRegion(this.eyeMemo, em * J, v, tier);
    this.eyeStamp[em] = this.stamp;
  }

  /** How many times the slack and lead regions of this tier (PLAIN, GROWN, WIDE, TIGHT) are grown by. */
  private slackTimes(tier: number): number {
    return tier === PLAIN ? 0 : tier === GROWN ? 1 : tier === WIDE ? this.cfg.hiddenWiden : this.cfg.hiddenTight;
  }

  /** Writes viewer v's eye region over its horizon at out[o..] (grown as in regions()). */
  eyeRegion(out: Float64Array, o: number, v: number, tier: number): void {
    const k = this.slackTimes(tier), g = this.cfg.marginM + k * this.cfg.hiddenSlackM;
    const gy = this.cfg.marginM + k * this.cfg.hiddenSlackYM;
    const rr = this.rr, pl = this.pl, vt = this.vert;
    // The eye: never lower than an eye height above the floor under the viewer; a camera off the eye
    // anywhere within cameraM of it (the floor under the viewer, looked up over that much more reach, still bounds it).
    const eyeY = this.players.py[v] + this.players.eye[v];
    rr[R_H] = this.players.horizon[v] + stallOf(this.players.stall[v]);
    this.reachOf(R_EYE, v);
    this.vertical(v, R_EYE);
    const eyeFloor = this.floor[v] + this.players.eye[v];
    const eyeLo = eyeY - vt[V_DROP];
    const cam = this.cfg.cameraM;
    pl[0] = rr[R_EYE] + g + cam;
    pl[1] = (eyeLo > eyeFloor ? eyeLo : eyeFloor) - gy - cam;
    pl[2] = eyeY + vt[V_RISE] + gy + cam;
    this.place(out, o, v, tier);
    out[o + P_EYE] = eyeY;
    out[o + P_MID] = eyeY;
    this.growBy[0] = g + cam;
    this.cut(out, o, v);
  }

  /**
   * Cuts viewer v's eye region at out[o..] by the walls its body cannot cross over the horizon
   * (./walk, with cfg.walk): the cells its feet reach, from the lowest feet the vertical bounds and
   * the floor under it allow to the highest, within the region's disc less growBy[0] (the margins the disc was grown by,
   * added back to the cells' supports), intersected with the octagon and tightened (./rays tightenSupports).
   * One flood per viewer and update serves its three tiers: it covers the WIDE tier's disc, which
   * holds the others (their centres move by v lead, their reaches by |v| lead; ./walk walkFlood).
   */
  private cut(out: Float64Array, o: number, v: number): void {
    const walk = this.cfg.walk;
    if (walk === undefined) return;
    const grow = this.growBy[0];
    const vt = this.vert, fy = this.players.py[v], sup = this.sup, q = this.walkQuery;
    if (this.floodSlot !== v || this.floodStamp !== this.stamp || this.floodGen !== walk.gen) {
      const px = this.players.px[v], pz = this.players.pz[v], vx = this.players.vx[v], vz = this.players.vz[v];
      const lead = this.leads[WIDE];
      q[W_X] = px; q[W_Z] = pz;
      q[W_CX] = px + vx * lead; q[W_CZ] = pz + vz * lead;
      // A micrometre more: the tiers' discs stay inside this one whatever the rounding.
      q[W_REACH] = this.rr[R_EYE] + Math.sqrt(vx * vx + vz * vz) * lead + 1e-6;
      // The feet go no lower than the floor under the player (./climb floorUnder; -Infinity without a map).
      const low = fy - vt[V_DROP], floor = this.floor[v];
      q[W_FEET_LO] = low > floor ? low : floor; q[W_FEET_HI] = fy + vt[V_RISE];
      this.floodCount = walkFlood(walk, q);
      this.floodSlot = v; this.floodStamp = this.stamp; this.floodGen = walk.gen;
    }
    if (this.floodCount === 0) return;
    q[W_CX] = out[o + P_CX]; q[W_CZ] = out[o + P_CZ]; q[W_REACH] = out[o + P_R] - grow;
    floodSupports(walk, this.floodCount, q, sup, 0);
    for (let k = 0; k < 8; k++) {
      const s = sup[k] + grow;
      if (s < out[o + P_S + k]) out[o + P_S + k] = s;
    }
    tightenSupports(out, o);
  }

  /** vert = ./reach verticalInto for slot s over rr[R_H] seconds and the horizontal reach rr[reach]. */
  private vertical(s: number, reach: number): void {
    const vt = this.vert;
    vt[V_H] = this.rr[R_H]; vt[V_VY] = this.players.vy[s]; vt[V_REACH] = this.rr[reach];
    vt[V_SLOPE] = this.slope[s]; vt[V_STEP] = this.step[s];
    verticalInto(this.cfg.motion, vt);
  }

  /**
   * Player s's region at out[o..]: radius pl[0] and heights pl[1]..pl[2] about its feet; when grown
   * it also covers hiddenLeadS (WIDE: hiddenWiden times that) of its horizontal motion (the centre moves half that way, the radius
   * grows by half the distance, so the region now and the one there both fit). Nothing below the
   * floor under the player can be seen (it is inside or under the floor), and a line run inside a
   * solid floor meets no triangle: the region stops FLOOR_LIFT above it.
   */
  private place(out: Float64Array, o: number, s: number, tier: number): void {
    const lead = this.leads[tier];
    const vx = this.players.vx[s], vz = this.players.vz[s], pl = this.pl;
    out[o + P_CX] = this.players.px[s] + vx * lead;
    out[o + P_CZ] = this.players.pz[s] + vz * lead;
    out[o + P_R] = pl[0] + Math.sqrt(vx * vx + vz * vz) * lead;
    // WIDE also moves its top up (a jump) or its bottom down (a fall) by the vertical speed times the
    // same lead: a verdict on it then stands through more of a jump; GROWN, which decides what is
    // withheld when WIDE shows a clear line, is not made taller.
    const vy = tier === WIDE ? this.players.vy[s] : 0, floor = this.floor[s] + FLOOR_LIFT, y0 = pl[1] - (vy < 0 ? -vy * lead : 0);
    out[o + P_Y0] = y0 > floor ? y0 : floor;
    out[o + P_Y1] = pl[2] + (vy > 0 ? vy * lead : 0);
    out[o + P_AX] = this.players.px[s];
    out[o + P_AZ] = this.players.pz[s];
    setOctagon(out, o);
  }

  /** rr[out] = ./reach reachInto for slot s's speed over rr[R_H] seconds. */
  private reachOf(out: number, s: number): void {
    this.rr[R_S] = this.speed[s];
    reachInto(this.cfg.motion, this.rr, out);
  }

  /**
   * Per player, once per update: its horizontal speed (./reach reachFromSpeed bounds the reach), the walking
   * slope and step near it and the floor under it (the climb map's cell for its largest reach this
   * update; without a map, the motion's level-wide slope and step, and no floor).
   */
  prepare(stamp: number): void {
    this.stamp = stamp | 0;
    const n = this.players.capacity, m = this.cfg.motion, map = this.cfg.climb;
    let hMax = 0;
    for (let i = 0; i < n; i++) {
      const h = this.players.horizon[i] + stallOf(this.players.stall[i]);
      if (this.players.present[i] === 1 && h > hMax) hMax = h;
    }
    for (let i = 0; i < n; i++) {
      if (this.players.present[i] === 0) continue;
      const v = Math.sqrt(this.players.vx[i] * this.players.vx[i] + this.players.vz[i] * this.players.vz[i]), floor = this.players.speedFloor[i];
      const sp = v > floor ? v : floor;
      this.speed[i] = sp;
      if (map === undefined) {
        this.slope[i] = m.climbSlope;
        this.step[i] = m.stepHeight > 0 ? 1 : 0;
        this.floor[i] = -Infinity;
        continue;
      }
      this.rr[R_H] = hMax + this.cfg.hiddenLeadS;
      this.reachOf(R_EYE, i);
      const reach = this.rr[R_EYE] + this.cfg.marginM + this.cfg.hiddenSlackM + this.cfg.cameraM;
      const cell = climbCell(map, this.players.px[i], this.players.pz[i], reach);
      this.slope[i] = cell >= 0 ? map.slope[cell] : map.maxSlope;
      this.step[i] = (cell >= 0 ? map.step[cell] === 1 : map.anyStep) ? 1 : 0;
      const walk = walkRise(m, reach, this.slope[i], this.step[i] === 1);
      this.floor[i] = floorUnder(map, cell, this.players.px[i], this.players.py[i], this.players.pz[i], reach, walk, walk + jumpRise(m, this.players.vy[i], hMax));
    }
  }
}

/** A viewer's stall seconds as its eye's horizon takes them: within [0, MAX_STALL_S] (NaN: 0). */
function stallOf(s: number): number {
  return s > 0 ? (s < MAX_STALL_S ? s : MAX_STALL_S) : 0;
}
