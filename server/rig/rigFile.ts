/**
 * Rigs outside the shipped mannequin: the rig file a build writes (`*.rig.json`: the shipped
 * RigData form, versioned and stamped with its content hash, which loading checks), the character
 * map file a build reads (bone and clip overrides), and `rigFromEnv`, which turns the server's RIG
 * setting into a Rig: "mannequin" (the default), a rig file, or a character (.glb/.gltf/.vrm) built
 * on the spot.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { loadRig, type Rig, type RigData } from '../../shared/rig/rig';
import { buildRig, DEFAULT_BUILD_OPTIONS, type CharacterMap } from './buildRig';
import { CLIP_ROLES } from './clipFrames';
import { loadSkinnedCharacter, scaleCharacter, type SkinnedCharacter } from './character';

/** The `format` field of a rig file. */
export const RIG_FILE_FORMAT = 'hitreg-rig';

/** A rig file's text: the RigData fields under a format marker. */
export function rigFileText(data: RigData): string {
  return JSON.stringify({ format: RIG_FILE_FORMAT, version: data.version, hash: data.hash, meta: data.meta, payload: data.payload }) + '\n';
}

/** Parses and checks a rig file (format, field types, then loadRig's version, hash and length checks). */
export function parseRigFile(text: string, path: string): Rig {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new Error(`rig file "${path}" is not JSON (${(err as Error).message}); rebuild it with npm run build:rig -- <character.glb>`);
  }
  const d = doc as Record<string, unknown>;
  if (typeof d !== 'object' || d === null || d.format !== RIG_FILE_FORMAT) {
    throw new Error(`"${path}" is not a hitreg rig file (no "format": "${RIG_FILE_FORMAT}"); build one with npm run build:rig -- <character.glb>`);
  }
  if (typeof d.version !== 'number' || typeof d.hash !== 'string' || typeof d.meta !== 'string' || typeof d.payload !== 'string') {
    throw new Error(`rig file "${path}": version must be a number and hash, meta and payload strings; rebuild it with npm run build:rig -- <character.glb>`);
  }
  try {
    return loadRig({ version: d.version, hash: d.hash, meta: d.meta, payload: d.payload });
  } catch (err) {
    throw new Error(`rig file "${path}": ${(err as Error).message}`);
  }
}

/** Reads a character map file ({"bones": {...}, "clips": {...}}), checking its shape. */
export function readCharacterMap(path: string): CharacterMap {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`character map "${path}": ${(err as Error).message}`);
  }
  const fail = (what: string): never => {
    throw new Error(
      `character map "${path}": ${what}; expected {"bones": {"<bone name>": "<role, hitbox or none>"}, ` +
        `"clips": {"idle"|"jog"|"run"|"fall": "<clip name>"}, "height": <metres>}, every key optional`,
    );
  };
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) fail('not a JSON object');
  const { bones, clips, height, ...rest } = doc as Record<string, unknown>;
  if (Object.keys(rest).length > 0) fail(`unknown keys ${Object.keys(rest).join(', ')}`);
  const strings = (v: unknown, name: string): Record<string, string> | undefined => {
    if (v === undefined) return undefined;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(`"${name}" is not an object`);
    for (const [k, s] of Object.entries(v as object)) if (typeof s !== 'string') fail(`"${name}.${k}" is not a string`);
    return v as Record<string, string>;
  };
  const map: CharacterMap = {};
  if (height !== undefined) {
    if (typeof height !== 'number' || !(height > 0.1 && height < 10)) fail('"height" must be a standing height in metres, between 0.1 and 10');
    map.height = height as number;
  }
  const b = strings(bones, 'bones');
  if (b) map.bones = b;
  const c = strings(clips, 'clips');
  if (c) {
    for (const k of Object.keys(c)) if (!(CLIP_ROLES as readonly string[]).includes(k)) fail(`"clips.${k}" is not one of ${CLIP_ROLES.join(', ')}`);
    map.clips = c;
  }
  return map;
}

/** Loads a character and applies the map's height (uniform scale of the whole character). */
export async function loadMappedCharacter(path: string, map: CharacterMap): Promise<SkinnedCharacter> {
  const ch = await loadSkinnedCharacter(path);
  if (map.height !== undefined) {
    let top = -Infinity;
    for (let i = 1; i < ch.positions.length; i += 3) top = Math.max(top, ch.positions[i]);
    if (!(top > 0)) throw new Error(`${path}: the bind-pose mesh has no point above the origin, so "height" cannot scale it`);
    scaleCharacter(ch, map.height / top);
  }
  return ch;
}

/** The map file beside a character, if any: `hero.glb` -> `hero.map.json`. */
export function characterMapPathFor(characterPath: string): string | undefined {
  const p = characterPath.replace(/\.(glb|gltf|vrm)$/i, '') + '.map.json';
  return existsSync(p) ? p : undefined;
}

/**
 * The rig named by `env.RIG`: unset or "mannequin" -> MANNEQUIN_RIG; a `.json` path -> that rig file;
 * a `.glb`/`.gltf`/`.vrm` path -> built now from the character, with `env.RIG_MAP` (or the map file
 * beside it) as overrides. Throws an error that says what RIG accepts.
 */
export async function rigFromEnv(env: Readonly<Record<string, string | undefined>>): Promise<Rig> {
  const value = env.RIG?.trim();
  // Loaded on first use, so `npm run build:rig` (which imports this module) runs without the asset it rebuilds.
  if (!value || value === 'mannequin') return (await import('./mannequin')).MANNEQUIN_RIG;
  if (/\.json$/i.test(value)) {
    if (!existsSync(value)) throw new Error(`RIG=${value}: no such file; build one with npm run build:rig -- <character.glb>`);
    return parseRigFile(readFileSync(value, 'utf8'), value);
  }
  if (/\.(glb|gltf|vrm)$/i.test(value)) {
    const mapPath = env.RIG_MAP?.trim() || characterMapPathFor(value);
    const map = mapPath ? readCharacterMap(mapPath) : {};
    const built = buildRig(await loadMappedCharacter(value, map), basename(value), DEFAULT_BUILD_OPTIONS, map);
    return loadRig(built.data);
  }
  throw new Error(`RIG=${value}: use "mannequin" (the default), a rig file (.rig.json, made by npm run build:rig -- <character.glb>) or a character (.glb, .gltf, .vrm)`);
}
