/**
 * What a verdict says about each pellet of a pull: how each pellet ended (PelletResults), every hit
 * that deals damage (ShotHits, in pellet order then along each pellet, a player passed through
 * followed by the ones behind) and every place a pellet met the world (Impacts: bullet holes, an
 * entry and an exit hole for each wall passed). Flat typed arrays sized once for the most pellets,
 * players and walls a pull can reach, so judging allocates nothing. A single-segment shot fills one
 * pellet, at most one hit and one impact, and its verdict's top-level fields say the same.
 */
import { MAX_PELLETS } from '../weapons';

/** Players one pellet may hit (passing through the ones before). */
export const MAX_HITS_PER_PELLET = 4;
/** Walls one pellet may pass before it stops whatever its power. */
export const MAX_WALLS_PER_PELLET = 4;
/** Impacts one pellet may leave: an entry and an exit per wall passed, and where it stopped. */
export const MAX_IMPACTS_PER_PELLET = 2 * MAX_WALLS_PER_PELLET + 1;

export interface PelletResults {
  count: number;
  /** VerdictReason of the pellet: OK_HIT (it hit someone), OK_FRIENDLY, OK_MISS, NOT_VISIBLE, OCCLUDED, SPREAD_MISMATCH; -1 not judged. */
  reason: Int32Array;
  /** The pellet's stop point as judged (the server's rebuild of the pattern). */
  ex: Float64Array;
  ey: Float64Array;
  ez: Float64Array;
  /** Fraction of the pellet's segment where it stopped (the wall that held it, the last player it could not pass), 1 when it flew on. */
  stopT: Float64Array;
  /** The point where it stopped. */
  px: Float64Array;
  py: Float64Array;
  pz: Float64Array;
  /** The first player the pellet met (hit, or refused as NOT_VISIBLE or OCCLUDED), -1 none. */
  target: Int32Array;
  /** Walls the pellet went through. */
  walls: Int32Array;
}

export interface ShotHits {
  count: number;
  pellet: Int32Array;
  target: Int32Array;
  zone: Int32Array;
  bone: Int32Array;
  hitbox: Int32Array;
  /** RewindStatus of the target's history sample. */
  status: Int32Array;
  /** OK_HIT, or OK_FRIENDLY (a teammate under 'noDamage': no damage, the pellet stopped). */
  reason: Int32Array;
  /** Walls the pellet had passed before this hit. */
  walls: Int32Array;
  /** Fraction along the pellet's segment, the point and the unit normal of the hitbox face. */
  t: Float64Array;
  x: Float64Array;
  y: Float64Array;
  z: Float64Array;
  nx: Float64Array;
  ny: Float64Array;
  nz: Float64Array;
  damage: Float64Array;
}

export interface Impacts {
  count: number;
  pellet: Int32Array;
  /** Index into world.surfaces, -1 when no range covers the triangle. */
  surface: Int32Array;
  /** 1 for the hole a pellet leaves on its way out of a wall, 0 where it went in (or stopped). */
  exit: Uint8Array;
  t: Float64Array;
  x: Float64Array;
  y: Float64Array;
  z: Float64Array;
  /** Unit normal of the face, toward the pellet's start. */
  nx: Float64Array;
  ny: Float64Array;
  nz: Float64Array;
}

export function createPelletResults(capacity = MAX_PELLETS): PelletResults {
  const f = () => new Float64Array(capacity);
  const i = () => new Int32Array(capacity);
  return { count: 0, reason: i(), ex: f(), ey: f(), ez: f(), stopT: f(), px: f(), py: f(), pz: f(), target: i(), walls: i() };
}

export function createShotHits(capacity = MAX_PELLETS * MAX_HITS_PER_PELLET): ShotHits {
  const f = () => new Float64Array(capacity);
  const i = () => new Int32Array(capacity);
  return {
    count: 0, pellet: i(), target: i(), zone: i(), bone: i(), hitbox: i(), status: i(), reason: i(), walls: i(),
    t: f(), x: f(), y: f(), z: f(), nx: f(), ny: f(), nz: f(), damage: f(),
  };
}

export function createImpacts(capacity = MAX_PELLETS * MAX_IMPACTS_PER_PELLET): Impacts {
  const f = () => new Float64Array(capacity);
  return { count: 0, pellet: new Int32Array(capacity), surface: new Int32Array(capacity), exit: new Uint8Array(capacity), t: f(), x: f(), y: f(), z: f(), nx: f(), ny: f(), nz: f() };
}

/** The total damage of a verdict's hits. */
export function totalDamage(hits: ShotHits): number {
  let d = 0;
  for (let i = 0; i < hits.count; i++) d += hits.damage[i]!;
  return d;
}

/** Plain JSON copies (for replies, the debug view and tests). */
export function pelletsToJson(p: PelletResults): { reason: number; end: [number, number, number]; stopT: number; target: number; walls: number }[] {
  const out = [];
  for (let k = 0; k < p.count; k++) out.push({ reason: p.reason[k]!, end: [p.ex[k]!, p.ey[k]!, p.ez[k]!] as [number, number, number], stopT: p.stopT[k]!, target: p.target[k]!, walls: p.walls[k]! });
  return out;
}

export function hitsToJson(h: ShotHits): { pellet: number; target: number; zone: number; reason: number; walls: number; t: number; point: [number, number, number]; damage: number }[] {
  const out = [];
  for (let i = 0; i < h.count; i++) out.push({ pellet: h.pellet[i]!, target: h.target[i]!, zone: h.zone[i]!, reason: h.reason[i]!, walls: h.walls[i]!, t: h.t[i]!, point: [h.x[i]!, h.y[i]!, h.z[i]!] as [number, number, number], damage: h.damage[i]! });
  return out;
}

export function impactsToJson(m: Impacts): { pellet: number; surface: number; exit: boolean; point: [number, number, number]; normal: [number, number, number] }[] {
  const out = [];
  for (let i = 0; i < m.count; i++) out.push({ pellet: m.pellet[i]!, surface: m.surface[i]!, exit: m.exit[i] === 1, point: [m.x[i]!, m.y[i]!, m.z[i]!] as [number, number, number], normal: [m.nx[i]!, m.ny[i]!, m.nz[i]!] as [number, number, number] });
  return out;
}
