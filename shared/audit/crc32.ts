/**
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, the one zip, PNG and zlib use), table
 * driven, pure TypeScript. The match log frames every record with it so a torn tail or a flipped
 * byte is caught on read. Pure so a browser audit tool computes the same checksums.
 */

/** 256-entry lookup table, built once at module load. */
const TABLE = /* @__PURE__ */ (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/**
 * Continues a CRC-32 over `bytes[start, end)`. Pass the previous result as `crc` to checksum data
 * in pieces (0 to start). Returns the unsigned 32-bit checksum.
 */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length, crc = 0): number {
  let c = (crc ^ 0xffffffff) >>> 0;
  for (let i = start; i < end; i++) c = TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
