/**
 * The rig's binary asset (shared/rig/rigBinary.ts): the mannequin round-trips to the same rig, and
 * hostile bytes (truncated, padded, wrong magic or version, a flipped payload or meta byte, a hash
 * other than the announced one, not bytes at all) are refused with a reason, never loaded.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MANNEQUIN_RIG } from '../server/rig/mannequin';
import { rigDataFromBuffer, rigDataToBuffer, rigFromBuffer } from '../shared/rig/rigBinary';

const MANNEQUIN_RIG_DATA = MANNEQUIN_RIG.data!; // as read from server/assets/mannequin.hrrg
const bytes = rigDataToBuffer(MANNEQUIN_RIG_DATA);

describe('rig binary asset', () => {
  it('round-trips the mannequin: same hash, triangles, frames and clips', () => {
    expect(rigDataFromBuffer(bytes)).toEqual({ version: MANNEQUIN_RIG_DATA.version, meta: MANNEQUIN_RIG_DATA.meta, payload: MANNEQUIN_RIG_DATA.payload, hash: MANNEQUIN_RIG_DATA.hash });
    const rig = rigFromBuffer(bytes.buffer as ArrayBuffer, MANNEQUIN_RIG.hash);
    expect(rig.hash).toBe(MANNEQUIN_RIG.hash);
    expect(rig.triangles).toEqual(MANNEQUIN_RIG.triangles);
    expect(rig.frames).toEqual(MANNEQUIN_RIG.frames);
    expect(rig.clips).toEqual(MANNEQUIN_RIG.clips);
    // About three quarters of the base64 literal it replaces.
    expect(bytes.length).toBeLessThan(MANNEQUIN_RIG_DATA.payload.length * 0.8);
  });

  it('a view into a larger buffer loads too', () => {
    const big = new Uint8Array(bytes.length + 16);
    big.set(bytes, 8);
    expect(rigFromBuffer(big.subarray(8, 8 + bytes.length)).hash).toBe(MANNEQUIN_RIG.hash);
  });

  it('refuses truncated, padded, foreign and mislabelled bytes with a reason', () => {
    expect(() => rigFromBuffer(bytes.slice(0, 20))).toThrow(/shorter than the 36-byte header/);
    expect(() => rigFromBuffer(bytes.slice(0, bytes.length - 1))).toThrow(/truncated or corrupt/);
    const padded = new Uint8Array(bytes.length + 1);
    padded.set(bytes);
    expect(() => rigFromBuffer(padded)).toThrow(/truncated or corrupt/);
    const magic = bytes.slice();
    magic[0] = 0;
    expect(() => rigFromBuffer(magic)).toThrow(/bad magic/);
    const version = bytes.slice();
    version[4] = 9;
    expect(() => rigFromBuffer(version)).toThrow(/container version 9/);
    expect(() => rigFromBuffer(bytes, '0123456789abcdef')).toThrow(/expected 0123456789abcdef/);
    expect(() => rigFromBuffer('nope' as unknown as Uint8Array)).toThrow(/pass an ArrayBuffer/);
  });

  it('any flipped byte after the header is caught by the content hash (seeded)', () => {
    const metaLen = new DataView(bytes.buffer).getUint32(12, true);
    fc.assert(fc.property(fc.integer({ min: 36, max: bytes.length - 1 }), fc.integer({ min: 1, max: 255 }), (at, x) => {
      const b = bytes.slice();
      b[at]! ^= x;
      // A flipped meta byte may also break the JSON or make it non-ASCII: any refusal is fine, loading is not.
      expect(() => rigFromBuffer(b)).toThrow(at < 36 + metaLen ? /./ : /content hash/);
    }), { seed: 7, numRuns: 200 });
  });
});
