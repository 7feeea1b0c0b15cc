/**
 * FNV-1a 64-bit content hash in pure JavaScript (no crypto module, so shared/ can run it in a
 * browser). The rig build stamps the shipped data with it and loading checks it, so the audit log
 * can name exactly which rig geometry a verdict used. Not a cryptographic hash: it detects
 * accidental edits and mismatched builds, not tampering.
 */

/** FNV-1a 64 over the char codes of `text` (each must be < 256), as 16 lower-case hex digits. */
export function fnv1a64(text: string): string {
  // 64-bit state as four 16-bit limbs (h0 lowest), so every product stays exact in a double.
  let h0 = 0x2325, h1 = 0x8422, h2 = 0x9ce4, h3 = 0xcbf2;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 255) throw new Error(`fnv1a64: char code ${c} at ${i} is not a byte; hash ASCII/Latin-1 text only`);
    h0 ^= c;
    // Multiply by the FNV prime 2^40 + 0x1b3 (= 435): limb products plus the 2^40 term as << 8 two limbs up.
    let t0 = h0 * 435;
    let t1 = h1 * 435;
    let t2 = h2 * 435;
    let t3 = h3 * 435;
    t2 += h0 << 8;
    t3 += h1 << 8;
    t1 += t0 >>> 16;
    h0 = t0 & 0xffff;
    t2 += t1 >>> 16;
    h1 = t1 & 0xffff;
    h3 = (t3 + (t2 >>> 16)) & 0xffff;
    h2 = t2 & 0xffff;
  }
  return hex4(h3) + hex4(h2) + hex4(h1) + hex4(h0);
}

function hex4(v: number): string {
  const s = v.toString(16);
  return '0000'.slice(s.length) + s;
}
