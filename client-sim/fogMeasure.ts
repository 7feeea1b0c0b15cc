/**
 * The measuring pieces of the fog-of-war report (fogWatch.ts wires them to the bots and the
 * in-process server; peek.ts uses the sight test):
 * - BodyPoints: a handful of points inside a posed body's hitboxes (the head, the upper torso, the
 *   pelvis, both hands and both feet: the middle, and the parts that stick out first round a
 *   corner), posed by the rig as the server poses it; or its outline (BodyPoints.outline: every
 *   hitbox's extreme vertices), the popIn count's second look;
 * - anyClear: line of sight from an eye to any of those points (World.anyHit per point, first clear
 *   one wins);
 * - ReceiptLog: what one client received, snapshot by snapshot: which slots each snapshot held, so
 *   "had the enemy's data arrived for render time t" (present in the received snapshots bracketing
 *   t) and "since when has it been received without a break" can be asked after the fact;
 * - FogTally: the counts and samples the report is made of (definitions at each method and in
 *   client-sim/README.md "Fog of war").
 *
 * Nothing here reads a clock: times come in as arguments. Scratch is owned by each instance.
 */
import { BONE_STRIDE, HitZone, type Rig } from '../shared/rig/rig';
import { transformPoint } from '../shared/rig/posing';
import type { Rewinder } from '../shared/lagcomp/rewind';
import type { PlayerPose } from '../shared/lagcomp/pose';
import { SNAP_STRIDE, Snap } from '../shared/client/snapshot';

/** The segment query line of sight needs (World has it). */
export interface LosWorld {
  anyHit(sx: number, sy: number, sz: number, ex: number, ey: number, ez: number): boolean;
}

/** Zones whose hitboxes are sampled: the first hitbox of the first three, every hitbox of the rest. */
const FIRST_OF = [HitZone.HEAD, HitZone.UPPER_TORSO, HitZone.PELVIS];
const EVERY_OF = [HitZone.HAND, HitZone.FOOT];

export class BodyPoints {
  /** Points per body. */
  readonly count: number;
  private readonly hitbox: Int32Array;
  /** Bone-local point of each sample (in its hitbox's bone space). */
  private readonly local: Float64Array;
  private readonly bones: Float64Array;

  /** The sampled hitboxes' centroids (the default), or `picks`: hitbox index and bone-local point, 4 numbers each. */
  constructor(rig: Rig, picks: readonly number[] = centroidPicks(rig)) {
    this.count = picks.length / 4;
    this.hitbox = new Int32Array(this.count);
    this.local = new Float64Array(this.count * 3);
    for (let i = 0; i < this.count; i++) {
      this.hitbox[i] = picks[i * 4]!;
      this.local[i * 3] = picks[i * 4 + 1]!; this.local[i * 3 + 1] = picks[i * 4 + 2]!; this.local[i * 3 + 2] = picks[i * 4 + 3]!;
    }
    this.bones = new Float64Array(rig.hitboxCount * BONE_STRIDE);
  }

  /**
   * The outline: for every hitbox, its mesh's vertices farthest along 14 bone-local directions (the
   * three axes both ways and the eight diagonals), 238 points on the mannequin: where a body first
   * shows round an edge or through a gap, the head's crown, a shoulder, a fingertip.
   */
  static outline(rig: Rig): BodyPoints {
    return new BodyPoints(rig, outlinePicks(rig));
  }

  /** Writes the world points of `pose`'s sampled hitboxes into out (3 numbers each); returns their count. */
  fill(out: Float64Array, rewinder: Rewinder, pose: PlayerPose): number {
    rewinder.poseBones(this.bones, pose);
    for (let i = 0; i < this.count; i++) {
      const l = this.local;
      transformPoint(out, i * 3, this.bones, this.hitbox[i]! * BONE_STRIDE, l[i * 3]!, l[i * 3 + 1]!, l[i * 3 + 2]!);
    }
    return this.count;
  }
}

/** The hitboxes BodyPoints samples by default (FIRST_OF, EVERY_OF; every hitbox when none is zoned so), each at its vertices' mean. */
function centroidPicks(rig: Rig): number[] {
  const picked: number[] = [];
  for (const z of FIRST_OF) {
    for (let h = 0; h < rig.hitboxCount; h++) if (rig.hitboxZone[h] === z) { picked.push(h); break; }
  }
  for (let h = 0; h < rig.hitboxCount; h++) if ((EVERY_OF as number[]).includes(rig.hitboxZone[h]!)) picked.push(h);
  if (picked.length === 0) for (let h = 0; h < rig.hitboxCount; h++) picked.push(h);
  const out: number[] = [];
  for (const h of picked) {
    let x = 0, y = 0, z = 0, n = 0;
    for (let v = rig.triStart[h]! * 3; v < rig.triStart[h + 1]! * 3; v++) {
      x += rig.triangles[v * 3]!; y += rig.triangles[v * 3 + 1]!; z += rig.triangles[v * 3 + 2]!;
      n++;
    }
    out.push(h, x / n, y / n, z / n);
  }
  return out;
}

/** The directions BodyPoints.outline takes each hitbox's extreme vertex along. */
const OUTLINE_DIRS: readonly (readonly [number, number, number])[] = [
  [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1],
  [1, 1, 1], [1, 1, -1], [1, -1, 1], [1, -1, -1], [-1, 1, 1], [-1, 1, -1], [-1, -1, 1], [-1, -1, -1],
];

function outlinePicks(rig: Rig): number[] {
  const out: number[] = [];
  for (let h = 0; h < rig.hitboxCount; h++) {
    for (const [dx, dy, dz] of OUTLINE_DIRS) {
      let best = Number.NEGATIVE_INFINITY, bx = 0, by = 0, bz = 0;
      for (let v = rig.triStart[h]! * 3; v < rig.triStart[h + 1]! * 3; v++) {
        const x = rig.triangles[v * 3]!, y = rig.triangles[v * 3 + 1]!, z = rig.triangles[v * 3 + 2]!;
        const d = x * dx + y * dy + z * dz;
        if (d > best) { best = d; bx = x; by = y; bz = z; }
      }
      if (best > Number.NEGATIVE_INFINITY) out.push(h, bx, by, bz);
    }
  }
  return out;
}

/** True when the segment from (ex, ey, ez) to any of the first n points of pts meets no level triangle. */
export function anyClear(world: LosWorld, ex: number, ey: number, ez: number, pts: Float64Array, n: number): boolean {
  for (let i = 0; i < n; i++) {
    if (!world.anyHit(ex, ey, ez, pts[i * 3]!, pts[i * 3 + 1]!, pts[i * 3 + 2]!)) return true;
  }
  return false;
}

/**
 * What one client received: per snapshot (in the order applied, server times increasing) its
 * server time, the local time it was applied and which slots it held. A ring of `capacity`
 * snapshots (at 64 Hz, 512 hold 8 s: far more than any render delay).
 */
export class ReceiptLog {
  readonly capacity: number;
  private readonly times: Float64Array;
  private readonly present: Uint8Array;
  private n = 0;
  /** Per slot: local ms of the first snapshot of the current unbroken run holding it (NaN: the newest lacks it). */
  private readonly runStart: Float64Array;
  /** Per slot, a backfill waiting for the next snapshot: its first pose's server time (NaN: none). */
  private readonly backfillFrom: Float64Array;
  /** Per slot: server times [from, until] its current run's backfill covered (NaN: none), until = the run's first snapshot. */
  private readonly filledFrom: Float64Array;
  private readonly filledUntil: Float64Array;

  constructor(readonly maxPlayers: number, capacity = 512) {
    this.capacity = capacity;
    this.times = new Float64Array(capacity);
    this.present = new Uint8Array(capacity * maxPlayers);
    this.runStart = new Float64Array(maxPlayers).fill(Number.NaN);
    this.filledFrom = new Float64Array(maxPlayers).fill(Number.NaN);
    this.backfillFrom = new Float64Array(maxPlayers).fill(Number.NaN);
    this.filledUntil = new Float64Array(maxPlayers).fill(Number.NaN);
  }

  /** A backfill received: `slot`'s poses from server time `fromMs` on, ahead of the next snapshot. */
  backfill(slot: number, fromMs: number): void {
    if (slot >= 0 && slot < this.maxPlayers) this.backfillFrom[slot] = fromMs;
  }

  get size(): number {
    return Math.min(this.n, this.capacity);
  }

  /** A snapshot applied: its server time (newer than the last), the local ms, its players (SNAP_STRIDE per slot). */
  record(timeMs: number, localMs: number, players: Float64Array): void {
    const k = this.n % this.capacity;
    this.times[k] = timeMs;
    const o = k * this.maxPlayers;
    for (let s = 0; s < this.maxPlayers; s++) {
      const here = players[s * SNAP_STRIDE + Snap.PRESENT] === 1;
      this.present[o + s] = here ? 1 : 0;
      if (!here) {
        this.runStart[s] = Number.NaN;
        this.filledFrom[s] = Number.NaN;
      } else if (Number.isNaN(this.runStart[s]!)) {
        this.runStart[s] = localMs;
        // A run that begins right after a backfill of this slot holds its poses before this snapshot too.
        if (this.backfillFrom[s]! < timeMs) {
          this.filledFrom[s] = this.backfillFrom[s]!;
          this.filledUntil[s] = timeMs;
        }
      }
      this.backfillFrom[s] = Number.NaN;
    }
    this.n++;
  }

  /**
   * Whether `slot`'s data had arrived for render time t: it is present in the received snapshot at
   * or before t nearest to it AND in the one at or after t nearest to it (one snapshot when its time
   * is t; only the one that exists when t lies outside what was received), or t lies within the
   * backfill that began its current run (from its first pose to the run's first snapshot). False
   * before anything.
   */
  arrived(slot: number, t: number): boolean {
    if (t >= this.filledFrom[slot]! && t <= this.filledUntil[slot]!) return true;
    const size = this.size;
    if (size === 0) return false;
    // Newest first: render times lie a few snapshots back.
    let after = -1;
    for (let i = 0; i < size; i++) {
      const k = (this.n - 1 - i) % this.capacity;
      const tk = this.times[k]!;
      if (tk <= t) {
        if (this.present[k * this.maxPlayers + slot] !== 1) return false;
        return tk === t || after < 0 || this.present[after * this.maxPlayers + slot] === 1;
      }
      after = k;
    }
    // t is older than every snapshot kept: the oldest one brackets it alone.
    return this.present[after * this.maxPlayers + slot] === 1;
  }

  /** Nothing at or after server time t received yet (or nothing at all): the stream is behind a screen rendering t. */
  behind(t: number): boolean {
    return this.n === 0 || this.times[(this.n - 1) % this.capacity]! < t;
  }

  /** Local ms since which `slot` has been in every snapshot received (NaN when the newest lacks it). */
  receivedSince(slot: number): number {
    return this.runStart[slot]!;
  }
}

/** A percentile summary of lead times, ms (null fields without samples). */
export interface LeadSummary {
  p50: number | null;
  p90: number | null;
  n: number;
}

export function leadSummary(values: readonly number[]): LeadSummary {
  const s = Float64Array.from(values).sort();
  const at = (p: number): number | null => (s.length === 0 ? null : s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!);
  return { p50: at(0.5), p90: at(0.9), n: s.length };
}

/** What the watch adds to the report (SimReport's fog fields). */
export interface FogMeasures {
  popIn: number;
  withheldShare: number | null;
  wallhackLeadMs: LeadSummary;
  diedBehindCoverRate: number | null;
  fogDetail: {
    popInByBot: Record<string, number>;
    /** The first pop-ins (at most 20) with their times: what to look at when popIn is not 0. */
    popInEvents: Record<string, number | boolean>[];
    /** The first enemies drawn already in sight (appearedInSight): times and places, and whether the server's truth was in sight then. */
    appearedEvents: Record<string, number | boolean>[];
    stalledPopIn: number;
    deadScreenSamples: number;
    deadPopIn: number;
    /** wallhackLeadMs over the onsets after at least LONG_HIDDEN_MS out of sight. */
    wallhackLeadAfterHiddenMs: LeadSummary;
    screenSamples: number;
    visibleSamples: number;
    coveredTicks: number;
    withheldCoveredTicks: number;
    visibleTicks: number;
    withheldVisibleTicks: number;
    /** Screen samples of the victim's side (observer, enemy) and those in cover from the enemy. */
    coverSamples: number;
    inCoverSamples: number;
    /** Enemies drawn after a sample without them (respawns aside), and of those drawn in sight at once (FogTally.drawnSample). */
    appearances: number;
    appearedInSight: number;
    deaths: number;
    deathsBehindCover: number;
    rewindWindowMs: number;
    sampleEvery: number;
    tickStride: number;
    pointsPerBody: number;
    /** The outline's points per body, the samples it was looked at in (enemy not arrived, stream not behind, no sampled point in sight) and the pop-ins only it saw. */
    outlinePointsPerBody: number;
    outlineSamples: number;
    outlinePopIn: number;
  };
}

/** Samples of one (observer, enemy) pair on the observer's screen, farther apart than this, break an onset. */
export const ONSET_GAP_MS = 100;
/** An onset after at least this long out of sight counts in FogTally.leadsAfterHiddenMs too. */
export const LONG_HIDDEN_MS = 1000;

/**
 * The counts. Observers and enemies are small integers (bot index and slot). Per pair it keeps the
 * last screen sample (visible?, when) for onsets, and whether the observer has reached cover from
 * that enemy on its own screen and since when.
 */
export class FogTally {
  /** Screen samples in which an enemy was visible from the observer's rendered eye but its data had not arrived, per observer. */
  readonly popInBy = new Map<number, number>();
  popIn = 0;
  /** Of popIn: samples in which only the body's outline was in sight (BodyPoints.outline), and how many samples looked at it. */
  outlinePopIn = 0;
  outlineSamples = 0;
  /** In sight and not arrived while the client's stream was behind its render time (no snapshot at or after it received). */
  stalledPopIn = 0;
  /**
   * Screen samples of observers dead on their own screens (a dead client still draws the enemies
   * from its still eye), and of those the pop-ins (counted in popIn too).
   */
  deadScreenSamples = 0;
  deadPopIn = 0;
  /** Screen samples (observer, enemy) taken, and those with the enemy visible. */
  screenSamples = 0;
  visibleSamples = 0;
  /** Enemy-ticks judged: behind cover, behind cover and withheld, in sight and withheld. */
  coveredTicks = 0;
  withheldCoveredTicks = 0;
  visibleTicks = 0;
  withheldVisibleTicks = 0;
  /** Per onset of visibility: how long the enemy's data had been received without a break, ms. */
  readonly leadsMs: number[] = [];
  /** The same for onsets after the pair had been out of sight at least LONG_HIDDEN_MS (a real reappearance, not a flicker behind a post). */
  readonly leadsAfterHiddenMs: number[] = [];
  /** Deaths of observers, and those where the observer had reached cover from the killer on its own screen. */
  deaths = 0;
  deathsBehindCover = 0;
  private readonly lastVisible = new Map<number, boolean>();
  private readonly lastAt = new Map<number, number>();
  /** Per pair: the first sample of the current spell out of sight. */
  private readonly hiddenSince = new Map<number, number>();
  private readonly covered = new Map<number, boolean>();

  private static key(observer: number, enemy: number): number {
    return observer * 4096 + enemy;
  }

  /**
   * One screen sample at local ms `at`: `visible` (the enemy seen from the observer's rendered eye,
   * by the server's truth at the render time), `arrived` (its data in the snapshots bracketing the
   * render time), `receivedSince` (ReceiptLog.receivedSince), `stalled` (nothing at or after the
   * render time received yet: the stream is behind the screen, for every player). A pop-in is
   * visible and not arrived with the stream not stalled; visible and not arrived on a stalled stream
   * counts in stalledPopIn. An onset is visible after a sample not visible at most ONSET_GAP_MS
   * earlier, and its lead is at - receivedSince (0 when not arrived). `outline`: not visible, but
   * a point of the body's outline was (asked only when not arrived and not stalled): a pop-in too,
   * counted in outlinePopIn as well, and no onset.
   */
  screen(observer: number, enemy: number, at: number, visible: boolean, arrived: boolean, receivedSince: number, stalled = false, outline = false): void {
    const key = FogTally.key(observer, enemy);
    this.screenSamples++;
    this.popInOf(observer, visible, arrived, stalled, outline);
    if (visible) {
      this.visibleSamples++;
      if (!arrived && stalled) this.stalledPopIn++;
      const prevAt = this.lastAt.get(key);
      if (this.lastVisible.get(key) === false && prevAt !== undefined && at - prevAt <= ONSET_GAP_MS) {
        const lead = arrived && !Number.isNaN(receivedSince) ? Math.max(0, at - receivedSince) : 0;
        this.leadsMs.push(lead);
        if (prevAt - this.hiddenSince.get(key)! >= LONG_HIDDEN_MS) this.leadsAfterHiddenMs.push(lead);
      }
    } else if (this.lastVisible.get(key) !== false || at - (this.lastAt.get(key) ?? at) > ONSET_GAP_MS) {
      // The first sample of a spell out of sight (a gap in the samples starts a new one).
      this.hiddenSince.set(key, at);
    }
    this.lastVisible.set(key, visible);
    this.lastAt.set(key, at);
  }

  /** One sample (observer, enemy) of a dead observer's screen: a pop-in as screen() counts it; nothing else is tallied. */
  deadScreen(observer: number, visible: boolean, arrived: boolean, stalled: boolean, outline: boolean): void {
    this.deadScreenSamples++;
    if (this.popInOf(observer, visible, arrived, stalled, outline)) this.deadPopIn++;
  }

  /** Counts a pop-in (see screen()) when the sample is one; returns whether it was. */
  private popInOf(observer: number, visible: boolean, arrived: boolean, stalled: boolean, outline: boolean): boolean {
    if (!((visible || outline) && !arrived && !stalled)) return false;
    this.popIn++;
    this.popInBy.set(observer, (this.popInBy.get(observer) ?? 0) + 1);
    if (!visible) this.outlinePopIn++;
    return true;
  }

  /** One enemy-tick as the server had it: `covered` (no line of sight from the client's eye), `withheld` (absent from what the client received for that tick). */
  tick(covered: boolean, withheld: boolean): void {
    if (covered) {
      this.coveredTicks++;
      if (withheld) this.withheldCoveredTicks++;
    } else {
      this.visibleTicks++;
      if (withheld) this.withheldVisibleTicks++;
    }
  }

  /** Appearances on a screen: an enemy drawn after a sample without it at most ONSET_GAP_MS earlier; and those drawn in sight at once. */
  appearances = 0;
  appearedInSight = 0;
  private readonly lastDrawn = new Map<number, boolean>();
  private readonly lastDrawnAt = new Map<number, number>();

  /**
   * One screen sample at local ms `at` as the client alone sees it: `drawn` (the enemy drawn),
   * `inSight` (the drawn pose in sight from the rendered eye), `newLife` (the enemy's life began
   * just before the render time: a respawn or teleport appears wherever it lands). An appearance
   * already in sight is what a client that never sees the server's truth would count as a pop-in.
   */
  drawnSample(observer: number, enemy: number, at: number, drawn: boolean, inSight: boolean, newLife: boolean): void {
    const key = FogTally.key(observer, enemy);
    const prevAt = this.lastDrawnAt.get(key);
    if (drawn && this.lastDrawn.get(key) === false && prevAt !== undefined && at - prevAt <= ONSET_GAP_MS && !newLife) {
      this.appearances++;
      if (inSight) this.appearedInSight++;
    }
    this.lastDrawn.set(key, drawn);
    this.lastDrawnAt.set(key, at);
  }

  /** Cover samples taken (observer, enemy), and those in cover. */
  coverSamples = 0;
  inCoverSamples = 0;

  /** The observer's own screen now: it is (true) or is not in cover from `enemy`. */
  cover(observer: number, enemy: number, covered: boolean): void {
    this.covered.set(FogTally.key(observer, enemy), covered);
    this.coverSamples++;
    if (covered) this.inCoverSamples++;
  }

  /** The observer died, killed by `killer` on the server: counted behind cover when its last screen sample had it in cover from the killer. */
  death(observer: number, killer: number): boolean {
    this.deaths++;
    const behind = this.covered.get(FogTally.key(observer, killer)) === true;
    if (behind) this.deathsBehindCover++;
    return behind;
  }

  /** withheldCoveredTicks / coveredTicks (null without covered ticks). */
  get withheldShare(): number | null {
    return this.coveredTicks > 0 ? this.withheldCoveredTicks / this.coveredTicks : null;
  }

  get diedBehindCoverRate(): number | null {
    return this.deaths > 0 ? this.deathsBehindCover / this.deaths : null;
  }
}
