/**
 * The match log's projectile records (format 10 on): a spawn (the launch and the state after its
 * catch-up), a flight end (how, where, when, a direct hit and what the match applied) and a blast
 * (its centre and every victim with what the match applied), the records of
 * shared/projectile/flights.ts, so the audit re-flies each projectile from its spawn and compares
 * the end and blast it computes field by field. Pure (DataView only). Little-endian.
 *
 * SPAWN (160 bytes): u32 id, u16 index, u16 shooter, u16 weapon, u8 mode, u8 alive, i32 bounces,
 *   f64 seq, f64 fireMs fromMs toMs stepMs, f64 x y z dx dy dz (launch), f64 x y z vx vy vz ageMs (after the catch-up)
 * END (96 bytes): u32 id, i32 tick (-1: the catch-up), u16 shooter, u16 weapon, u8 kind, u8 killed,
 *   u16 reserved, i32 player zone hitbox bounces, f64 timeMs x y z ageMs damage applied healthAfter
 * BLAST (50 + 65 n bytes): u32 id, u16 shooter, u16 weapon, f64 timeMs x y z, u32 total, u32 blocked,
 *   u16 n, then n x (u16 slot, u8 zone, u8 via, i32 hitbox, f64 distance damage x y z applied healthAfter, u8 killed)
 */
import type { ProjectileBlastData, ProjectileEndData, ProjectileSpawnData } from '../projectile/flights';
import { createSplashHits } from '../projectile/explosion';
import type { FlightEventKind } from '../projectile/flight';

export const ProjectileRecordType = { SPAWN: 6, END: 7, BLAST: 8 } as const;
export const SPAWN_BYTES = 160;
export const END_RECORD_BYTES = 96;
export const BLAST_HEAD_BYTES = 50;
export const BLAST_ENTRY_BYTES = 65;

export function blastRecordBytes(b: ProjectileBlastData): number {
  return BLAST_HEAD_BYTES + BLAST_ENTRY_BYTES * Math.min(b.hits.count, 0xffff);
}

export function writeSpawn(view: DataView, at: number, s: ProjectileSpawnData): number {
  view.setUint32(at, s.id >>> 0, true);
  view.setUint16(at + 4, s.index, true);
  view.setUint16(at + 6, s.shooter, true);
  view.setUint16(at + 8, s.weapon, true);
  view.setUint8(at + 10, s.mode);
  view.setUint8(at + 11, s.alive ? 1 : 0);
  view.setInt32(at + 12, s.bounces, true);
  const f = [s.seq, s.fireMs, s.fromMs, s.toMs, s.stepMs, s.x, s.y, s.z, s.dx, s.dy, s.dz, s.sx, s.sy, s.sz, s.vx, s.vy, s.vz, s.ageMs];
  for (let k = 0; k < f.length; k++) view.setFloat64(at + 16 + 8 * k, f[k]!, true);
  return SPAWN_BYTES;
}

export function readSpawn(out: ProjectileSpawnData, view: DataView, at: number, length: number): boolean {
  if (length !== SPAWN_BYTES) return false;
  out.id = view.getUint32(at, true);
  out.index = view.getUint16(at + 4, true);
  out.shooter = view.getUint16(at + 6, true);
  out.weapon = view.getUint16(at + 8, true);
  out.mode = view.getUint8(at + 10);
  out.alive = view.getUint8(at + 11) === 1;
  out.bounces = view.getInt32(at + 12, true);
  const g = (k: number) => view.getFloat64(at + 16 + 8 * k, true);
  out.seq = g(0); out.fireMs = g(1); out.fromMs = g(2); out.toMs = g(3); out.stepMs = g(4);
  out.x = g(5); out.y = g(6); out.z = g(7); out.dx = g(8); out.dy = g(9); out.dz = g(10);
  out.sx = g(11); out.sy = g(12); out.sz = g(13); out.vx = g(14); out.vy = g(15); out.vz = g(16); out.ageMs = g(17);
  return true;
}

export function writeEnd(view: DataView, at: number, e: ProjectileEndData): number {
  view.setUint32(at, e.id >>> 0, true);
  view.setInt32(at + 4, e.tick, true);
  view.setUint16(at + 8, e.shooter, true);
  view.setUint16(at + 10, e.weapon, true);
  view.setUint8(at + 12, e.kind);
  view.setUint8(at + 13, e.killed ? 1 : 0);
  view.setUint16(at + 14, 0, true);
  view.setInt32(at + 16, e.player, true);
  view.setInt32(at + 20, e.zone, true);
  view.setInt32(at + 24, e.hitbox, true);
  view.setInt32(at + 28, e.bounces, true);
  const f = [e.timeMs, e.x, e.y, e.z, e.ageMs, e.damage, e.applied, e.healthAfter];
  for (let k = 0; k < f.length; k++) view.setFloat64(at + 32 + 8 * k, f[k]!, true);
  return END_RECORD_BYTES;
}

export function readEnd(out: ProjectileEndData, view: DataView, at: number, length: number): boolean {
  if (length !== END_RECORD_BYTES) return false;
  out.id = view.getUint32(at, true);
  out.tick = view.getInt32(at + 4, true);
  out.shooter = view.getUint16(at + 8, true);
  out.weapon = view.getUint16(at + 10, true);
  out.kind = view.getUint8(at + 12) as FlightEventKind;
  out.killed = view.getUint8(at + 13) === 1;
  out.player = view.getInt32(at + 16, true);
  out.zone = view.getInt32(at + 20, true);
  out.hitbox = view.getInt32(at + 24, true);
  out.bounces = view.getInt32(at + 28, true);
  const g = (k: number) => view.getFloat64(at + 32 + 8 * k, true);
  out.timeMs = g(0); out.x = g(1); out.y = g(2); out.z = g(3); out.ageMs = g(4); out.damage = g(5); out.applied = g(6); out.healthAfter = g(7);
  return true;
}

export function writeBlast(view: DataView, at: number, b: ProjectileBlastData): number {
  const h = b.hits, n = Math.min(h.count, 0xffff);
  view.setUint32(at, b.id >>> 0, true);
  view.setUint16(at + 4, b.shooter, true);
  view.setUint16(at + 6, b.weapon, true);
  view.setFloat64(at + 8, b.timeMs, true);
  view.setFloat64(at + 16, b.x, true);
  view.setFloat64(at + 24, b.y, true);
  view.setFloat64(at + 32, b.z, true);
  view.setUint32(at + 40, h.total >>> 0, true);
  view.setUint32(at + 44, h.blocked >>> 0, true);
  view.setUint16(at + 48, n, true);
  let o = at + BLAST_HEAD_BYTES;
  for (let k = 0; k < n; k++, o += BLAST_ENTRY_BYTES) {
    view.setUint16(o, h.player[k]!, true);
    view.setUint8(o + 2, h.zone[k]!);
    view.setUint8(o + 3, h.via[k]!);
    view.setInt32(o + 4, h.hitbox[k]!, true);
    view.setFloat64(o + 8, h.distance[k]!, true);
    view.setFloat64(o + 16, h.damage[k]!, true);
    view.setFloat64(o + 24, h.x[k]!, true);
    view.setFloat64(o + 32, h.y[k]!, true);
    view.setFloat64(o + 40, h.z[k]!, true);
    view.setFloat64(o + 48, b.applied[k]!, true);
    view.setFloat64(o + 56, b.healthAfter[k]!, true);
    view.setUint8(o + 64, b.killed[k]!);
  }
  return o - at;
}

/** Reads a blast into `out` (its arrays grown when the record holds more victims). */
export function readBlast(out: ProjectileBlastData, view: DataView, at: number, length: number): boolean {
  if (length < BLAST_HEAD_BYTES) return false;
  const n = view.getUint16(at + 48, true);
  if (length !== BLAST_HEAD_BYTES + n * BLAST_ENTRY_BYTES) return false;
  if (out.hits.capacity < n) {
    out.hits = createSplashHits(n);
    out.applied = new Float64Array(n); out.healthAfter = new Float64Array(n); out.killed = new Uint8Array(n);
  }
  const h = out.hits;
  out.id = view.getUint32(at, true);
  out.shooter = view.getUint16(at + 4, true);
  out.weapon = view.getUint16(at + 6, true);
  out.timeMs = view.getFloat64(at + 8, true);
  out.x = view.getFloat64(at + 16, true); out.y = view.getFloat64(at + 24, true); out.z = view.getFloat64(at + 32, true);
  h.total = view.getUint32(at + 40, true);
  h.blocked = view.getUint32(at + 44, true);
  h.count = n;
  let o = at + BLAST_HEAD_BYTES;
  for (let k = 0; k < n; k++, o += BLAST_ENTRY_BYTES) {
    h.player[k] = view.getUint16(o, true);
    h.zone[k] = view.getUint8(o + 2);
    h.via[k] = view.getUint8(o + 3);
    h.hitbox[k] = view.getInt32(o + 4, true);
    h.distance[k] = view.getFloat64(o + 8, true);
    h.damage[k] = view.getFloat64(o + 16, true);
    h.x[k] = view.getFloat64(o + 24, true); h.y[k] = view.getFloat64(o + 32, true); h.z[k] = view.getFloat64(o + 40, true);
    out.applied[k] = view.getFloat64(o + 48, true);
    out.healthAfter[k] = view.getFloat64(o + 56, true);
    out.killed[k] = view.getUint8(o + 64);
  }
  return true;
}
