/**
 * 64-bit FNV-1a over bytes, in pure JavaScript (no Node crypto, so clients compute the same name for
 * a world as the server). Names content, it is not a defence against a forger: the audit log records
 * it so a replay can check it runs against the same world bytes.
 */

/** FNV-1a 64 of `bytes`, as 16 lowercase hex digits. */
export function fnv1a64(bytes: Uint8Array): string {
  // The 64-bit state as two 32-bit halves. The prime is 2^40 + 0x1b3, so
  // state * prime = state * 0x1b3 + (lo << 40): the second term only touches the high half.
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  for (let i = 0, n = bytes.length; i < n; i++) {
    lo ^= bytes[i];
    lo >>>= 0;
    const loMul = lo * 0x1b3; // < 2^41, exact in a double
    const carry = Math.floor(loMul / 4294967296);
    const newLo = loMul - carry * 4294967296;
    hi = (Math.imul(hi, 0x1b3) + ((lo << 8) >>> 0) + carry) >>> 0;
    lo = newLo;
  }
  return (hi >>> 0).toString(16).padStart(8, '0') + (lo >>> 0).toString(16).padStart(8, '0');
}
