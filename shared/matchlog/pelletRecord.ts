/**
 * The verdict's pellet section in the match log (format 8 on): each pellet's result, every hit
 * and every impact, with every field of each entry (shared/validate/pelletVerdict.ts), so an audit
 * compares them bit for bit. Integer fields as i32 (u8 for an impact's exit flag), the rest as
 * f64. Writing and reading are spelled out field by field: the audit encodes every replayed
 * verdict, and keyed reads over varying names are megamorphic lookups. Pure (DataView only).
 *
 * Layout (little-endian):
 *   u16 pellets p, u16 hits h, u16 impacts m
 *   p x 68: i32 reason, i32 target, i32 walls, f64 ex ey ez stopT px py pz
 *   h x 96: i32 pellet target zone bone hitbox status reason walls, f64 t x y z nx ny nz damage
 *   m x 65: i32 pellet, i32 surface, u8 exit, f64 t x y z nx ny nz
 */
import type { Impacts, PelletResults, ShotHits } from '../validate/pelletVerdict';
import type { Verdict } from '../validate/verdict';

export const PELLET_SECTION_HEAD_BYTES = 6;
export const PELLET_ENTRY_BYTES = 68;
export const HIT_ENTRY_BYTES = 96;
export const IMPACT_ENTRY_BYTES = 65;

/** Entries the log can hold of one kind (the counts are u16). */
const MAX_ENTRIES = 0xffff;

function clampCount(count: number, capacity: number): number {
  const n = count < capacity ? count : capacity;
  return n > 0 ? (n < MAX_ENTRIES ? n : MAX_ENTRIES) : 0;
}

/** Bytes of the pellet section of `v`. */
export function pelletSectionBytes(v: Verdict): number {
  return PELLET_SECTION_HEAD_BYTES + PELLET_ENTRY_BYTES * clampCount(v.pellets.count, v.pellets.reason.length)
    + HIT_ENTRY_BYTES * clampCount(v.hits.count, v.hits.damage.length) + IMPACT_ENTRY_BYTES * clampCount(v.impacts.count, v.impacts.t.length);
}

/** Writes the pellet section of `v` at `at`; returns the offset after it. */
export function writePelletSection(view: DataView, at: number, v: Verdict): number {
  const p = v.pellets, h = v.hits, m = v.impacts;
  const np = clampCount(p.count, p.reason.length), nh = clampCount(h.count, h.damage.length), nm = clampCount(m.count, m.t.length);
  view.setUint16(at, np, true);
  view.setUint16(at + 2, nh, true);
  view.setUint16(at + 4, nm, true);
  let o = at + PELLET_SECTION_HEAD_BYTES;
  for (let i = 0; i < np; i++, o += PELLET_ENTRY_BYTES) {
    view.setInt32(o, p.reason[i]!, true); view.setInt32(o + 4, p.target[i]!, true); view.setInt32(o + 8, p.walls[i]!, true);
    view.setFloat64(o + 12, p.ex[i]!, true); view.setFloat64(o + 20, p.ey[i]!, true); view.setFloat64(o + 28, p.ez[i]!, true);
    view.setFloat64(o + 36, p.stopT[i]!, true);
    view.setFloat64(o + 44, p.px[i]!, true); view.setFloat64(o + 52, p.py[i]!, true); view.setFloat64(o + 60, p.pz[i]!, true);
  }
  for (let i = 0; i < nh; i++, o += HIT_ENTRY_BYTES) {
    view.setInt32(o, h.pellet[i]!, true); view.setInt32(o + 4, h.target[i]!, true); view.setInt32(o + 8, h.zone[i]!, true);
    view.setInt32(o + 12, h.bone[i]!, true); view.setInt32(o + 16, h.hitbox[i]!, true); view.setInt32(o + 20, h.status[i]!, true);
    view.setInt32(o + 24, h.reason[i]!, true); view.setInt32(o + 28, h.walls[i]!, true);
    view.setFloat64(o + 32, h.t[i]!, true);
    view.setFloat64(o + 40, h.x[i]!, true); view.setFloat64(o + 48, h.y[i]!, true); view.setFloat64(o + 56, h.z[i]!, true);
    view.setFloat64(o + 64, h.nx[i]!, true); view.setFloat64(o + 72, h.ny[i]!, true); view.setFloat64(o + 80, h.nz[i]!, true);
    view.setFloat64(o + 88, h.damage[i]!, true);
  }
  for (let i = 0; i < nm; i++, o += IMPACT_ENTRY_BYTES) {
    view.setInt32(o, m.pellet[i]!, true); view.setInt32(o + 4, m.surface[i]!, true); view.setUint8(o + 8, m.exit[i]!);
    view.setFloat64(o + 9, m.t[i]!, true);
    view.setFloat64(o + 17, m.x[i]!, true); view.setFloat64(o + 25, m.y[i]!, true); view.setFloat64(o + 33, m.z[i]!, true);
    view.setFloat64(o + 41, m.nx[i]!, true); view.setFloat64(o + 49, m.ny[i]!, true); view.setFloat64(o + 57, m.nz[i]!, true);
  }
  return o;
}

/**
 * Reads a pellet section at `at` into `out`'s pellets, hits and impacts; returns the offset after
 * it, or -1 when it does not fit before `end` or a count exceeds `out`'s capacity.
 */
export function readPelletSection(out: Verdict, view: DataView, at: number, end: number): number {
  if (at + PELLET_SECTION_HEAD_BYTES > end) return -1;
  const p = out.pellets, h = out.hits, m = out.impacts;
  const np = view.getUint16(at, true), nh = view.getUint16(at + 2, true), nm = view.getUint16(at + 4, true);
  if (np > p.reason.length || nh > h.damage.length || nm > m.t.length) return -1;
  let o = at + PELLET_SECTION_HEAD_BYTES;
  if (o + PELLET_ENTRY_BYTES * np + HIT_ENTRY_BYTES * nh + IMPACT_ENTRY_BYTES * nm > end) return -1;
  p.count = np; h.count = nh; m.count = nm;
  for (let i = 0; i < np; i++, o += PELLET_ENTRY_BYTES) {
    p.reason[i] = view.getInt32(o, true); p.target[i] = view.getInt32(o + 4, true); p.walls[i] = view.getInt32(o + 8, true);
    p.ex[i] = view.getFloat64(o + 12, true); p.ey[i] = view.getFloat64(o + 20, true); p.ez[i] = view.getFloat64(o + 28, true);
    p.stopT[i] = view.getFloat64(o + 36, true);
    p.px[i] = view.getFloat64(o + 44, true); p.py[i] = view.getFloat64(o + 52, true); p.pz[i] = view.getFloat64(o + 60, true);
  }
  for (let i = 0; i < nh; i++, o += HIT_ENTRY_BYTES) {
    h.pellet[i] = view.getInt32(o, true); h.target[i] = view.getInt32(o + 4, true); h.zone[i] = view.getInt32(o + 8, true);
    h.bone[i] = view.getInt32(o + 12, true); h.hitbox[i] = view.getInt32(o + 16, true); h.status[i] = view.getInt32(o + 20, true);
    h.reason[i] = view.getInt32(o + 24, true); h.walls[i] = view.getInt32(o + 28, true);
    h.t[i] = view.getFloat64(o + 32, true);
    h.x[i] = view.getFloat64(o + 40, true); h.y[i] = view.getFloat64(o + 48, true); h.z[i] = view.getFloat64(o + 56, true);
    h.nx[i] = view.getFloat64(o + 64, true); h.ny[i] = view.getFloat64(o + 72, true); h.nz[i] = view.getFloat64(o + 80, true);
    h.damage[i] = view.getFloat64(o + 88, true);
  }
  for (let i = 0; i < nm; i++, o += IMPACT_ENTRY_BYTES) {
    m.pellet[i] = view.getInt32(o, true); m.surface[i] = view.getInt32(o + 4, true); m.exit[i] = view.getUint8(o + 8);
    m.t[i] = view.getFloat64(o + 9, true);
    m.x[i] = view.getFloat64(o + 17, true); m.y[i] = view.getFloat64(o + 25, true); m.z[i] = view.getFloat64(o + 33, true);
    m.nx[i] = view.getFloat64(o + 41, true); m.ny[i] = view.getFloat64(o + 49, true); m.nz[i] = view.getFloat64(o + 57, true);
  }
  return o;
}

/** The per-entry fields of each part, in log order (comparison names them; not used to encode). */
export const PELLET_FIELDS = ['reason', 'target', 'walls', 'ex', 'ey', 'ez', 'stopT', 'px', 'py', 'pz'] as const satisfies readonly (keyof PelletResults)[];
export const HIT_FIELDS = ['pellet', 'target', 'zone', 'bone', 'hitbox', 'status', 'reason', 'walls', 't', 'x', 'y', 'z', 'nx', 'ny', 'nz', 'damage'] as const satisfies readonly (keyof ShotHits)[];
export const IMPACT_FIELDS = ['pellet', 'surface', 'exit', 't', 'x', 'y', 'z', 'nx', 'ny', 'nz'] as const satisfies readonly (keyof Impacts)[];

interface Mismatch {
  field: string;
  recorded: number | boolean;
  replayed: number | boolean;
}

/** Compares one part's count and, over the entries both have, every field with Object.is; pushes `name[i].field`. */
function comparePart(
  out: Mismatch[], name: string, fields: readonly string[],
  a: { count: number }, b: { count: number },
): void {
  if (a.count !== b.count) out.push({ field: `${name}.count`, recorded: a.count, replayed: b.count });
  const n = Math.min(a.count, b.count);
  const ra = a as unknown as Record<string, ArrayLike<number>>, rb = b as unknown as Record<string, ArrayLike<number>>;
  for (let i = 0; i < n; i++) {
    for (const f of fields) {
      const x = ra[f]![i]!, y = rb[f]![i]!;
      if (!Object.is(x, y)) out.push({ field: `${name}[${i}].${f}`, recorded: x, replayed: y });
    }
  }
}

/** Compares the pellet results, hits and impacts of two verdicts bit for bit; pushes into `out`. */
export function comparePelletSections(out: Mismatch[], recorded: Verdict, replayed: Verdict): void {
  comparePart(out, 'pellets', PELLET_FIELDS, recorded.pellets, replayed.pellets);
  comparePart(out, 'hits', HIT_FIELDS, recorded.hits, replayed.hits);
  comparePart(out, 'impacts', IMPACT_FIELDS, recorded.impacts, replayed.impacts);
}
