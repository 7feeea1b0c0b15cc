/**
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, the one zip, PNG and zlib use), table
 * driven, pure TypeScript. The match log frames every record with it so a torn tail or a flipped
 * byte is caught on read. Pure so a browser audit tool computes the same checksums.
 *
 * Slicing-by-8 (Intel's method, Kounavis & Berry 2005): eight 256-entry tables let the loop fold
 * eight bytes per step with independent lookups instead of one byte per dependent lookup; reading a
 * long log is dominated by this loop. The bytewise loop handles the head and the tail.
 */

/** TABLES[k * 256 + b]: CRC of byte b followed by k zero bytes. Built once at module load. */
const TABLES = /* @__PURE__ */ (() => {
  const t = new Uint32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  for (let n = 0; n < 256; n++) {
    let c = t[n]!;
    for (let k = 1; k < 8; k++) {
      c = t[c & 0xff]! ^ (c >>> 8);
      t[k * 256 + n] = c >>> 0;
    }
  }
  return t;
})();

/**
 * Continues a CRC-32 over `bytes[start, end)`. Pass the previous result as `crc` to checksum data
 * in pieces (0 to start). Returns the unsigned 32-bit checksum.
 */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length, crc = 0): number {
  const T = TABLES;
  let c = ~crc;
  let i = start;
  for (const stop = end - 8; i <= stop; i += 8) {
    const lo = c ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
    const hi = bytes[i + 4]! | (bytes[i + 5]! << 8) | (bytes[i + 6]! << 16) | (bytes[i + 7]! << 24);
    c = T[1792 + (lo & 0xff)]! ^ T[1536 + ((lo >>> 8) & 0xff)]! ^ T[1280 + ((lo >>> 16) & 0xff)]! ^ T[1024 + (lo >>> 24)]!
      ^ T[768 + (hi & 0xff)]! ^ T[512 + ((hi >>> 8) & 0xff)]! ^ T[256 + ((hi >>> 16) & 0xff)]! ^ T[hi >>> 24]!;
  }
  for (; i < end; i++) c = T[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}
