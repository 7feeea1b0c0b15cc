/**
 * The rig as one binary asset (what a server serves and a browser fetches instead of a JS
 * literal): the shipped RigData's metadata and payload as raw bytes behind a small header. Its
 * content hash is the rig's own (Rig.hash, rigDataHash(meta, base64(payload))), so the asset's name,
 * the hash a server announces on join and the hash an audit log records are one string.
 *
 * Layout (little-endian):
 *
 *   offset size  field
 *   0      4     magic "HRRG" (0x47525248)
 *   4      4     container version (= RIG_BINARY_VERSION)
 *   8      4     rig data format version (RigData.version, rig.ts)
 *   12     4     meta byte length M (ASCII JSON)
 *   16     4     payload byte length P
 *   20     16    content hash, 16 ASCII hex digits
 *   36     M     meta
 *   36+M   P     payload (the bytes RigData.payload encodes in base64)
 *
 * `rigFromBuffer` checks the header, the lengths and the hash before decoding (loadRig then checks
 * the format version and the payload against the metadata): hostile or truncated bytes throw.
 */
import { decodeBase64, encodeBase64, loadRig, type Rig, type RigData } from './rig';

export const RIG_BINARY_MAGIC = 0x47525248;
export const RIG_BINARY_VERSION = 1;
const HEADER_BYTES = 36;
/** A rig asset larger than this is refused unread (the mannequin's is 118 KB). */
export const MAX_RIG_BINARY_BYTES = 64 * 1024 * 1024;

/** RigData (the shipped or a rig file's form) to the binary asset. */
export function rigDataToBuffer(data: RigData): Uint8Array {
  const payload = decodeBase64(data.payload);
  const meta = data.meta;
  const out = new Uint8Array(HEADER_BYTES + meta.length + payload.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, RIG_BINARY_MAGIC, true);
  v.setUint32(4, RIG_BINARY_VERSION, true);
  v.setUint32(8, data.version, true);
  v.setUint32(12, meta.length, true);
  v.setUint32(16, payload.length, true);
  if (!/^[0-9a-f]{16}$/.test(data.hash)) throw new Error(`rigDataToBuffer: hash "${data.hash}" is not 16 hex digits`);
  for (let i = 0; i < 16; i++) out[20 + i] = data.hash.charCodeAt(i);
  for (let i = 0; i < meta.length; i++) {
    const c = meta.charCodeAt(i);
    if (c > 127) throw new Error(`rigDataToBuffer: meta has a non-ASCII character at ${i}`);
    out[HEADER_BYTES + i] = c;
  }
  out.set(payload, HEADER_BYTES + meta.length);
  return out;
}

/** The binary asset back to RigData, checking header and lengths (not yet the hash: loadRig does). */
export function rigDataFromBuffer(buf: ArrayBuffer | ArrayBufferView): RigData {
  const bytes = buf instanceof ArrayBuffer ? new Uint8Array(buf)
    : ArrayBuffer.isView(buf) ? new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength) : null;
  if (bytes === null) throw new Error('rigFromBuffer: pass an ArrayBuffer or a view of one (the bytes rigDataToBuffer produced)');
  if (bytes.byteLength < HEADER_BYTES) throw new Error(`rigFromBuffer: ${bytes.byteLength} bytes is shorter than the ${HEADER_BYTES}-byte header; not a rig asset`);
  if (bytes.byteLength > MAX_RIG_BINARY_BYTES) throw new Error(`rigFromBuffer: ${bytes.byteLength} bytes is over the ${MAX_RIG_BINARY_BYTES}-byte cap`);
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (v.getUint32(0, true) !== RIG_BINARY_MAGIC) throw new Error('rigFromBuffer: bad magic; not a rig asset (expected "HRRG")');
  const container = v.getUint32(4, true);
  if (container !== RIG_BINARY_VERSION) throw new Error(`rigFromBuffer: container version ${container}, this code reads ${RIG_BINARY_VERSION}; fetch the asset the server names`);
  const version = v.getUint32(8, true);
  const m = v.getUint32(12, true);
  const p = v.getUint32(16, true);
  if (HEADER_BYTES + m + p !== bytes.byteLength) {
    throw new Error(`rigFromBuffer: header says ${HEADER_BYTES + m + p} bytes, the asset has ${bytes.byteLength}; truncated or corrupt`);
  }
  let hash = '';
  for (let i = 0; i < 16; i++) hash += String.fromCharCode(bytes[20 + i]!);
  if (!/^[0-9a-f]{16}$/.test(hash)) throw new Error('rigFromBuffer: the header hash is not 16 hex digits; corrupt');
  let meta = '';
  for (let i = 0; i < m; i += 4096) meta += String.fromCharCode.apply(null, Array.from(bytes.subarray(HEADER_BYTES + i, HEADER_BYTES + Math.min(m, i + 4096))));
  const payload = encodeBase64(bytes.subarray(HEADER_BYTES + m));
  return { version, meta, payload, hash };
}

/**
 * Loads a rig from its binary asset. Refuses (throws, saying why) bad magic, versions, lengths, a
 * content hash that does not match the bytes, and, when given, a hash other than `expectedHash`
 * (the one the server announced on join).
 */
export function rigFromBuffer(buf: ArrayBuffer | ArrayBufferView, expectedHash?: string): Rig {
  const data = rigDataFromBuffer(buf);
  if (expectedHash !== undefined && data.hash !== expectedHash) {
    throw new Error(`rigFromBuffer: the asset is rig ${data.hash}, expected ${expectedHash}; fetch the asset the server names`);
  }
  return loadRig(data);
}
