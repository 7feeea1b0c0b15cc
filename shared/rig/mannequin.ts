/**
 * The shipped mannequin rig (built from server/assets/mannequiny-0.3.0.glb by `npm run build:rig`)
 * and the indices of its clips. Loading checks the content hash; MANNEQUIN_RIG.hash is what the
 * audit log records.
 */
import { MANNEQUIN_RIG_DATA } from './mannequinData';
import { loadRig, type Rig } from './rig';

/** Clip indices into MANNEQUIN_RIG.clips (the build writes clips in this order; checked below). */
export const Clip = { IDLE: 0, JOG: 1, RUN: 2, FALL: 3 } as const;
export type Clip = (typeof Clip)[keyof typeof Clip];

export const MANNEQUIN_RIG: Rig = loadRig(MANNEQUIN_RIG_DATA);

const expected = ['Idle-loop', 'Jog-loop', 'Run-loop', 'Fall-loop'];
for (let i = 0; i < expected.length; i++) {
  if (MANNEQUIN_RIG.clips[i]?.name !== expected[i]) {
    throw new Error(`MANNEQUIN_RIG: clip ${i} is ${MANNEQUIN_RIG.clips[i]?.name}, expected ${expected[i]}; rebuild with npm run build:rig`);
  }
}
