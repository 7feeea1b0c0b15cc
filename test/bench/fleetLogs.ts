/**
 * The match logs of the fleet benchmark (fleet.bench.ts) and the fleet tests, made cheaply: a few
 * real synthetic matches (server/behaviour/synth: the real recorder, movement, validateShot, with
 * identity records), then distinct copies of them. A copy is the same match with another room id
 * in its header and other player ids in its identity records, each changed in place (same lengths)
 * with the record's CRC written again: a valid log that audits exactly as its original, with its
 * own bytes and so its own log id. In the benchmark copy j's slot s is player (j x players + s) mod
 * `pool`, so the same players come back across matches. Poison: logs that cannot be evidence (not a log, empty, a
 * header cut short, truncated halfway, a record's byte flipped).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from '../../shared/matchlog/crc32';
import { readFrames } from '../../shared/matchlog/frame';
import { decodeHeader, RecordType } from '../../shared/matchlog/records';
import { IDENTITY_HEAD_BYTES } from '../../shared/matchlog/identityRecord';
import { loadWorld, DEFAULT_LEVEL_PATH } from '../../server/level/gltf';
import { synthesizeMatch } from '../../server/behaviour/synth/synthMatch';

const ROOM_DIGITS = 7;
const ID_DIGITS = 5;
const roomIdOf = (j: number): string => `fleet-${String(j).padStart(ROOM_DIGITS, '0')}`;
/** Player ids of one fixed length, so a copy's identity records keep their size. */
export const playerIdOf = (n: number): string => `player-${String(n).padStart(ID_DIGITS, '0')}`;

export interface FleetLogOptions {
  /** Distinct synthetic matches to copy from. */
  bases: number;
  players: number;
  seconds: number;
  /** Players to draw ids from (>= players). */
  pool: number;
  seed?: number;
}

/** Synthesizes the base matches into `dir`; slot 0 verified, the others named by the client. */
export async function makeBaseLogs(dir: string, o: FleetLogOptions): Promise<Uint8Array[]> {
  mkdirSync(dir, { recursive: true });
  const world = await loadWorld();
  const out: Uint8Array[] = [];
  for (let k = 0; k < o.bases; k++) {
    const path = join(dir, `base-${k}.hrml`);
    await synthesizeMatch({
      world, levelPath: DEFAULT_LEVEL_PATH, path, seed: (o.seed ?? 1) * 1000 + k, players: o.players, durationS: o.seconds,
      roomId: roomIdOf(0),
      identities: Array.from({ length: o.players }, (_, s) => ({ slot: s, playerId: playerIdOf(0), verified: s === 0 })),
    });
    out.push(new Uint8Array(readFileSync(path)));
  }
  return out;
}

/** Writes the CRC of the frame whose payload is at [at, at + length) again. */
function fixCrc(b: Uint8Array, at: number, length: number): void {
  new DataView(b.buffer, b.byteOffset, b.byteLength).setUint32(at + length, crc32(b, at - 1, at + length), true);
}

const enc = new TextEncoder();

/**
 * Copy `j` of `base`: its room id's last digits replaced by j, each identity record's id by
 * `idFor(slot)` (of the same UTF-8 length as the id it replaces).
 */
export function distinctCopy(base: Uint8Array, j: number, idFor: (slot: number) => string): Uint8Array {
  const b = base.slice();
  const frames = readFrames(b).frames;
  const header = frames.find((f) => f.type === RecordType.HEADER)!;
  const payload = b.subarray(header.payloadOffset, header.payloadOffset + header.payloadLength);
  const old = (decodeHeader(payload) as { roomId: string }).roomId;
  const tail = Math.min(ROOM_DIGITS, old.length);
  const from = enc.encode(`"roomId":${JSON.stringify(old)}`);
  const to = enc.encode(`"roomId":${JSON.stringify(old.slice(0, old.length - tail) + String(j % 10 ** tail).padStart(tail, '0'))}`);
  const at = Buffer.from(payload).indexOf(Buffer.from(from));
  if (at < 0 || to.length !== from.length) throw new Error('the base log has no room id to change');
  payload.set(to, at);
  fixCrc(b, header.payloadOffset, header.payloadLength);
  for (const f of frames) {
    if (f.type !== RecordType.IDENTITY) continue;
    const slot = b[f.payloadOffset]! | (b[f.payloadOffset + 1]! << 8);
    const id = enc.encode(idFor(slot));
    if (id.length !== f.payloadLength - IDENTITY_HEAD_BYTES) throw new Error(`slot ${slot}: the new id must be as long as the old (${f.payloadLength - IDENTITY_HEAD_BYTES} bytes)`);
    b.set(id, f.payloadOffset + IDENTITY_HEAD_BYTES);
    fixCrc(b, f.payloadOffset, f.payloadLength);
  }
  return b;
}

export type PoisonKind = 'not-a-log' | 'empty' | 'cut-header' | 'truncated' | 'corrupt';
export const POISON_KINDS: readonly PoisonKind[] = ['not-a-log', 'empty', 'cut-header', 'truncated', 'corrupt'];

/** A log that cannot be evidence, made from `good` (a valid log). */
export function poisonOf(kind: PoisonKind, good: Uint8Array): Uint8Array {
  switch (kind) {
    case 'not-a-log': return enc.encode('this is not a match log, whatever its name says\n');
    case 'empty': return new Uint8Array(0);
    case 'cut-header': return good.slice(0, 20);
    case 'truncated': return good.slice(0, Math.floor(good.length / 2) + 3);
    case 'corrupt': {
      const b = good.slice();
      b[Math.floor(b.length / 2)]! ^= 0x5a;
      return b;
    }
  }
}
