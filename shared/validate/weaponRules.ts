/**
 * The shooter's weapon rules, as pure steps on a ShooterState: what may fire, switch or reload,
 * when, and what each changes. Every time is a claimed action time (server ms, already bounded
 * against arrival by the pipeline in shot.ts), so the rules judge when the player acted, not when
 * the network delivered it: honest messages bunched by a TCP stall keep their spacing, and no
 * sequence of messages fires faster than the weapon (accepted shots are at least one fire interval
 * apart in claimed time, and claimed times never go backwards).
 *
 * - Fire: the weapon must be carried and equipped, drawn (time >= drawEndMs), not reloading (a
 *   reload completes at reloadEndMs: the magazine is full from then on), loaded, and the fire clock
 *   must allow it (time >= nextFireMs). Firing uses a round, moves the fire clock to time +
 *   fireIntervalMs, counts the pull (the next one's pattern) and adds a shot to the spray heat
 *   (spread.ts); the last round starts a reload. A melee weapon (radius > 0) uses no round: its
 *   magazine stays full, so only the fire clock limits it.
 * - Switch: to a carried weapon other than the equipped one. The holstered weapon's reload is
 *   cancelled (its rounds stay) and the spray heat cleared; the new weapon is drawn at time + drawMs, and an empty one reloads
 *   by itself once drawn. The fire clock is kept: switching never fires sooner than the last
 *   weapon's interval allows.
 * - Reload: of the equipped, drawn weapon, not already reloading, magazine not full (a melee
 *   weapon's always is).
 */
import { isMelee, type WeaponSpec } from '../weapons';
import { VerdictReason, type ShooterState } from './verdict';
import { applySprayHeat } from './spread';

/** Rule checks pass. */
export const RULES_OK = -1;

/** Completes a due reload of weapon w at `timeMs` (the magazine is full from reloadEndMs on). */
export function settleReload(state: ShooterState, weapon: WeaponSpec, timeMs: number): void {
  const w = weapon.id;
  const end = state.reloadEndMs[w] ?? 0;
  if (end > 0 && timeMs >= end) {
    state.ammo[w] = weapon.magazine;
    state.reloadEndMs[w] = 0;
  }
}

function carries(state: ShooterState, w: number): boolean {
  return w >= 0 && w < 31 && (state.carried & (1 << w)) !== 0;
}

/**
 * Is `weapon` in hand and ready at `timeMs`: carried, equipped, drawn and not reloading? Settles a
 * due reload in `state` first. Returns RULES_OK or the reason.
 */
function checkInHand(state: ShooterState, weapon: WeaponSpec, timeMs: number): number {
  const w = weapon.id;
  if (!carries(state, w)) return VerdictReason.NOT_CARRIED;
  if (state.equipped !== w) return VerdictReason.NOT_EQUIPPED;
  if (timeMs < state.drawEndMs) return VerdictReason.WEAPON_DRAWING;
  settleReload(state, weapon, timeMs);
  if ((state.reloadEndMs[w] ?? 0) > 0) return VerdictReason.RELOADING;
  return RULES_OK;
}

/**
 * May `state` fire `weapon` at `timeMs`? Settles a due reload in `state` first. Returns RULES_OK or
 * the reason; changes nothing else.
 */
export function checkFire(state: ShooterState, weapon: WeaponSpec, timeMs: number): number {
  const ready = checkInHand(state, weapon, timeMs);
  if (ready !== RULES_OK) return ready;
  if (!isMelee(weapon) && !((state.ammo[weapon.id] ?? 0) > 0)) return VerdictReason.NO_AMMO;
  if (timeMs < state.nextFireMs) return VerdictReason.FIRE_RATE;
  return RULES_OK;
}

/** Fires `weapon` at `timeMs` (after checkFire passed): one round, the fire clock, a reload when empty. */
export function applyFire(state: ShooterState, weapon: WeaponSpec, timeMs: number): void {
  const w = weapon.id;
  if (!isMelee(weapon)) {
    const ammo = (state.ammo[w] ?? 0) - 1;
    state.ammo[w] = ammo;
    if (ammo <= 0) state.reloadEndMs[w] = timeMs + weapon.reloadMs;
  }
  state.nextFireMs = timeMs + weapon.fireIntervalMs;
  state.lastActionMs = timeMs;
  state.pulls++;
  applySprayHeat(state, weapon, timeMs);
}

/** Switches to `weapon` at `timeMs` when allowed; returns RULES_OK (done) or the reason (nothing changed). */
export function applySwitch(state: ShooterState, weapons: readonly WeaponSpec[], weapon: WeaponSpec, timeMs: number): number {
  const w = weapon.id;
  if (!carries(state, w)) return VerdictReason.NOT_CARRIED;
  if (state.equipped === w) return VerdictReason.ALREADY_EQUIPPED;
  const held = weapons[state.equipped];
  if (held !== undefined) {
    settleReload(state, held, timeMs);
    state.reloadEndMs[held.id] = 0; // a reload still under way is cancelled; its rounds stay
  }
  state.equipped = w;
  state.sprayHeat = 0;
  state.drawEndMs = timeMs + weapon.drawMs;
  settleReload(state, weapon, timeMs);
  if (!((state.ammo[w] ?? 0) > 0)) state.reloadEndMs[w] = state.drawEndMs + weapon.reloadMs;
  state.lastActionMs = timeMs;
  return RULES_OK;
}

/** Starts a reload of `weapon` at `timeMs` when allowed; returns RULES_OK (started) or the reason. */
export function applyReload(state: ShooterState, weapon: WeaponSpec, timeMs: number): number {
  const ready = checkInHand(state, weapon, timeMs);
  if (ready !== RULES_OK) return ready;
  const w = weapon.id;
  if (isMelee(weapon) || (state.ammo[w] ?? 0) >= weapon.magazine) return VerdictReason.MAGAZINE_FULL;
  state.reloadEndMs[w] = timeMs + weapon.reloadMs;
  state.lastActionMs = timeMs;
  return RULES_OK;
}
