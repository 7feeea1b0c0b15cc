/**
 * What to draw for one shot, as plain numbers: a tracer per pellet from the shot's start to where
 * the pellet stopped (through any wall it passed, so the tracer goes on behind it), every hole it
 * left in the world (entry, exit, or where it stopped; an exit hole's normal turned to face out of
 * the wall), and every hit. Read from a verdict's flat pellet arrays (the page's prediction, a
 * match log's verdict) or from a verdict reply's pellets; a verdict without pellets (an older log)
 * gives the single segment and its one world hit or hit. Pure: the page, the viewer and Node
 * tests use the same plan.
 */
import { VerdictKind, VerdictReason, type ImpactReply, type Verdict, type VerdictReply } from '../../shared/index';

export interface PelletMark {
  /** Where the pellet stopped (its end when it flew on). */
  x: number;
  y: number;
  z: number;
  /** VerdictReason of the pellet (OK_HIT: it hit someone). */
  reason: number;
  /** The first player it met, -1 none. */
  target: number;
  /** Walls it went through. */
  walls: number;
}

export interface HoleMark {
  /** The pellet that left it (-1 when a reply's impacts cannot say). */
  pellet: number;
  x: number;
  y: number;
  z: number;
  /** Unit normal the hole faces: toward the shooter for an entry, out of the wall for an exit. */
  nx: number;
  ny: number;
  nz: number;
  exit: boolean;
}

export interface HitMark {
  /** Pellet that hit (-1 when only the pellet's stop says so). */
  pellet: number;
  target: number;
  zone: number;
  x: number;
  y: number;
  z: number;
  /** NaN when not known (a reply's hit the prediction did not see). */
  damage: number;
}

export interface ShotMarks {
  /** The shot's start (the eye). */
  sx: number;
  sy: number;
  sz: number;
  pellets: PelletMark[];
  holes: HoleMark[];
  hits: HitMark[];
}

type PelletVerdict = Pick<Verdict, 'kind' | 'reason' | 'target' | 'zone' | 'x' | 'y' | 'z' | 'nx' | 'ny' | 'nz' | 'worldHit' | 'damage' | 'pellets' | 'hits' | 'impacts'>;

/**
 * The marks of a verdict for a shot from S along the segment S -> E. Without pellets in the verdict
 * (a log written before verdicts kept them, a refused message): one tracer S -> E cut at the
 * deciding hit, and its hole or hit.
 */
export function marksOfVerdict(v: PelletVerdict, sx: number, sy: number, sz: number, ex: number, ey: number, ez: number): ShotMarks {
  const out: ShotMarks = { sx, sy, sz, pellets: [], holes: [], hits: [] };
  const p = v.pellets;
  if (p.count === 0) return singleSegment(out, v, ex, ey, ez);
  for (let k = 0; k < p.count; k++) out.pellets.push({ x: p.px[k]!, y: p.py[k]!, z: p.pz[k]!, reason: p.reason[k]!, target: p.target[k]!, walls: p.walls[k]! });
  const m = v.impacts;
  for (let i = 0; i < m.count; i++) out.holes.push(hole(m.pellet[i]!, m.x[i]!, m.y[i]!, m.z[i]!, m.nx[i]!, m.ny[i]!, m.nz[i]!, m.exit[i] === 1));
  const h = v.hits;
  for (let i = 0; i < h.count; i++) out.hits.push({ pellet: h.pellet[i]!, target: h.target[i]!, zone: h.zone[i]!, x: h.x[i]!, y: h.y[i]!, z: h.z[i]!, damage: h.damage[i]! });
  return out;
}

/** A verdict with no pellet results: the old single segment. */
function singleSegment(out: ShotMarks, v: PelletVerdict, ex: number, ey: number, ez: number): ShotMarks {
  const hit = v.kind === VerdictKind.HIT;
  const stops = hit || v.worldHit;
  out.pellets.push({ x: stops ? v.x : ex, y: stops ? v.y : ey, z: stops ? v.z : ez, reason: v.reason, target: v.target, walls: 0 });
  if (hit) out.hits.push({ pellet: 0, target: v.target, zone: v.zone, x: v.x, y: v.y, z: v.z, damage: v.damage });
  else if (v.worldHit) out.holes.push(hole(0, v.x, v.y, v.z, v.nx, v.ny, v.nz, false));
  return out;
}

/**
 * The marks of a verdict reply that carries pellets (a pattern weapon, or a shot that passed a
 * wall), null for one that does not. A reply names each pellet's hit by its reason and target
 * only: the hit is drawn where `predicted` hit the same target with the same pellet, else at the
 * pellet's stop (where a pellet that cannot pass players ends); the reply's zone is its first
 * hit's, the damage of a hit the prediction did not see is unknown (NaN).
 */
export function marksOfReply(r: VerdictReply, sx: number, sy: number, sz: number, predicted: ShotMarks | null = null): ShotMarks | null {
  if (r.pellets === undefined) return null;
  const out: ShotMarks = { sx, sy, sz, pellets: [], holes: [], hits: [] };
  for (const p of r.pellets) out.pellets.push({ x: p.x, y: p.y, z: p.z, reason: p.reason, target: p.target, walls: p.walls });
  // A reply's impacts come in pellet order without naming the pellet: each belongs to the first
  // pellet, from the last one matched on, whose segment (start to stop) it lies on.
  let k = 0;
  for (const m of r.impacts ?? []) {
    let on = k;
    while (on < out.pellets.length && !onSegment(sx, sy, sz, out.pellets[on]!, m)) on++;
    if (on < out.pellets.length) k = on;
    out.holes.push(hole(on < out.pellets.length ? on : -1, m.x, m.y, m.z, m.nx, m.ny, m.nz, m.exit));
  }
  r.pellets.forEach((p, k) => {
    if (p.reason !== VerdictReason.OK_HIT) return;
    const seen = predicted?.hits.find((h) => h.pellet === k && h.target === p.target);
    const zone = out.hits.length === 0 ? r.zone : (seen?.zone ?? -1);
    if (seen !== undefined) out.hits.push({ ...seen, zone });
    else out.hits.push({ pellet: k, target: p.target, zone, x: p.x, y: p.y, z: p.z, damage: Number.NaN });
  });
  return out;
}

/** Whether point `m` lies on the segment from S to the pellet's stop (within 10 micrometres and a millionth of its length). */
function onSegment(sx: number, sy: number, sz: number, p: PelletMark, m: ImpactReply): boolean {
  const dx = p.x - sx, dy = p.y - sy, dz = p.z - sz;
  const len2 = dx * dx + dy * dy + dz * dz;
  const qx = m.x - sx, qy = m.y - sy, qz = m.z - sz;
  const tol = 1e-5 + 1e-6 * Math.sqrt(len2);
  if (!(len2 > 0)) return qx * qx + qy * qy + qz * qz <= tol * tol;
  const t = (qx * dx + qy * dy + qz * dz) / len2;
  if (t < -1e-9 || t > 1 + tol / Math.sqrt(len2)) return false;
  const ex = qx - t * dx, ey = qy - t * dy, ez = qz - t * dz;
  return ex * ex + ey * ey + ez * ez <= tol * tol;
}

/** A hole: impacts keep the face's normal toward the pellet's start; an exit hole faces the other way. */
function hole(pellet: number, x: number, y: number, z: number, nx: number, ny: number, nz: number, exit: boolean): HoleMark {
  const f = exit ? -1 : 1;
  return { pellet, x, y, z, nx: nx * f, ny: ny * f, nz: nz * f, exit };
}

/** Pellets that hit someone. */
export function pelletsHit(m: ShotMarks): number {
  let n = 0;
  for (const p of m.pellets) if (p.reason === VerdictReason.OK_HIT) n++;
  return n;
}

/** Walls passed by all pellets together. */
export function wallsPassed(m: ShotMarks): number {
  let n = 0;
  for (const p of m.pellets) n += p.walls;
  return n;
}

/**
 * Whether two plans agree pellet by pellet: the same count, reasons and targets, and stops within
 * `toleranceM` (the prediction against the verdict).
 */
export function sameOutcome(a: ShotMarks, b: ShotMarks, toleranceM = 0.01): boolean {
  if (a.pellets.length !== b.pellets.length) return false;
  for (let k = 0; k < a.pellets.length; k++) {
    const p = a.pellets[k]!, q = b.pellets[k]!;
    if (p.reason !== q.reason || p.target !== q.target || p.walls !== q.walls) return false;
    if (Math.abs(p.x - q.x) > toleranceM || Math.abs(p.y - q.y) > toleranceM || Math.abs(p.z - q.z) > toleranceM) return false;
  }
  return true;
}
