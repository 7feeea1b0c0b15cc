/**
 * The shipped mannequin rig for Node code (the server, the simulator, audits, tests, benches): read
 * once, when this module loads, from server/assets/mannequin.hrrg, and checked (content hash, clip
 * order: mannequinFromBuffer in shared/rig/mannequin). Clip is re-exported so callers import both
 * from here.
 */
import { readFileSync } from 'node:fs';
import { mannequinFromBuffer } from '../../shared/rig/mannequin';
import type { Rig } from '../../shared/rig/rig';
import { MANNEQUIN_RIG_PATH } from './paths';

export { Clip, MANNEQUIN_CLIP_NAMES } from '../../shared/rig/mannequin';
export { MANNEQUIN_RIG_PATH };

function readMannequin(path: string): Rig {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new Error(`mannequin rig: cannot read ${path} (${e instanceof Error ? e.message : String(e)}); rebuild it with npm run build:rig`);
  }
  return mannequinFromBuffer(bytes);
}

export const MANNEQUIN_RIG: Rig = readMannequin(MANNEQUIN_RIG_PATH);
