/**
 * Server-side fog of war: for every ordered pair (viewer, enemy), whether the server must send the
 * enemy to the viewer now. A withheld enemy cannot be drawn by a wallhack; one withheld wrongly pops
 * in on an honest screen. "Hidden" is answered only when no line of sight is found that could open
 * before data sent at the next patch would be on screen.
 *
 * Horizons (per viewer, setTiming; ./reach horizonSeconds). A decision at server time d stands
 * until the next patch, d + patch. The viewer's screen at time tau shows its own eye predicted ahead
 * (the server gets there about one-way later) and the enemy interpolated `interp` behind. An enemy
 * withheld at d has no snapshot at d, so the client draws it again only from render time d + patch
 * (the next patch), i.e. screen time d + patch + interp: until then the eye the viewer may see from
 * is its server position moved for up to patch + interp + one-way, and the body it would see is the
 * enemy's at render times within patch of d. Hence two horizons:
 *   eye  H  = one-way + interp + patch + safety   (how far the viewer's eye may move),
 *   body Hb = patch + safety                      (how far the enemy's body may move),
 * safety taking jitter, input buffering and clock error (enemyFullHorizon: the body over H too),
 * each plus one movement tick (players move in whole ticks: ./reach).
 *
 * Regions. The viewer's eye region: its eye (feet + eye height) moved horizontally by up to
 * the reach over H (./reach: from its speed now, growing by at most the acceleration each tick up to the max speed), from the lowest to
 * the highest eye the vertical bounds allow (a jump, ramps and steps near it: ./reach, ./climb). The
 * enemy's body region: the body envelope (./body: a cylinder about the feet holding every hitbox in
 * every clip) moved the same way over Hb. Both grow by marginM all round (rounding, the rig's sampled
 * frames) and are upright octagonal prisms circumscribing those cylinders. A region stops FLOOR_LIFT
 * above the floor under its player when the level shows the player cannot get lower (./climb
 * floorUnder), and the eye region an eye height above it: nothing under the floor can be seen, and a
 * line run inside a solid floor meets no triangle. Regions are not cut by walls: a region reaching
 * through a wall the player cannot cross only adds lines (visible is the safe side), which is what
 * makes players within a couple of metres of a thin wall visible through it.
 *
 * The rule. Visible when ANY of the pair's lines (./rays) is clear of the level (World.anyHit false):
 * the eye to the body's middle and head, the 16 matched corners of the two prisms, and a matched
 * lateral x vertical grid spaced so its lines cross any wall across the line of sight no more than
 * openingM apart, and the crossing lines: every point of the eye region's front chord to every one of
 * the body region's (./rays), which find openings that must line up (optionally, the fans: the eye to the body grid, the eye grid to the body). Hidden
 * when all are blocked.
 * What it guarantees: against any single convex occluder (a wall, pillar, crate, a low wall to see
 * over) the matched corners are exact (./rays gives the separating-plane argument), and the regions
 * hold every eye and body point the bounds allow, so no line of sight is missed.
 * Openings (doorways, windows, gaps between obstacles) are sampled: one wall's opening whose clear
 * part, as seen along the line between the players (so narrowed by the angle and the wall's
 * thickness), holds an openingM x openingM square is found; a narrower one may not be: a doorway
 * seen at a grazing angle is a sliver and may pop in while it stays that thin (regions up to
 * (maxGridSide - 1) openingM wide; wider ones get a coarser grid: ./config). Openings one behind
 * the other (a doorway seen through another, or several in a row) are found by the crossing lines
 * when the lines through all of them from the eye region's front chord at the eye's height to the
 * body region's at its middle hold an openingM square of (eye offset, body offset) pairs, for
 * regions up to (2 maxGridSide - 1) openingM wide (doorways; test/fogCrossingLines.test.ts); a
 * window seen through a window at other heights, a thinner set of such lines, lines that exist only
 * from points off those chords and wider regions (a speed measured from a burst of inputs stepped
 * at once) may still be missed. Growing the regions (marginM) widens the bundle of lines but not the spacing
 * between them, so it does not close that gap; openingM is the knob. test/fogVisibility.test.ts
 * checks both statements against dense brute force (reachable eye positions to posed body points)
 * and counts the slivers missed.
 * Outside the rule: teleports (respawn) move a player beyond the bounds: call forget(slot) (the pair
 * is visible until re-tested there), or pick the respawn spot a horizon ahead. Same team (team >= 0,
 * equal) and self are visible; a dead enemy is hidden (no body to draw); a player with non-finite
 * numbers is visible to everyone.
 *
 * Moving points (seesPoint: a projectile, a blast): the same lines between the viewer's eye region
 * and an upright prism holding where the point can be within the viewer's body horizon (its arc up
 * to a contact, or the ball its speed and gravity reach when a contact may turn it, grown by its
 * radius): the same guarantees, nothing cached.
 *
 * Cost, per update (one per patch). A visible pair re-tests first the line that was clear last time
 * (usually one ray) and, with visibleHoldTicks, stays visible that many updates untested (visible is
 * the safe side). A hidden pair casts every line: it dominates the rays. It is tested on regions
 * grown by hiddenSlackM across and hiddenSlackYM up and down, covering hiddenLeadS of each player's
 * current motion; while both players' current regions stay inside the grown ones the verdict stands
 * untested (a superset was judged hidden: the same argument, the same limits). A pair hidden when
 * last tested is re-tested first on regions grown hiddenWiden times more (slack and lead): hidden
 * there, the verdict stands longer; a clear line there (tried first next time) and it is tested on
 * the usual grown regions, so what is withheld does not shrink. A hidden verdict stands for regions
 * inside the tested ones only when the test's crossing lines kept to openingM (regions too wide for
 * their cap are tested coarser, a verdict for those regions alone; a wide test that coarse is not
 * taken, the usual grown regions are tested; a grown one that coarse is not either, the plain
 * regions' own lines, the eye's among them, then decide; the matched grid's coarser spacing past its own cap is
 * the limit stated above, cached or not). Each ray tries a few
 * triangles before the BVH (bvhAnyHitCached): the one that blocked the same line of the pair at its
 * last test (./lineMemory: a pool of records, per line of a pair that was not visible by its first
 * line), the four that blocked the latest rays, and the triangles across the edges of the remembered
 * one (a wall is several triangles); only hints, every one tested exactly, so no verdict and no ray
 * count depends on them. Regions are built once per update, tier and slot and copied per pair. On
 * the default level at 32 players (test/bench/fog.bench.ts) about 2,100 rays an update, a walk down
 * the tree still about half of the time. maxDistance hides pairs beyond a client's draw distance
 * without rays; maxRaysPerUpdate caps the work, pairs left untested are visible. No cell-to-cell
 * visibility table is built with the level (not done). Flat typed arrays indexed by slot and pair;
 * update() allocates nothing.
 */
import { climbCell, floorUnder } from './climb';
import { edgeNeighbours, LineMemory } from './lineMemory';
import type { FogConfig } from './config';
import { bvhAnyHitCached, type BvhArrays } from '../bvh/traverse';
import { horizonSeconds, jumpRise, MAX_HORIZON_S, reachInto, V_DROP, V_H, V_REACH, V_RISE, V_SLOPE, V_STEP, V_VY, VERTICAL_STRIDE, verticalInto, walkRise } from './reach';
import { FIXED_RAYS, G_CROSS_FINE, G_SPACING, GRID_STRIDE, P_CX, P_CZ, P_EYE, P_MID, P_R, P_Y0, P_Y1, PRISM_STRIDE, prismInside, rayCount, rayEnds, sizeGrid } from './rays';

export { fogConfigOf, type FogConfig } from './config';

/**
 * The world query fog of war needs: is the segment blocked? shared/world/world.ts World has it, and
 * its BVH arrays, which are then queried directly with the segment in an array (the same query
 * World.anyHit makes, without six double arguments V8 would box on every call).
 */
export interface FogWorld {
  anyHit(sx: number, sy: number, sz: number, ex: number, ey: number, ez: number): boolean;
  arrays?(): BvhArrays;
}

/**
 * FogOfWar.point (see seesPoint): position, velocity m/s, gravity m/s^2 (downward), radius m, lead s,
 * and turns: 1 when it may change direction on a contact (a bounce), 0 when a contact ends it.
 */
export const POINT_STRIDE = 10;
export const Q_X = 0, Q_Y = 1, Q_Z = 2, Q_VX = 3, Q_VY = 4, Q_VZ = 5, Q_GRAVITY = 6, Q_RADIUS = 7, Q_LEAD = 8, Q_TURNS = 9;

/** Numbers cached per pair: the two grown regions of the last hidden verdict. */
const CACHE = 2 * PRISM_STRIDE;
/** Height above the floor under a player where its region starts, metres (see place()). */
const FLOOR_LIFT = 0.01;
/** The head's line aims this far below the top of the body envelope, metres. */
const HEAD_BELOW_TOP = 0.1;
const J = PRISM_STRIDE;
/** Triangles kept as likely occluders (FogOfWar.blocked). */
const OCCLUDERS = 4;
/** Most lines of a pair whose blocking triangles are remembered (./lineMemory), and records per player slot. */
const LINE_MEMORY_WIDTH = 256, LINE_MEMORY_PER_SLOT = 8;
/** ./reach reachInto's scratch: the horizon, a speed, the eye's reach, the body's. */
const R_H = 0, R_S = 1, R_EYE = 2, R_BODY = 3;
/** Regions as the players' bounds give them, grown by the slack and lead (a verdict that lasts), grown hiddenWiden times more. */
const PLAIN = 0, GROWN = 1, WIDE = 2;

export class FogOfWar {
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
  /** Per viewer slot (setTiming), seconds: how far ahead its eye and others' bodies must be covered. */
  readonly horizon: Float64Array;
  readonly bodyHorizon: Float64Array;
  /** Per ordered pair (viewer * capacity + enemy): 1 when the enemy must be sent to the viewer. */
  readonly visible: Uint8Array;
  /** The point seesPoint tests (POINT_STRIDE numbers, Q_X ..): written by the caller before each call. */
  readonly point = new Float64Array(POINT_STRIDE);
  /** Of the last update: rays cast, pairs tested with rays, pairs made visible by the ray cap, ordered enemy pairs, those visible. */
  rays = 0;
  pairsTested = 0;
  pairsOverBudget = 0;
  enemyPairs = 0;
  enemyVisible = 0;
  /** Per ordered pair (viewer * capacity + enemy): its verdict and memory. */
  private readonly pairVisible: Uint8Array;
  private readonly lastRay: Int16Array;
  private readonly hold: Uint16Array;
  private readonly cached: Uint8Array;
  private readonly cache: Float64Array;
  /** Per slot, set by prepare(): horizontal speed m/s, walking slope and step near it, the floor under it (./climb floorUnder). */
  private readonly speed: Float64Array;
  private readonly slope: Float64Array;
  private readonly step: Uint8Array;
  private readonly floor: Float64Array;
  /** Scratch: the current regions, the grown ones, the grid, one ray's ends. */
  private readonly reg = new Float64Array(2 * PRISM_STRIDE);
  private readonly grown = new Float64Array(2 * PRISM_STRIDE);
  private readonly grid = new Float64Array(GRID_STRIDE);
  private readonly seg = new Float64Array(7);
  /** Scratch for reachOf: a horizon and a speed in, two reaches out. */
  private readonly rr = new Float64Array(4);
  /** Scratch: ./reach verticalInto's numbers, and place()'s radius and heights. */
  private readonly vert = new Float64Array(VERTICAL_STRIDE);
  private readonly pl = new Float64Array(3);
  /**
   * Per tier (PLAIN, GROWN, WIDE) and slot: its eye and body regions as built in the update stamped
   * (the body's over the horizon in bodyKey), PRISM_STRIDE numbers each.
   */
  private readonly eyeMemo: Float64Array;
  private readonly bodyMemo: Float64Array;
  private readonly eyeStamp: Int32Array;
  private readonly bodyStamp: Int32Array;
  private readonly bodyKey: Float64Array;
  private readonly bvh: BvhArrays | null;
  /**
   * Tried before the tree (-1: none): at 0 the triangle that blocked this line at its pair's last test
   * (./lineMemory); at 1..OCCLUDERS the triangles that blocked the latest rays, newest first (most
   * rays of a hidden pair meet one wall); then the three across the edges of the one at 0.
   */
  private readonly occluders = new Int32Array(1 + OCCLUDERS + 3).fill(-1);
  /** The triangles across each edge of each triangle (./lineMemory edgeNeighbours), tried after the occluders for a remembered line. */
  private readonly neighbours: Int32Array;
  /** Hidden pairs' blocking triangles per line (null without the BVH arrays), and the entry of the line being cast (-1: none). */
  private readonly lines: LineMemory | null;
  private lineAt = -1;
  private updates = 0;

  constructor(private readonly world: FogWorld, private readonly cfg: FogConfig, capacity: number) {
    if (!(capacity >= 1 && capacity <= 256 && Math.floor(capacity) === capacity)) throw new Error('FogOfWar: capacity must be an integer 1..256.');
    if (!(cfg.openingM > 0) || !(cfg.maxGridSide >= 2 && cfg.maxGridSide <= 64)) throw new Error('FogOfWar: openingM must be > 0 and maxGridSide 2..64.');
    if (!(cfg.hiddenWiden >= 1 && cfg.hiddenWiden <= 16)) throw new Error('FogOfWar: hiddenWiden must be 1..16.');
    this.capacity = capacity;
    this.bvh = typeof world.arrays === 'function' ? world.arrays() : null;
    this.grid[G_SPACING] = cfg.openingM;
    const n = capacity, nn = n * n;
    this.present = new Uint8Array(n);
    this.alive = new Uint8Array(n);
    this.team = new Int32Array(n).fill(-1);
    this.px = new Float64Array(n); this.py = new Float64Array(n); this.pz = new Float64Array(n);
    this.vx = new Float64Array(n); this.vy = new Float64Array(n); this.vz = new Float64Array(n);
    this.eye = new Float64Array(n);
    this.speedFloor = new Float64Array(n);
    this.catchUp = new Float64Array(n);
    this.horizon = new Float64Array(n).fill(MAX_HORIZON_S);
    this.bodyHorizon = new Float64Array(n).fill(MAX_HORIZON_S);
    this.visible = new Uint8Array(nn);
    this.pairVisible = new Uint8Array(nn);
    this.lastRay = new Int16Array(nn).fill(-1);
    this.hold = new Uint16Array(nn);
    this.cached = new Uint8Array(nn);
    this.cache = new Float64Array(nn * CACHE);
    // The crossing lines keep to openingM up to twice maxGridSide a side (./rays).
    const side = cfg.maxGridSide * cfg.maxGridSide, mostLines = FIXED_RAYS + (cfg.fans ? 3 : 1) * side + (cfg.crossLines ? 4 * side : 0);
    this.neighbours = this.bvh === null ? new Int32Array(0) : edgeNeighbours(this.bvh.tris);
    this.lines = this.bvh === null ? null : new LineMemory(nn, Math.min(nn, LINE_MEMORY_PER_SLOT * n), Math.min(mostLines, LINE_MEMORY_WIDTH));
    this.speed = new Float64Array(n);
    this.slope = new Float64Array(n);
    this.step = new Uint8Array(n);
    this.floor = new Float64Array(n);
    this.eyeMemo = new Float64Array(3 * n * J);
    this.bodyMemo = new Float64Array(3 * n * J);
    this.eyeStamp = new Int32Array(3 * n).fill(-1);
    this.bodyStamp = new Int32Array(3 * n).fill(-1);
    this.bodyKey = new Float64Array(3 * n);
  }

  /** Puts a player in slot s (or updates it): feet position, velocity, eye height, alive, team (-1: none). */
  setPlayer(s: number, x: number, y: number, z: number, vx: number, vy: number, vz: number, eyeHeight: number, alive: boolean, team: number): void {
    if (!(s >= 0 && s < this.capacity)) return;
    this.present[s] = 1;
    this.px[s] = x; this.py[s] = y; this.pz[s] = z;
    this.vx[s] = vx; this.vy[s] = vy; this.vz[s] = vz;
    this.eye[s] = eyeHeight;
    this.alive[s] = alive ? 1 : 0;
    this.team[s] = Number.isInteger(team) ? team : -1;
  }

  /** Takes slot s out of the match; its pairs' memory is cleared. */
  removePlayer(s: number): void {
    if (!(s >= 0 && s < this.capacity)) return;
    this.present[s] = 0;
    this.speedFloor[s] = 0;
    this.catchUp[s] = 0;
    this.horizon[s] = MAX_HORIZON_S;
    this.bodyHorizon[s] = MAX_HORIZON_S;
    this.forget(s);
  }

  /**
   * Viewer s's timing, ms: its one-way delay, the interpolation delay it renders others with, the
   * patch interval and a safety margin. Its eye is covered over all four, others' bodies over patch
   * + safety (or all four with enemyFullHorizon), each plus one movement tick; see the module
   * comment. A value that is negative or not finite gives both the longest horizon (./reach horizonSeconds).
   */
  setTiming(s: number, oneWayMs: number, interpMs: number, patchMs: number, safetyMs: number): void {
    if (!(s >= 0 && s < this.capacity)) return;
    // One tick more: players move in whole ticks (./reach).
    const h = horizonSeconds(oneWayMs, interpMs, patchMs, safetyMs), tick = this.cfg.motion.tickS;
    this.horizon[s] = h + tick;
    this.bodyHorizon[s] = (this.cfg.enemyFullHorizon || h === MAX_HORIZON_S ? h : horizonSeconds(0, 0, patchMs, safetyMs)) + tick;
  }

  /** Drops what is remembered about slot s's pairs (call on a teleport: respawn, epoch change). */
  forget(s: number): void {
    if (!(s >= 0 && s < this.capacity)) return;
    const n = this.capacity;
    for (let o = 0; o < n; o++) {
      this.reset(s * n + o);
      this.reset(o * n + s);
    }
  }

  /** Pair p re-tested at the next update, visible until then. */
  private reset(p: number): void {
    if (this.lines !== null) this.lines.release(p);
    this.hold[p] = 0;
    this.cached[p] = 0;
    this.lastRay[p] = -1;
    this.pairVisible[p] = 1;
  }

  /** Whether slot `enemy` must be sent to slot `viewer` (after the last update). */
  isVisible(viewer: number, enemy: number): boolean {
    return viewer >= 0 && viewer < this.capacity && enemy >= 0 && enemy < this.capacity && this.visible[viewer * this.capacity + enemy] === 1;
  }

  /**
   * Whether viewer v must be sent the moving point in `point` (POINT_STRIDE numbers, Q_X ..: a
   * projectile, a blast) before the next patch is on its screen. Within t = lead + v's body horizon
   * (lead: how much older the point's state is than the players') the point is on its arc (x + vx t,
   * y + vy t - gravity t^2 / 2, z + vz t) up to a contact when it does not turn, and anywhere within
   * speed * t + gravity * t^2 / 2 of where it is when it may (a bounce); an upright prism holding
   * that arc's (or ball's) points grown by radius + marginM is tested against v's eye region like an
   * enemy's body (the same lines, so the same guarantees: exact against one convex occluder,
   * openings of openingM found). True when a line is clear, and on the safe side: v not present, a
   * number not finite, the ray cap spent. Call after update() (it uses the per-slot state update
   * prepared); rays counts its rays. Allocates nothing.
   */
  seesPoint(v: number): boolean {
    if (!(v >= 0 && v < this.capacity) || this.present[v] === 0) return true;
    const reg = this.reg, cfg = this.cfg;
    this.eyeRegion(reg, 0, v, PLAIN);
    this.pointRegion(reg, J, v);
    let check = 0;
    for (let k = 0; k < 2 * PRISM_STRIDE; k++) check += reg[k];
    if (!(check - check === 0) || !(reg[J + P_R] >= 0)) return true;
    if (cfg.maxDistance < Infinity) {
      const dx = reg[P_CX] - reg[J + P_CX], dz = reg[P_CZ] - reg[J + P_CZ];
      const reach = cfg.maxDistance + reg[P_R] + reg[J + P_R];
      if (dx * dx + dz * dz > reach * reach) return false;
    }
    if (this.rays >= cfg.maxRaysPerUpdate) return true;
    sizeGrid(this.grid, reg, cfg.maxGridSide, cfg.fans, cfg.crossLines);
    return this.anyClear(reg, -1, -1) >= 0;
  }

  /**
   * The prism of seesPoint's point over its lead plus viewer v's body horizon at out[o..]: its arc's
   * bounds, or its ball when it may turn. (Slots only cross the call: a double argument would be boxed.)
   */
  private pointRegion(out: Float64Array, o: number, v: number): void {
    const p = this.point, t = p[Q_LEAD] + this.bodyHorizon[v], grow = p[Q_RADIUS] + this.cfg.marginM, x = p[Q_X], y = p[Q_Y], z = p[Q_Z];
    const vx = p[Q_VX], vy = p[Q_VY], vz = p[Q_VZ], g = p[Q_GRAVITY];
    // An upward gravity is no arc this bounds: the ball then, as for a turn.
    if (p[Q_TURNS] !== 0 || g < 0) {
      const d = Math.sqrt(vx * vx + vy * vy + vz * vz) * t + 0.5 * Math.abs(g) * t * t + grow;
      out[o + P_CX] = x; out[o + P_CZ] = z; out[o + P_R] = d;
      out[o + P_Y0] = y - d; out[o + P_Y1] = y + d;
      out[o + P_EYE] = y; out[o + P_MID] = y;
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
  }

  /**
   * Decides every ordered pair from the players' current state (one call per patch). Viewers are
   * visited from a row that moves on each update, so a ray cap never starves the same pairs.
   */
  update(): void {
    const n = this.capacity;
    this.rays = 0;
    this.pairsTested = 0;
    this.pairsOverBudget = 0;
    this.enemyPairs = 0;
    this.enemyVisible = 0;
    this.prepare();
    const first = this.updates++ % n;
    for (let k = 0; k < n; k++) {
      const v = (first + k) % n;
      const row = v * n;
      for (let e = 0; e < n; e++) {
        const p = row + e;
        if (this.present[v] === 0 || this.present[e] === 0) { this.visible[p] = 0; continue; }
        if (e === v || (this.team[v] >= 0 && this.team[v] === this.team[e])) { this.visible[p] = 1; continue; }
        this.enemyPairs++;
        const vis = this.alive[e] === 0 ? 0 : this.decide(v, e, p);
        this.visible[p] = vis;
        this.enemyVisible += vis;
      }
    }
  }

  /** One ordered pair (memory at p): held, cached, over the ray cap, or tested. */
  private decide(v: number, e: number, p: number): number {
    if (this.pairVisible[p] === 1 && this.hold[p] > 0) {
      this.hold[p]--;
      return 1;
    }
    const reg = this.reg, cfg = this.cfg;
    if (!this.regions(reg, v, e, PLAIN)) return this.verdict(p, 1);
    if (cfg.maxDistance < Infinity) {
      const dx = reg[P_CX] - reg[J + P_CX], dz = reg[P_CZ] - reg[J + P_CZ];
      const reach = cfg.maxDistance + reg[P_R] + reg[J + P_R];
      if (dx * dx + dz * dz > reach * reach) return this.verdict(p, 0);
    }
    const c = p * CACHE;
    if (this.pairVisible[p] === 0 && this.cached[p] === 1 && prismInside(reg, 0, this.cache, c) && prismInside(reg, J, this.cache, c + J)) {
      return 0;
    }
    if (this.rays >= cfg.maxRaysPerUpdate) {
      this.pairsOverBudget++;
      return this.verdict(p, 1);
    }
    this.pairsTested++;
    const grown = this.grown;
    // A pair hidden last time: first the wide regions (a superset of the grown ones, so hidden there
    // is hidden here, and the verdict stands longer); their clear line, if any, is tried first next time.
    let wideClear = -1;
    if (this.pairVisible[p] === 0 && cfg.hiddenWiden > 1 && (cfg.hiddenSlackM > 0 || cfg.hiddenSlackYM > 0)) {
      this.regions(grown, v, e, WIDE);
      sizeGrid(this.grid, grown, cfg.maxGridSide, cfg.fans, cfg.crossLines);
      wideClear = this.anyClear(grown, this.lastRay[p], p);
      // Hidden there stands only when its crossing lines kept to openingM (else the grown regions are tested).
      if (wideClear < 0 && this.grid[G_CROSS_FINE] === 1) return this.hidden(p, c);
    }
    this.regions(grown, v, e, GROWN);
    sizeGrid(this.grid, grown, cfg.maxGridSide, cfg.fans, cfg.crossLines);
    const clear = this.anyClear(grown, this.lastRay[p], p);
    if (clear >= 0) {
      this.verdict(p, 1);
      this.lastRay[p] = clear;
      return 1;
    }
    const fine = this.grid[G_CROSS_FINE];
    if (fine !== 1) {
      // Hidden on grown regions tested coarser than openingM says nothing of the plain regions
      // inside them (their lines, the eye's own among them, may pass between the coarse ones): the
      // plain regions' own lines decide.
      sizeGrid(this.grid, reg, cfg.maxGridSide, cfg.fans, cfg.crossLines);
      const own = this.anyClear(reg, -1, -1);
      if (own >= 0) {
        this.verdict(p, 1);
        this.lastRay[p] = own;
        return 1;
      }
      this.grid[G_CROSS_FINE] = fine;
    }
    this.hidden(p, c);
    this.lastRay[p] = wideClear;
    return 0;
  }

  /**
   * Records pair p hidden on the regions in `grown`, kept at cache[c..] (the verdict stands while
   * the plain regions stay inside) when the grid they were tested with (this.grid) kept to openingM.
   */
  private hidden(p: number, c: number): number {
    this.verdict(p, 0);
    // Kept only when the crossing lines kept to openingM: a coarser test of wide regions (a speed
    // measured from a burst of inputs) is not the verdict for the narrower regions inside them.
    if (this.grid[G_CROSS_FINE] === 1) {
      this.cached[p] = 1;
      this.cache.set(this.grown, c);
    }
    return 0;
  }

  /** Records a verdict for pair p with no line or cache remembered; a visible one is held. */
  private verdict(p: number, vis: number): number {
    if (vis === 1 && this.lines !== null) this.lines.release(p);
    this.pairVisible[p] = vis;
    this.hold[p] = vis === 1 ? this.cfg.visibleHoldTicks : 0;
    this.cached[p] = 0;
    this.lastRay[p] = -1;
    return vis;
  }

  /**
   * The first clear line between the regions in r (line `first` tried first), or -1. For pair p (-1:
   * none) the lines' blocking triangles are remembered (./lineMemory) once one more line than the
   * first is cast: a pair found visible by that line keeps no record.
   */
  private anyClear(r: Float64Array, first: number, p: number): number {
    const seg = this.seg, g = this.grid, count = rayCount(g);
    this.lineAt = -1;
    let mem = -1, width = 0;
    if (first >= 0 && first < count) {
      rayEnds(seg, first, r, g);
      if (!this.blocked()) return first;
    }
    if (p >= 0 && this.lines !== null) {
      mem = this.lines.acquire(p);
      width = this.lines.width;
    }
    for (let i = 0; i < count; i++) {
      if (i === first) continue;
      rayEnds(seg, i, r, g);
      this.lineAt = i < width ? mem + i : -1;
      if (!this.blocked()) return i;
    }
    return -1;
  }

  /**
   * Whether the segment in seg meets the level (one ray): the line's remembered triangle (at lineAt)
   * and the occluders are tried first; the triangle met is remembered and joins the front of the occluders.
   */
  private blocked(): boolean {
    this.rays++;
    const seg = this.seg;
    if (this.bvh === null || this.lines === null) return this.world.anyHit(seg[0], seg[1], seg[2], seg[3], seg[4], seg[5]);
    const occ = this.occluders, at = this.lineAt, tri = this.lines.tri, nb = this.neighbours;
    const last = at >= 0 ? tri[at] : -1;
    occ[0] = last;
    const m = last >= 0 && last + 2 < nb.length ? 3 : 0;
    for (let j = 0; j < m; j++) occ[1 + OCCLUDERS + j] = nb[last + j];
    const k = bvhAnyHitCached(this.bvh, seg, occ, 1 + OCCLUDERS + m);
    if (at >= 0) tri[at] = k;
    if (k < 0) return false;
    if (occ[1] !== k) {
      let j = 2;
      while (j < OCCLUDERS && occ[j] !== k) j++;
      for (; j > 1; j--) occ[j] = occ[j - 1];
      occ[1] = k;
    }
    return true;
  }

  /**
   * Writes viewer v's eye region (at 0) and enemy e's body region (at PRISM_STRIDE) over v's
   * horizons; GROWN: hiddenSlackM wider, hiddenSlackYM taller both ways and covering hiddenLeadS of
   * their motion (see the module comment); WIDE: all three hiddenWiden times as much. False when a
   * number is not finite. (The tier and slots only cross the call: a double argument would be boxed.)
   */
  private regions(out: Float64Array, v: number, e: number, tier: number): boolean {
    // Each region is built once per update, tier and slot (the body's also per horizon: its key).
    const n = this.capacity, stamp = this.updates | 0, em = tier * n + v, bm = tier * n + e, rr = this.rr;
    if (this.eyeStamp[em] !== stamp) {
      this.eyeRegion(this.eyeMemo, em * J, v, tier);
      this.eyeStamp[em] = stamp;
    }
    // Written through the scratch array: a double kept in a local here was boxed.
    rr[R_H] = this.bodyHorizon[v] + this.catchUp[e];
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
    let check = 0;
    for (let k = 0; k < 2 * PRISM_STRIDE; k++) check += out[k];
    return check - check === 0;
  }

  /** Writes enemy e's body region over rr[R_H] seconds at out[o..] (grown as in regions()). */
  private bodyRegion(out: Float64Array, o: number, e: number, tier: number): void {
    const k = this.slackTimes(tier), body = this.cfg.body, g = this.cfg.marginM + k * this.cfg.hiddenSlackM;
    const gy = this.cfg.marginM + k * this.cfg.hiddenSlackYM;
    const rr = this.rr, pl = this.pl;
    this.reachOf(R_BODY, e);
    this.vertical(e, R_BODY);
    // The body: the envelope moved over hb; never below the floor under the enemy.
    const fy = this.py[e], vt = this.vert;
    pl[0] = body.radius + rr[R_BODY] + g;
    pl[1] = fy + body.bottom - vt[V_DROP] - gy;
    pl[2] = fy + body.top + vt[V_RISE] + gy;
    this.place(out, o, e, tier);
    out[o + P_EYE] = fy + body.top - HEAD_BELOW_TOP;
    out[o + P_MID] = fy + 0.5 * (body.bottom + body.top);
  }

  /** How many times the slack and lead regions of this tier (PLAIN, GROWN, WIDE) are grown by. */
  private slackTimes(tier: number): number {
    return tier === PLAIN ? 0 : tier === GROWN ? 1 : this.cfg.hiddenWiden;
  }

  /** Writes viewer v's eye region over its horizon at out[o..] (grown as in regions()). */
  private eyeRegion(out: Float64Array, o: number, v: number, tier: number): void {
    const k = this.slackTimes(tier), g = this.cfg.marginM + k * this.cfg.hiddenSlackM;
    const gy = this.cfg.marginM + k * this.cfg.hiddenSlackYM;
    const rr = this.rr, pl = this.pl, vt = this.vert;
    // The eye: never lower than an eye height above the floor under the viewer.
    const eyeY = this.py[v] + this.eye[v];
    rr[R_H] = this.horizon[v];
    this.reachOf(R_EYE, v);
    this.vertical(v, R_EYE);
    const eyeFloor = this.floor[v] + this.eye[v];
    const eyeLo = eyeY - vt[V_DROP];
    pl[0] = rr[R_EYE] + g;
    pl[1] = (eyeLo > eyeFloor ? eyeLo : eyeFloor) - gy;
    pl[2] = eyeY + vt[V_RISE] + gy;
    this.place(out, o, v, tier);
    out[o + P_EYE] = eyeY;
    out[o + P_MID] = eyeY;
  }

  /** vert = ./reach verticalInto for slot s over rr[R_H] seconds and the horizontal reach rr[reach]. */
  private vertical(s: number, reach: number): void {
    const vt = this.vert;
    vt[V_H] = this.rr[R_H]; vt[V_VY] = this.vy[s]; vt[V_REACH] = this.rr[reach];
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
    const lead = tier !== PLAIN && this.cfg.hiddenSlackM > 0 ? 0.5 * this.slackTimes(tier) * this.cfg.hiddenLeadS : 0;
    const vx = this.vx[s], vz = this.vz[s], pl = this.pl;
    out[o + P_CX] = this.px[s] + vx * lead;
    out[o + P_CZ] = this.pz[s] + vz * lead;
    out[o + P_R] = pl[0] + Math.sqrt(vx * vx + vz * vz) * lead;
    const floor = this.floor[s] + FLOOR_LIFT, y0 = pl[1];
    out[o + P_Y0] = y0 > floor ? y0 : floor;
    out[o + P_Y1] = pl[2];
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
  private prepare(): void {
    const n = this.capacity, m = this.cfg.motion, map = this.cfg.climb;
    let hMax = 0;
    for (let i = 0; i < n; i++) if (this.present[i] === 1 && this.horizon[i] > hMax) hMax = this.horizon[i];
    for (let i = 0; i < n; i++) {
      if (this.present[i] === 0) continue;
      const v = Math.sqrt(this.vx[i] * this.vx[i] + this.vz[i] * this.vz[i]), floor = this.speedFloor[i];
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
      const reach = this.rr[R_EYE] + this.cfg.marginM + this.cfg.hiddenSlackM;
      const cell = climbCell(map, this.px[i], this.pz[i], reach);
      this.slope[i] = cell >= 0 ? map.slope[cell] : map.maxSlope;
      this.step[i] = (cell >= 0 ? map.step[cell] === 1 : map.anyStep) ? 1 : 0;
      const walk = walkRise(m, reach, this.slope[i], this.step[i] === 1);
      this.floor[i] = floorUnder(map, cell, this.px[i], this.py[i], this.pz[i], reach, walk, walk + jumpRise(m, this.vy[i], hMax));
    }
  }
}
