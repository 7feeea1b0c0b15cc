/**
 * The animation part of a rig build (./buildRig): which of a character's clips plays each of the
 * rig's four roles, those clips resampled at ~30 Hz into the model-space rigid frames of the
 * hitboxes' joints, and those frames quantised to the rig format's int16 (shared/rig/rig.ts) and
 * read back as the loader will see them.
 */
import { BONE_STRIDE, FRAME_ROTATION_SCALE, FRAME_TRANSLATION_QUANTUM, normaliseRotations, type RigMeta } from '../../shared/rig/rig';
import { globalMatrices, sampleLocalTRS } from './skinning';
import { rigidFromMat4 } from './mat4';
import type { AnimationClipData, SkinnedCharacter } from './character';

/** The four clips every rig carries, in this order: Clip.IDLE = 0, JOG = 1, RUN = 2, FALL = 3 (Clip in shared/rig/mannequin.ts). */
export const CLIP_ROLES = ['idle', 'jog', 'run', 'fall'] as const;
export type ClipRole = (typeof CLIP_ROLES)[number];

const CLIP_PATTERNS: Record<ClipRole, RegExp> = { idle: /idle/i, jog: /jog|walk/i, run: /run|sprint/i, fall: /fall|jump|air/i };
/** A role without a clip of its own borrows one, in this order of preference. */
const CLIP_FALLBACKS: Record<ClipRole, ClipRole[]> = { idle: [], jog: ['run', 'idle'], run: ['jog', 'idle'], fall: ['idle'] };

/**
 * The clip of each role: the map's choice, else the first clip whose name fits (idle, jog|walk,
 * run|sprint, fall|jump|air), else a neighbouring role's, else the rest pose held still.
 */
export function pickClips(ch: SkinnedCharacter, chosen: Partial<Record<ClipRole, string>> = {}): AnimationClipData[] {
  const found = new Map<ClipRole, AnimationClipData>();
  for (const role of CLIP_ROLES) {
    const want = chosen[role];
    if (want !== undefined) {
      const clip = ch.clips.find((c) => c.name === want);
      if (!clip) throw new Error(`clip map: ${role} is "${want}", but the character's clips are: ${ch.clips.map((c) => c.name).join(', ') || '(none)'}`);
      found.set(role, clip);
      continue;
    }
    const clip = ch.clips.find((c) => CLIP_PATTERNS[role].test(c.name) && c.duration > 0);
    if (clip) found.set(role, clip);
  }
  const rest: AnimationClipData = { name: 'rest', duration: 1, channels: [] };
  return CLIP_ROLES.map((role) => found.get(role) ?? CLIP_FALLBACKS[role].map((r) => found.get(r)).find((c) => c) ?? rest);
}

export interface SampledClips {
  /** Every frame of every clip in order: per hitbox, the rigid frame [t, q] (BONE_STRIDE numbers) of its joint. */
  frameParts: number[];
  clipMeta: RigMeta['clips'];
}

/**
 * Clip frames at ~sampleRate, frame i at i * duration / n (frame n repeats frame 0 for loops), each
 * the model-space rigid frame of the joint `primary[h]` of every hitbox h.
 */
export function sampleClipFrames(ch: SkinnedCharacter, clips: AnimationClipData[], primary: Int32Array, sampleRate: number): SampledClips {
  const H = primary.length;
  const tmp = new Float64Array(BONE_STRIDE);
  const local = new Float64Array(ch.nodeNames.length * 10);
  const globals = new Float64Array(ch.nodeNames.length * 16);
  const frameParts: number[] = [];
  const clipMeta: RigMeta['clips'] = [];
  for (const clip of clips) {
    const n = Math.max(1, Math.round(clip.duration * sampleRate));
    for (let i = 0; i <= n; i++) {
      sampleLocalTRS(local, ch, clip, (i * clip.duration) / n);
      globalMatrices(globals, ch, local);
      for (let h = 0; h < H; h++) {
        rigidFromMat4(tmp, globals.subarray(primary[h] * 16, primary[h] * 16 + 16));
        frameParts.push(...tmp);
      }
    }
    clipMeta.push({ name: clip.name, duration: Math.fround(clip.duration), frameCount: n + 1 });
  }
  return { frameParts, clipMeta };
}

/** Quantises frames to int16 (see shared/rig/rig.ts); throws when a bone leaves the format's +-4 m. */
export function quantiseFrames(frameParts: number[], source: string): Int16Array {
  const frameQ = new Int16Array(frameParts.length);
  for (let i = 0; i < frameParts.length; i++) {
    const v = i % BONE_STRIDE < 3 ? frameParts[i] / FRAME_TRANSLATION_QUANTUM : frameParts[i] * FRAME_ROTATION_SCALE;
    const q = Math.round(v);
    if (q < -32767 || q > 32767) {
      throw new Error(
        `buildRig: ${source}: a bone moves ${Math.abs(frameParts[i]).toFixed(2)} m from the model origin, beyond the rig format's ` +
          `+-4 m; if the character is not modelled in metres, give its standing height in its map file, e.g. {"height": 1.8}`,
      );
    }
    frameQ[i] = q;
  }
  return frameQ;
}

/** The frames the loader will see: quantised values scaled back, rotations renormalised. */
export function dequantiseFrames(frameQ: Int16Array): Float64Array {
  const frames = new Float64Array(frameQ.length);
  for (let i = 0; i < frameQ.length; i++) frames[i] = i % BONE_STRIDE < 3 ? frameQ[i] * FRAME_TRANSLATION_QUANTUM : frameQ[i] / FRAME_ROTATION_SCALE;
  normaliseRotations(frames);
  return frames;
}
