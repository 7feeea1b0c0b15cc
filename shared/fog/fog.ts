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
 * A client that takes backfills (server/match/fogFilter setBackfill: the enemy's poses over its delay
 * arrive just ahead of the snapshot that sends it again) has the enemy's data for render time r as
 * soon as the first snapshot at or after r that it received holds the enemy (that snapshot's
 * backfill reaches back past r). So a withheld enemy can be missing from its screen only at render
 * times r within a patch before a snapshot d that withheld it, i.e. at screen times up to d + interp,
 * however late d itself arrives (a TCP retransmission, an asymmetric path): its eye's H is one-way
 * + interp + safety (no patch), and the body is where the enemy was over the patch before d, all of
 * it already in the server's history: the body's region holds where its feet were over that
 * look-back (pastR, pastDrop, pastRise: server/match/fogFeed) and is grown ahead by one tick only
 * (bodyAhead). No down trip enters: the screen's clock places both the eye's stamps and the render
 * time, so safety then takes only that clock's corrections.
 *
 * Regions. The viewer's eye region: its eye (feet + eye height) moved horizontally by up to
 * the reach over H (./reach: from its speed now, growing by at most the acceleration each tick up to the max speed), from the lowest to
 * the highest eye the vertical bounds allow (a jump, ramps and steps near it: ./reach, ./climb),
 * grown by cameraM across, up and down for a client that draws from a camera off the eye (a
 * third-person boom: the camera stays within that distance of the eye and on its side of walls). The
 * enemy's body region: the body envelope (./body: a cylinder about the feet holding every hitbox in
 * every clip) moved the same way over Hb. Both grow by marginM all round (rounding, the rig's sampled
 * frames) and are upright octagonal prisms circumscribing those cylinders. A region stops FLOOR_LIFT
 * above the floor under its player when the level shows the player cannot get lower (./climb
 * floorUnder), and the eye region an eye height above it: nothing under the floor can be seen, and a
 * line run inside a solid floor meets no triangle. With a walk grid (cfg.walk, ./walk) the eye
 * region is cut by the walls the viewer's body cannot cross over its horizon: the cells its feet can
 * reach, flooded from its own through the level's gaps at the heights its wall probe can pass, give
 * an 8-sided region inside the disc (./rays: the sides face k * 45 degrees, so the matched corners
 * stay exact); a body region is not cut (a hand may reach through a thin wall). Without one, a
 * region reaching through a wall the player cannot cross only adds lines (visible is the safe
 * side), which makes players within a couple of metres of a thin wall visible through it.
 *
 * The rule. Visible when ANY of the pair's lines (./rays) is clear of the level (World.anyHit false):
 * the eye to the body's middle and head and to the ends of the body region's side nearest it, the
 * 16 matched corners of the two prisms, and a matched
 * lateral x vertical grid spaced so its lines cross any wall across the line of sight no more than
 * openingM apart, and the crossing lines: every point of the eye region's front chord to every one of
 * the body region's, at its middle and at its head (./rays), which find openings that must line up (optionally, the fans: the eye to the body grid, the eye grid to the body). Hidden
 * when all are blocked.
 * What it guarantees: against any single convex occluder (a wall, pillar, crate, a low wall to see
 * over) the matched corners are exact (./rays gives the separating-plane argument), and the regions
 * hold every eye and body point the bounds allow, so no line of sight is missed.
 * Openings (doorways, windows, gaps between obstacles) are sampled: one wall's opening whose clear
 * part, as seen along the line between the players (so narrowed by the angle and the wall's
 * thickness) and within the bundle of lines between the regions, holds an openingM x openingM
 * square is found; a narrower one may not be: a doorway seen at a grazing angle is a sliver and may
 * pop in while it stays that thin, as may one the bundle mostly passes beside, its jamb leaving a
 * thin part (regions up to (maxGridSide - 1) openingM wide; wider ones get a coarser grid:
 * ./config). Openings one behind
 * the other (a doorway seen through another, or several in a row) and a jamb's thin part are found by the crossing lines
 * when the lines through all of them from the eye region's front chord at the eye's height to the
 * body region's at its middle, or at its head (over low cover by the body), hold a crossOpeningM square of (eye offset, body offset) pairs, for
 * regions up to (2 maxGridSide - 1) openingM wide (doorways; test/fogCrossingLines.test.ts); a
 * window seen through a window at other heights, a thinner set of such lines, lines that exist only
 * from points off those chords and wider regions (a speed measured from a burst of inputs stepped
 * at once) may still be missed. Growing the regions (marginM) widens the bundle of lines but not the spacing
 * between them, so it does not close that gap; openingM and crossOpeningM are the knobs. test/fogVisibility.test.ts
 * checks both statements against dense brute force (reachable eye positions to posed body points)
 * and counts the slivers missed; test/fogPaths.test.ts checks every withheld pair against where 32
 * players walking the rooms level really were within the horizons.
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
 * the safe side) when an aimed line found it (an enemy in sight), half as many when only a line from
 * the regions' edges did (it is near turning hidden, and a hold keeps it sent that much longer). A hidden pair casts every line: it dominates the rays. It is tested on regions
 * grown by hiddenSlackM across and hiddenSlackYM up and down, covering hiddenLeadS of each player's
 * current motion; while both players' current regions stay inside the grown ones the verdict stands
 * untested (a superset was judged hidden: the same argument, the same limits). A pair hidden when
 * last tested is re-tested first on regions grown hiddenWiden times more (slack and lead; their heights
 * also follow a jump or fall over half that lead): hidden there, the verdict stands longer; a clear
 * line there (tried first next time) and it is tested on the usual grown regions, so what is
 * withheld does not shrink. A pair the grown regions show, and a pair visible last time, are decided on the tight regions (hiddenTight times the slack and lead; 1,
 * the default: the grown ones, 0: the plain ones): the grown regions' band costs what they would
 * withhold, and the tight tier takes most of it back (hidden there, the verdict stands while the
 * plain regions stay inside them, an update or two) at more rays for the pairs in that band. A hidden verdict stands for regions
 * inside the tested ones only when the test's crossing lines kept to crossOpeningM (regions too wide for
 * their cap are tested coarser, a verdict for those regions alone; a wide test that coarse is not
 * taken, the usual grown regions are tested; a grown one that coarse is not either, the plain
 * regions' own lines, the eye's among them, then decide; the matched grid's coarser spacing past its own cap is
 * the limit stated above, cached or not). The lines are cast by ./cast: hints tried before the BVH
 * (the triangle that blocked the same line last time, the latest occluders and their neighbours),
 * which change no verdict, and an exact shortcut: a family of lines whose extreme lines meet one
 * convex piece of the level (./pieces), or a family of crossing lines whose outer lines a chain of
 * triangles joins within their plane (./chain), is blocked whole, so the rest are not cast. Regions
 * are built once per update, tier and slot (./regions). Rays per update: test/bench/fog.bench.ts.
 * maxDistance hides pairs beyond a client's draw distance without rays; maxRaysPerUpdate caps the work: pairs left untested are sent that update, keep their
 * memory, and go first at the next (update()), so a crowd's burst of tests is spread over updates
 * instead of one long tick, at the price of what they would withhold meanwhile. A precise viewer
 * (precise[v], from ./precision) is decided as with hiddenTight 0 and holds only aimed-line verdicts:
 * more withheld at more rays, with the plain rule's limits (test/fogPrecision.test.ts). No cell-to-cell
 * visibility table is built with the level: a cell pair's test would hold any eye and body height in
 * the cells, and the crossing lines (openings in a row) are only sampled at the players' own eye and
 * body heights, so its hidden verdict would not carry their guarantee. Flat typed arrays indexed by slot and pair;
 * update() allocates nothing.
 */
import { FogLines, type FogWorld } from './cast';
import { FogSlots } from './slots';
import type { FogConfig } from './config';
import { horizonSeconds, MAX_HORIZON_S } from './reach';
import { CROSS_ROWS, FIXED_RAYS, G_CROSS_FINE, G_CROSS_MAX, GRID_STRIDE, initGrid, P_CX, P_CZ, P_R, PRISM_STRIDE, prismInside, sizeGrid } from './rays';
import { FogRegions, GROWN, PLAIN, POINT_STRIDE, TIGHT, WIDE } from './regions';

export { FOG_NO_CACHES, fogConfigOf, type FogConfig } from './config';

export type { FogWorld } from './cast';

/**
 * FogOfWar.point (see seesPoint): position, velocity m/s, gravity m/s^2 (downward), radius m, lead s,
 * and turns: 1 when it may change direction on a contact (a bounce), 0 when a contact ends it.
 */
export { POINT_STRIDE, Q_X, Q_Y, Q_Z, Q_VX, Q_VY, Q_VZ, Q_GRAVITY, Q_RADIUS, Q_LEAD, Q_TURNS } from './regions';

/** Numbers cached per pair: the two grown regions of the last hidden verdict. */
const CACHE = 2 * PRISM_STRIDE;
/** FogOfWar.cached: no hidden verdict kept, one kept, one kept from the tight regions (the grown ones showed the pair). */
const NOT_CACHED = 0, CACHED = 1, TIGHT_CACHED = 2;
const J = PRISM_STRIDE;

export class FogOfWar extends FogSlots {
  /** Per ordered pair (viewer * capacity + enemy): 1 when the enemy must be sent to the viewer. */
  readonly visible: Uint8Array;
  /** The point seesPoint tests (POINT_STRIDE numbers, Q_X ..): written by the caller before each call. */
  readonly point = new Float64Array(POINT_STRIDE);
  /** Of the last update: rays cast (with seesPoint's since), triangles the chains crossed (./chain), pairs tested with rays, pairs sent untested for the ray cap, ordered enemy pairs, those visible. */
  get rays(): number { return this.cast.rays; }
  /** The settings it was built with (read only). */
  get config(): Readonly<FogConfig> { return this.cfg; }
  get chainSteps(): number { return this.cast.chainSteps; }
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
  /** The regions of each update (./regions), built from the per-slot arrays above. */
  private readonly built: FogRegions;
  /** Scratch: the current regions, the grown ones, the grid, one ray's ends. */
  private readonly reg = new Float64Array(2 * PRISM_STRIDE);
  private readonly grown = new Float64Array(2 * PRISM_STRIDE);
  private readonly grid = new Float64Array(GRID_STRIDE);
  /** The lines cast (./cast). */
  private readonly cast: FogLines;
  private updates = 0;
  /** The viewer row at which the last update's ray cap ran out (-1: it did not): the next update starts there. */
  private starvedRow = -1;
  /** Whether the grown regions differ from the plain ones (a slack set: the lead moves them only with it; ./regions), so hidden verdicts can stand. */
  private readonly grows: boolean;
  /** The tier whose regions decide a pair the wide and grown ones do not (./config hiddenTight). */
  private readonly tightTier: number;

  constructor(world: FogWorld, private readonly cfg: FogConfig, capacity: number) {
    super(capacity);
    if (!(cfg.openingM > 0 && cfg.crossOpeningM > 0) || !(cfg.maxGridSide >= 2 && cfg.maxGridSide <= 64)) throw new Error('FogOfWar: openingM and crossOpeningM must be > 0 and maxGridSide 2..64.');
    if (!(cfg.hiddenWiden >= 1 && cfg.hiddenWiden <= 16)) throw new Error('FogOfWar: hiddenWiden must be 1..16.');
    if (!(cfg.hiddenTight >= 0 && cfg.hiddenTight <= 1)) throw new Error('FogOfWar: hiddenTight must be 0..1.');
    initGrid(this.grid, cfg.openingM, cfg.crossOpeningM, cfg.maxGridSide);
    const n = capacity, nn = n * n;
    this.visible = new Uint8Array(nn);
    this.pairVisible = new Uint8Array(nn);
    this.lastRay = new Int16Array(nn).fill(-1);
    this.hold = new Uint16Array(nn);
    this.cached = new Uint8Array(nn);
    this.cache = new Float64Array(nn * CACHE);
    const side = cfg.maxGridSide * cfg.maxGridSide, crossSide = this.grid[G_CROSS_MAX]!;
    const mostLines = FIXED_RAYS + (cfg.fans ? 3 : 1) * side + (cfg.crossLines ? CROSS_ROWS * crossSide * crossSide : 0);
    this.cast = new FogLines(world, nn, n, mostLines);
    this.built = new FogRegions(cfg, this);
    this.grows = cfg.hiddenSlackM > 0 || cfg.hiddenSlackYM > 0;
    this.tightTier = cfg.hiddenTight >= 1 ? GROWN : cfg.hiddenTight > 0 ? TIGHT : PLAIN;
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
    this.stall[s] = 0;
    this.pastR[s] = 0;
    this.pastDrop[s] = 0;
    this.pastRise[s] = 0;
    this.horizon[s] = MAX_HORIZON_S;
    this.bodyHorizon[s] = MAX_HORIZON_S;
    this.bodyAhead[s] = MAX_HORIZON_S;
    this.precise[s] = 0;
    this.forget(s);
  }

  /**
   * Viewer s's timing, ms: its one-way delay (its eye's lead), the interpolation delay it renders
   * others with, the patch interval and a safety margin; `backfill` when its client takes backfills.
   * Its eye is covered over all four (without the patch for a backfill client), a moving point over
   * patch + safety (or all four with enemyFullHorizon), others' bodies as the point or, for a
   * backfill client, not beyond their newest snapshot; each plus one movement tick; see the module
   * comment. A value that is negative or not finite gives the longest horizons (./reach horizonSeconds).
   */
  setTiming(s: number, oneWayMs: number, interpMs: number, patchMs: number, safetyMs: number, backfill = false): void {
    if (!(s >= 0 && s < this.capacity)) return;
    // One tick more: players move in whole ticks (./reach).
    const h = patchMs >= 0 ? horizonSeconds(oneWayMs, interpMs, backfill ? 0 : patchMs, safetyMs) : MAX_HORIZON_S, tick = this.cfg.motion.tickS;
    const full = this.cfg.enemyFullHorizon || h === MAX_HORIZON_S;
    this.horizon[s] = h + tick;
    this.bodyHorizon[s] = (full ? h : horizonSeconds(0, 0, patchMs, safetyMs)) + tick;
    this.bodyAhead[s] = backfill && !full ? tick : this.bodyHorizon[s];
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
    this.cast.release(p);
    this.hold[p] = 0;
    this.cached[p] = NOT_CACHED;
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
   * number not finite, the ray cap spent. Call after update(): v's eye region is the one it built
   * (built once an update for all points); rays counts its rays. Allocates nothing.
   */
  seesPoint(v: number): boolean {
    if (!(v >= 0 && v < this.capacity) || this.present[v] === 0) return true;
    const reg = this.reg, cfg = this.cfg;
    this.built.eyeOf(reg, 0, v, PLAIN);
    this.built.pointRegion(reg, J, v, this.point);
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
    return this.cast.anyClear(reg, this.grid, -1, -1) >= 0;
  }

  /**
   * Decides every ordered pair from the players' current state (one call per patch). Viewers are
   * visited from a row that moves on each update, or, when the last update's ray cap ran out, from
   * the row it ran out at: the pairs it left untested go first, so under a cap every pair is tested
   * in turn.
   */
  update(): void {
    const n = this.capacity;
    this.cast.clearCounts();
    this.pairsTested = 0;
    this.pairsOverBudget = 0;
    this.enemyPairs = 0;
    this.enemyVisible = 0;
    this.built.prepare(this.updates);
    const first = this.starvedRow >= 0 ? this.starvedRow : this.updates % n;
    this.updates++;
    this.starvedRow = -1;
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
    const precise = this.precise[v] === 1;
    // A precise viewer holds only a verdict an aimed line found (lastRay 0 or 1, see visibleBy).
    if (this.pairVisible[p] === 1 && this.hold[p] > 0 && !(precise && this.lastRay[p] >= 2)) {
      this.hold[p]--;
      return 1;
    }
    const reg = this.reg, cfg = this.cfg;
    if (!this.built.regions(reg, v, e, PLAIN)) return this.verdict(p, 1);
    if (cfg.maxDistance < Infinity) {
      const dx = reg[P_CX] - reg[J + P_CX], dz = reg[P_CZ] - reg[J + P_CZ];
      const reach = cfg.maxDistance + reg[P_R] + reg[J + P_R];
      if (dx * dx + dz * dz > reach * reach) return this.verdict(p, 0);
    }
    const c = p * CACHE;
    if (this.pairVisible[p] === 0 && this.cached[p] !== NOT_CACHED && prismInside(reg, 0, this.cache, c) && prismInside(reg, J, this.cache, c + J)) {
      return 0;
    }
    if (this.rays >= cfg.maxRaysPerUpdate) {
      // Sent this update, its memory kept: no hold, so it is tested as soon as the cap allows, and a
      // hidden verdict whose regions hold the plain ones again stands (the containment does not
      // depend on the updates between).
      this.pairsOverBudget++;
      if (this.starvedRow < 0) this.starvedRow = v;
      return 1;
    }
    this.pairsTested++;
    const grown = this.grown, grid = this.grid, first = this.lastRay[p], visible = this.pairVisible[p] === 1;
    // Hidden last time: first the wide regions (a superset of the grown ones, so hidden there is
    // hidden here, and the verdict stands longer), then the grown ones; hidden on either, the verdict
    // stands while the plain regions stay inside them. Their clear line is tried first next time.
    let clear = -1, seen = -1;
    if (!visible && this.grows) {
      // A pair hidden last on the tight regions (the grown ones showed it) skips the wide ones.
      if (cfg.hiddenWiden > 1 && this.cached[p] !== TIGHT_CACHED) {
        clear = this.tierClear(grown, v, e, WIDE, first, p);
        // Hidden there stands only when its crossing lines kept to their spacing (else the grown regions are tested).
        if (clear < 0 && grid[G_CROSS_FINE] === 1) return this.hidden(p, c, grown);
      }
      seen = this.tierClear(grown, v, e, GROWN, clear >= 0 ? clear : first, p);
      if (seen < 0 && grid[G_CROSS_FINE] === 1) return this.hidden(p, c, grown, clear);
      if (seen >= 0) clear = seen;
    }
    // With hiddenTight 1 the grown regions are the tight ones: their clear line is the verdict, and
    // hidden on them tested coarse, the plain regions' own lines decide (below).
    const tightTier = precise ? PLAIN : this.tightTier;
    const grownTight = tightTier === GROWN && this.grows && !visible;
    if (grownTight && seen >= 0) return this.visibleBy(p, seen);
    // Else the tight regions decide (the plain ones with hiddenTight 0); a visible pair tries its line
    // there first (one ray when it needs no grid). Hidden there, the verdict stands while the plain regions stay inside them.
    const tight = tightTier === PLAIN || !this.grows || grownTight ? reg : grown;
    const hint = visible ? first : grownTight ? -1 : clear >= 0 ? clear : first;
    if (tight !== reg) this.built.regions(tight, v, e, tightTier);
    let own = -1;
    if (visible && hint >= 0 && hint < FIXED_RAYS) own = this.cast.fixedClear(tight, grid, hint) ? hint : this.clearOn(tight, -1, p);
    else own = this.clearOn(tight, hint, p);
    if (own >= 0) return this.visibleBy(p, own);
    if (grid[G_CROSS_FINE] !== 1 && tight !== reg) {
      // Tested coarser than the crossing lines' spacing, hidden says nothing of the regions inside
      // (their lines, the eye's own among them, may pass between the coarse ones): the plain regions' own lines decide.
      const plain = this.clearOn(reg, -1, -1);
      if (plain >= 0) return this.visibleBy(p, plain);
    }
    return this.hidden(p, c, grid[G_CROSS_FINE] === 1 ? tight : null, clear, this.grows && tightTier !== GROWN ? TIGHT_CACHED : CACHED);
  }

  /** The first clear line between the regions of `tier` (built into out; line `first` tried first), or -1. */
  private tierClear(out: Float64Array, v: number, e: number, tier: number, first: number, p: number): number {
    this.built.regions(out, v, e, tier);
    return this.clearOn(out, first, p);
  }

  /** The first clear line between the regions in r (the grid sized for them; line `first` tried first), or -1. */
  private clearOn(r: Float64Array, first: number, p: number): number {
    const cfg = this.cfg;
    sizeGrid(this.grid, r, cfg.maxGridSide, cfg.fans, cfg.crossLines);
    return this.cast.anyClear(r, this.grid, first, p);
  }

  /**
   * Records pair p hidden, line `next` tried first at its next test; the regions it was judged hidden
   * on (`tested`: the plain or grown regions of this test, null: none) are kept at cache[c..] as
   * `mark` (CACHED, TIGHT_CACHED), and the verdict stands while the plain regions stay inside them.
   */
  private hidden(p: number, c: number, tested: Float64Array | null, next = -1, mark = CACHED): number {
    this.verdict(p, 0);
    this.lastRay[p] = next;
    if (tested !== null) {
      this.cached[p] = mark;
      this.cache.set(tested, c);
    }
    return 0;
  }

  /**
   * Records pair p visible by its line `line`, tried first at its next test. Held visibleHoldTicks
   * updates when an aimed line (the eye to the body's middle or head) found it, half as many when
   * another did: an enemy in sight stays so a while, one seen only from the regions' edges is near
   * turning hidden, and a hold keeps it sent that much longer.
   */
  private visibleBy(p: number, line: number): number {
    this.verdict(p, 1);
    if (line >= 2) this.hold[p] = this.hold[p] >> 1;
    this.lastRay[p] = line;
    return 1;
  }

  /** Records a verdict for pair p with no line or cache remembered; a visible one is held. */
  private verdict(p: number, vis: number): number {
    if (vis === 1) this.cast.release(p);
    this.pairVisible[p] = vis;
    this.hold[p] = vis === 1 ? this.cfg.visibleHoldTicks : 0;
    this.cached[p] = NOT_CACHED;
    this.lastRay[p] = -1;
    return vis;
  }
}
