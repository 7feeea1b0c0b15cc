/**
 * Which replayed shots give which behaviour events (behaviour.ts scores them): every shot gives the
 * player measures' values; the first shot of an engagement gives reaction, turn speed, time on the
 * body, sweep, pre-aim and hidden following; the first shot of a burst gives the view offset and the
 * shot error in its distance band; later shots at a target give one tracking event per window.
 * A shot of a projectile or melee weapon gives none of the measures that hold the aim against the
 * target's body (shot error, time on the body, sweep, tracking wobble and lag): a rocket's or a
 * grenade's aim point is chosen for the flight -- ahead of a moving target, above it for a lob, at
 * its feet for the blast -- and a swing's radius reaches a body the crosshair is not on, so a
 * person swings as the crosshair passes; those measures would read the weapon, not the hand.
 */
import { ShotCol, SHOT_COLUMNS } from '../../shared/audit/replay';
import { VerdictKind } from '../../shared/validate/verdict';
import { isMelee, type WeaponSpec } from '../../shared/weapons';
import { MeasureCol } from './observer';
import { DEFAULT_MEASURE_WINDOWS } from './measures';
import { MEASURES, type BehaviourEvent } from './score';

/** Later shots at a target give one tracking event per this window (DEFAULT_MEASURE_WINDOWS.trackMs), ms. */
const TRACK_WINDOW_MS = DEFAULT_MEASURE_WINDOWS.trackMs;

/**
 * A sighting's first shot opens an engagement only when the shooter had not fired at that target
 * for this long, ms: a target that ducks out of sight for a moment and back is still the same fight.
 */
export const ENGAGE_GAP_MS = 1000;

/** Shots of one player closer than this belong to one burst, ms. */
export const BURST_GAP_MS = 200;

const CHORD_TO_DEG = (c: number) => (2 * Math.asin(Math.min(1, c / 2)) * 180) / Math.PI;

/**
 * The ids of the weapons not aimed at the body, projectile and melee weapons, of a match log's
 * header (its validation's weapon table; none when it has none).
 */
export function looseAimWeapons(header: Record<string, unknown> | null): ReadonlySet<number> {
  const weapons = (header?.validation as { weapons?: unknown } | undefined)?.weapons;
  if (!Array.isArray(weapons)) return new Set();
  return new Set((weapons as WeaponSpec[]).filter((w) => w.projectile !== undefined || isMelee(w)).map((w) => w.id));
}

/** Every player's events of an audited log (eventsFromRows with the projectile and melee weapons of its header). */
export function auditEvents(r: { rows: Float64Array; shots: number; header: Record<string, unknown> | null }): Map<number, BehaviourEvent[]> {
  return eventsFromRows(r.rows, r.shots, looseAimWeapons(r.header));
}

/**
 * Every player's events from replayed rows (log order). The first shot of a sighting is the first
 * shot aimed at a target with that sighting's start; later shots at a target are the rest. A shot
 * is not aimed at the body when its verdict launched a projectile or its weapon is in `looseAim`
 * (looseAimWeapons: a rejected launch, a swing).
 */
export function eventsFromRows(rows: Float64Array, count: number, looseAim: ReadonlySet<number> = new Set()): Map<number, BehaviourEvent[]> {
  const out = new Map<number, BehaviourEvent[]>();
  const sightings = new Set<string>();
  const lastShot = new Map<number, number>();
  const lastTrack = new Map<number, number>();
  const lastAt = new Map<string, number>();
  const idx = new Map(MEASURES.map((m, i) => [m.name, i]));
  for (let i = 0; i < count; i++) {
    const o = i * SHOT_COLUMNS;
    const s = rows[o + ShotCol.SHOOTER]!;
    let list = out.get(s);
    if (!list) out.set(s, (list = []));
    const shot = rows[o + ShotCol.INDEX]!;
    const timeMs = rows[o + ShotCol.RECEIVED_MS]!;
    const burstStart = !(timeMs - (lastShot.get(s) ?? -Infinity) < BURST_GAP_MS);
    lastShot.set(s, timeMs);
    const push = (name: string, value: number) => { if (Number.isFinite(value)) list!.push({ measure: idx.get(name)!, value, shot, timeMs }); };
    push('depthExcess', rows[o + ShotCol.REWIND_DEPTH_MS]! - rows[o + ShotCol.INTERP_MS]!);
    push('inputBunching', rows[o + MeasureCol.INPUT_SPREAD]!);
    push('shortHolds', rows[o + MeasureCol.SHORT_HOLDS]!);
    const target = rows[o + MeasureCol.AIM_TARGET]!;
    if (!(target >= 0)) continue;
    const start = rows[o + MeasureCol.SIGHT_START_MS]!;
    const key = `${s}:${target}:${start}`;
    const pair = `${s}:${target}`;
    const first = start === start && !sightings.has(key) && !(timeMs - (lastAt.get(pair) ?? -Infinity) < ENGAGE_GAP_MS);
    lastAt.set(pair, timeMs);
    const dist = rows[o + MeasureCol.TARGET_DIST_M]!;
    const band = dist < 10 ? 'Near' : dist < 25 ? 'Mid' : 'Far';
    // Aimed for a flight or swung, not at the body: the measures against the body are left out.
    const atBody = rows[o + ShotCol.KIND] !== VerdictKind.LAUNCH && !looseAim.has(rows[o + ShotCol.WEAPON]!);
    if (first || burstStart) {
      push('viewOffset', CHORD_TO_DEG(rows[o + MeasureCol.VIEW_OFFSET]!));
      if (atBody) push(`shotError${band}`, CHORD_TO_DEG(rows[o + MeasureCol.SHOT_ERROR]!));
    }
    if (first) {
      sightings.add(key);
      push('reaction', rows[o + MeasureCol.REACTION_MS]!);
      push('turnSpeed', (rows[o + MeasureCol.PEAK_TURN]! * 1000 * 180) / Math.PI);
      if (atBody) push('onTarget', rows[o + MeasureCol.ON_TARGET_MS]!);
      if (atBody) push('sweep', (rows[o + MeasureCol.SWEEP]! * 1000 * 180) / Math.PI);
      push('preAim', CHORD_TO_DEG(rows[o + MeasureCol.PRE_AIM]!));
      push('hiddenFollow', rows[o + MeasureCol.HIDDEN_FOLLOW]!);
    } else if (atBody && !(timeMs - (lastTrack.get(s) ?? -Infinity) < TRACK_WINDOW_MS)) {
      // One tracking event per track window: later shots in the same window read the same ticks.
      lastTrack.set(s, timeMs);
      push('trackJitter', (rows[o + MeasureCol.TRACK_ERROR]! * 180) / Math.PI);
      push('trackLag', rows[o + MeasureCol.TRACK_LAG_MS]!);
    }
  }
  return out;
}
