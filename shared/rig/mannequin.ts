/**
 * The shipped mannequin rig's contract: the indices of its clips, and mannequinFromBuffer, which
 * loads the rig from its binary asset (rigFromBuffer: header, lengths and content hash checked) and
 * checks the clips are in that order. The bytes are the caller's to get: Node code has them from
 * server/rig/mannequin.ts (the committed server/assets/mannequin.hrrg, written by
 * `npm run build:rig`), a page fetches them (the package's `hitreg/assets/mannequin.hrrg`, or the
 * server's `/assets/rig/<hash>.hrrg`). MANNEQUIN_RIG.hash is what the audit log records.
 */
import { rigFromBuffer } from './rigBinary';
import type { Rig } from './rig';

/** Clip indices into the mannequin's clips (the build writes clips in this order; mannequinFromBuffer checks it). */
export const Clip = { IDLE: 0, JOG: 1, RUN: 2, FALL: 3 } as const;
export type Clip = (typeof Clip)[keyof typeof Clip];

/** The mannequin's clip names, in Clip order. */
export const MANNEQUIN_CLIP_NAMES: readonly string[] = ['Idle-loop', 'Jog-loop', 'Run-loop', 'Fall-loop'];

/**
 * The mannequin rig from its asset's bytes. Throws (saying what to do) on bytes that are not a rig
 * asset or fail its hash, on a hash other than `expectedHash` when given, and on clips out of order.
 */
export function mannequinFromBuffer(bytes: ArrayBuffer | ArrayBufferView, expectedHash?: string): Rig {
  const rig = rigFromBuffer(bytes, expectedHash);
  for (let i = 0; i < MANNEQUIN_CLIP_NAMES.length; i++) {
    if (rig.clips[i]?.name !== MANNEQUIN_CLIP_NAMES[i]) {
      throw new Error(`mannequin rig: clip ${i} is ${rig.clips[i]?.name}, expected ${MANNEQUIN_CLIP_NAMES[i]}; rebuild with npm run build:rig`);
    }
  }
  return rig;
}
