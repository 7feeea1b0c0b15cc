/**
 * Weapon messages as plain objects (what a game sends over Colyseus's JSON/msgpack channel) and
 * their one canonical encoding into the binary frame (shot.ts), which is what the pipeline judges
 * and the match log keeps. An object that cannot be a frame (a wrong type, a seq that is not a
 * u32, a weapon id that is not a byte, a segment without three numbers) is refused with the field
 * at fault; numbers that can be written but not believed (NaN, huge) go into the frame as they are,
 * and the pipeline refuses them with its own reasons, as it would a frame.
 */
import { createShotMessage, encodeShot, ShotAction, SHOT_VERSION, type ShotMessage } from './shot';
import { MAX_PELLETS } from '../weapons';

/** A point as an array [x, y, z] or an object { x, y, z }, metres, world space. */
export type PointLike = readonly [number, number, number] | { readonly x: number; readonly y: number; readonly z: number };

/** A weapon message as an object. `Id` is how the game names players (for the claimed target). */
export interface ShotObject<Id = string | number> {
  /** Per shooter, strictly increasing over all its weapon messages; an integer 0..2^32-1. */
  seq: number;
  /** 'fire' (default), 'switch' (to `weapon`) or 'reload' (of `weapon`, the one in hand). */
  action?: 'fire' | 'switch' | 'reload';
  /** Weapon id of the match's weapon table (an integer 0..255). */
  weapon: number;
  /** When the client acted, ms on the server's clock (its estimate of it). */
  timeMs: number;
  /**
   * The server time of what the client was drawing when it fired (fire only). Absent: the render
   * time the room supplies (e.g. Colyseus's input stamp), else the action time less the player's
   * interpolation delay.
   */
  renderTimeMs?: number;
  /** The segment, start (the muzzle or eye) and stop (fire only). */
  start?: PointLike;
  end?: PointLike;
  /** The player the client thinks it hit (audits only; the server decides hits on its own). */
  target?: Id | null;
  /**
   * For a weapon with a spread pattern: each pellet's stop point as the client predicted it
   * (spread.ts predictPellets); `start` -> `end` is then the aim. At most MAX_PELLETS.
   */
  pellets?: readonly PointLike[];
}

const ACTIONS: Readonly<Record<string, number>> = { fire: ShotAction.FIRE, switch: ShotAction.SWITCH, reload: ShotAction.RELOAD };

/** How encodeShotObject fills what the object leaves to the room. */
export interface ShotObjectContext<Id> {
  /** Render time for a fire without one (NaN: action time - interpDelayMs). */
  renderTimeMs: number;
  interpDelayMs: number;
  /** Slot of a claimed target, -1 when unknown. */
  slotOf(id: Id): number;
}

// scratch: the message handed to encodeShot
const scratch: ShotMessage = createShotMessage();

function point(p: unknown, field: string, out: number[]): string | null {
  if (Array.isArray(p)) {
    if (p.length !== 3) return `${field} must be [x, y, z]`;
    for (let k = 0; k < 3; k++) {
      if (typeof p[k] !== 'number') return `${field}[${k}] is not a number`;
      out[k] = p[k] as number;
    }
    return null;
  }
  if (p === null || typeof p !== 'object') return `${field} must be [x, y, z] or { x, y, z }`;
  const o = p as Record<string, unknown>;
  if (typeof o.x !== 'number' || typeof o.y !== 'number' || typeof o.z !== 'number') return `${field}.x, .y and .z must be numbers`;
  out[0] = o.x; out[1] = o.y; out[2] = o.z;
  return null;
}

const startScratch = [0, 0, 0];
const endScratch = [0, 0, 0];

/**
 * Encodes `obj` into `out` (SHOT_MAX_BYTES; the frame is its first shotBytes(out[3]) bytes) as the frame it stands for. Returns null when it did, or
 * why it cannot be a frame at all (then `out` holds nothing meaningful). Never throws.
 */
export function encodeShotObject<Id>(out: Uint8Array, obj: unknown, ctx: ShotObjectContext<Id>): string | null {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj) || obj instanceof Uint8Array) return 'not a weapon message object';
  const o = obj as Record<string, unknown>;
  const seq = o.seq;
  if (!(typeof seq === 'number' && Number.isInteger(seq) && seq >= 0 && seq <= 0xffffffff)) return 'seq must be an integer 0..4294967295';
  const action = o.action === undefined ? ShotAction.FIRE : typeof o.action === 'string' ? ACTIONS[o.action] : undefined;
  if (action === undefined) return "action must be 'fire', 'switch' or 'reload'";
  const weapon = o.weapon;
  if (!(typeof weapon === 'number' && Number.isInteger(weapon) && weapon >= 0 && weapon <= 255)) return 'weapon must be an integer 0..255';
  if (typeof o.timeMs !== 'number') return 'timeMs must be a number';
  const m = scratch;
  m.version = SHOT_VERSION;
  m.action = action;
  m.weapon = weapon;
  m.seq = seq;
  m.timeMs = o.timeMs;
  m.claimedTarget = -1;
  m.renderTimeMs = 0;
  m.sx = 0; m.sy = 0; m.sz = 0; m.ex = 0; m.ey = 0; m.ez = 0;
  m.pelletCount = 0;
  if (action === ShotAction.FIRE) {
    const problem = point(o.start, 'start', startScratch) ?? point(o.end, 'end', endScratch);
    if (problem !== null) return problem;
    m.sx = startScratch[0]!; m.sy = startScratch[1]!; m.sz = startScratch[2]!;
    m.ex = endScratch[0]!; m.ey = endScratch[1]!; m.ez = endScratch[2]!;
    if (o.renderTimeMs !== undefined && typeof o.renderTimeMs !== 'number') return 'renderTimeMs must be a number';
    // The object's own render time as it is (a NaN is the pipeline's to refuse); else the room's, else the estimate.
    if (typeof o.renderTimeMs === 'number') m.renderTimeMs = o.renderTimeMs;
    else m.renderTimeMs = ctx.renderTimeMs === ctx.renderTimeMs ? ctx.renderTimeMs : o.timeMs - ctx.interpDelayMs;
    if (o.target !== undefined && o.target !== null) {
      const t = ctx.slotOf(o.target as Id);
      m.claimedTarget = Number.isInteger(t) && t >= 0 ? t : -1;
    }
    if (o.pellets !== undefined) {
      const list = o.pellets;
      if (!Array.isArray(list) || list.length > MAX_PELLETS) return `pellets must be a list of at most ${MAX_PELLETS} points`;
      for (let k = 0; k < list.length; k++) {
        const problem = point(list[k], `pellets[${k}]`, endScratch);
        if (problem !== null) return problem;
        m.pellets[3 * k] = endScratch[0]!; m.pellets[3 * k + 1] = endScratch[1]!; m.pellets[3 * k + 2] = endScratch[2]!;
      }
      m.pelletCount = list.length;
    }
  }
  encodeShot(out, m);
  return null;
}
