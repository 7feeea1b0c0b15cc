/**
 * The shipped rig as a data file: server/assets/mannequin.hrrg is the one copy. Node code loads it
 * through server/rig/mannequin.ts (content hash and clip order checked), the file is in the
 * canonical form rigDataToBuffer writes, a rig whose clips are out of order is refused, and the
 * package ships the same bytes (dist/lib/assets/, built by the global setup).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MANNEQUIN_RIG, MANNEQUIN_RIG_PATH } from '../server/rig/mannequin';
import { Clip, MANNEQUIN_CLIP_NAMES, mannequinFromBuffer } from '../shared/rig/mannequin';
import { rigDataHash, type RigMeta } from '../shared/rig/rig';
import { rigDataFromBuffer, rigDataToBuffer } from '../shared/rig/rigBinary';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const bytes = new Uint8Array(readFileSync(MANNEQUIN_RIG_PATH));

describe('mannequin rig asset', () => {
  it('is the file the loader read, in canonical form, with its clips in Clip order', () => {
    expect(MANNEQUIN_RIG_PATH).toBe(join(ROOT, 'server', 'assets', 'mannequin.hrrg'));
    expect(rigDataToBuffer(rigDataFromBuffer(bytes))).toEqual(bytes);
    expect(rigDataFromBuffer(bytes)).toEqual(MANNEQUIN_RIG.data);
    expect(mannequinFromBuffer(bytes, MANNEQUIN_RIG.hash).hash).toBe(MANNEQUIN_RIG.hash);
    expect(MANNEQUIN_RIG.clips.map((c) => c.name)).toEqual(MANNEQUIN_CLIP_NAMES);
    expect(MANNEQUIN_RIG.clips[Clip.RUN]!.name).toBe('Run-loop');
  });

  it('refuses a rig whose clips are out of order, and a flipped byte', () => {
    const data = rigDataFromBuffer(bytes);
    const meta = JSON.parse(data.meta) as RigMeta;
    [meta.clips[0], meta.clips[1]] = [meta.clips[1]!, meta.clips[0]!];
    const swapped = JSON.stringify(meta);
    const reordered = rigDataToBuffer({ ...data, meta: swapped, hash: rigDataHash(swapped, data.payload) });
    expect(() => mannequinFromBuffer(reordered)).toThrow(/clip 0 is Jog-loop, expected Idle-loop/);
    const flipped = bytes.slice();
    flipped[bytes.length - 100] ^= 1;
    expect(() => mannequinFromBuffer(flipped)).toThrow(/hash/);
  });

  it('the package ships the same bytes', () => {
    expect(new Uint8Array(readFileSync(join(ROOT, 'dist', 'lib', 'assets', 'mannequin.hrrg')))).toEqual(bytes);
  });
});
