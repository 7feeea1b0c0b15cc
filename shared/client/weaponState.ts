/**
 * A predicting client's mirror of its weapon rules state (shared/validate/verdict.ts ShooterState), kept with
 * the server's own rules (shared/validate/weaponRules.ts), not a re-implementation:
 *
 * - `head`: the state after every action the client has sent, in order. Each action is predicted with
 *   validateShot against `head`, and the prediction's `after` becomes the new head: the pipeline is
 *   deterministic, so when the server receives the same messages in the same order its chain of
 *   states equals this one.
 * - `confirmed`: the server's state as of the newest verdict. A verdict says whether the action was
 *   carried out (fired); the same rule step is applied to `confirmed` at the action's claimed time,
 *   and `head` is rebuilt as `confirmed` plus the actions still in flight. A message the link lost
 *   is dropped the same way. A respawn (seen in the state) resets the weapons as the room's spawn does.
 *
 * The synced PlayerState (weapon, ammo, reloadEndMs, drawEndMs) is compared with `confirmed` when
 * nothing is in flight: `mismatches` counts where they differ.
 */
import { ShotAction } from '../protocol/shot';
import { copyShooterState, createShooterState, VerdictKind, VerdictReason, type ShooterState } from '../validate/verdict';
import { applyFire, applyReload, applySwitch, checkFire, RULES_OK } from '../validate/weaponRules';
import { weaponById, type WeaponSpec } from '../weapons';
import type { ValidationConfig } from '../validate/rules';

interface Pending {
  seq: number;
  action: number;
  weapon: number;
  timeMs: number;
  /** The prediction carried the action out (a round and the fire clock used, or the switch/reload done). */
  fired: boolean;
}

/** Whether the server carried the action out, from its verdict reply. */
export function verdictFired(v: { kind: number; reason: number }): boolean {
  if (v.kind === VerdictKind.HIT || v.kind === VerdictKind.MISS || v.kind === VerdictKind.ACTION || v.kind === VerdictKind.LAUNCH) return true;
  // Rejections found in the replay step come after the shot was fired (shared/validate/shot.ts).
  return v.reason === VerdictReason.OCCLUDED || v.reason === VerdictReason.NOT_VISIBLE;
}

export class WeaponState {
  readonly head: ShooterState;
  readonly confirmed: ShooterState;
  /** A scratch state for "may I?" questions (the rule checks settle reloads in place). */
  private readonly probe: ShooterState;
  private readonly pending: Pending[] = [];
  /** Verdicts that disagreed with the prediction on whether the action was carried out. */
  firedMismatches = 0;
  /** Quiet moments (nothing in flight) where the synced weapon state differed from `confirmed`. */
  mismatches = 0;
  checks = 0;
  private readonly weapons: readonly WeaponSpec[];
  private readonly loadout: readonly number[];

  constructor(private readonly validation: ValidationConfig) {
    const mags = validation.weapons.map((w) => w.magazine);
    this.weapons = validation.weapons;
    this.loadout = validation.loadout;
    this.head = createShooterState(-1, mags, validation.loadout);
    this.confirmed = createShooterState(-1, mags, validation.loadout);
    this.probe = createShooterState(-1, mags, validation.loadout);
  }

  set slot(s: number) {
    this.head.slot = s;
    this.confirmed.slot = s;
    this.probe.slot = s;
  }

  weapon(id: number): WeaponSpec {
    return weaponById(this.weapons, id)!;
  }

  get equipped(): WeaponSpec {
    return this.weapon(this.head.equipped);
  }

  get inFlight(): number {
    return this.pending.length;
  }

  /** Rounds left in weapon `id` at action time `t` (a due reload counted as done). */
  ammoAt(id: number, t: number): number {
    const end = this.head.reloadEndMs[id] ?? 0;
    if (end > 0 && t >= end) return this.weapon(id).magazine;
    return this.head.ammo[id] ?? 0;
  }

  /** Reload of weapon `id` under way at action time `t`. */
  reloadingAt(id: number, t: number): boolean {
    const end = this.head.reloadEndMs[id] ?? 0;
    return end > 0 && t < end;
  }

  /** RULES_OK when the head state may fire its equipped weapon at action time `t`, else the reason. */
  fireCheck(t: number, weapon = this.head.equipped): number {
    copyShooterState(this.probe, this.head);
    return checkFire(this.probe, this.weapon(weapon), t);
  }

  switchCheck(t: number, weapon: number): number {
    copyShooterState(this.probe, this.head);
    return applySwitch(this.probe, this.weapons, this.weapon(weapon), t);
  }

  reloadCheck(t: number): number {
    copyShooterState(this.probe, this.head);
    return applyReload(this.probe, this.weapon(this.head.equipped), t);
  }

  /** An action was sent; `after` is its predicted state after (validateShot's out.after). */
  sent(seq: number, action: number, weapon: number, timeMs: number, fired: boolean, after: ShooterState): void {
    this.pending.push({ seq, action, weapon, timeMs, fired });
    copyShooterState(this.head, after);
  }

  /** The server's verdict for `seq` (null: the message was lost and never arrives). */
  settle(seq: number, v: { kind: number; reason: number } | null): void {
    const i = this.pending.findIndex((p) => p.seq === seq);
    if (i < 0) return;
    const p = this.pending[i]!;
    this.pending.splice(i, 1);
    if (v !== null) {
      const fired = verdictFired(v);
      if (fired !== p.fired) this.firedMismatches++;
      if (seq > this.confirmed.lastSeq) this.confirmed.lastSeq = seq;
      if (fired) this.apply(this.confirmed, p);
    }
    this.rebuild();
  }

  /**
   * Carries `p` out on `state` with the server's rule step. A refused step changes nothing (the
   * pipeline restores the state before a refused message, so a reload the check settled stays
   * unsettled): the step runs on a scratch copy, kept only when it passes.
   */
  private apply(state: ShooterState, p: Pending): boolean {
    const w = weaponById(this.weapons, p.weapon);
    if (w === undefined) return false;
    const s = copyShooterState(this.scratch, state);
    let ok: boolean;
    if (this.validation.weaponRules === false) {
      // The game's own rules: a fire that was carried out states its time and counts its pull.
      if (p.action !== ShotAction.FIRE) return false;
      s.lastActionMs = p.timeMs;
      s.pulls++;
      ok = true;
    } else if (p.action === ShotAction.FIRE) {
      ok = checkFire(s, w, p.timeMs) === RULES_OK;
      if (ok) applyFire(s, w, p.timeMs);
    } else if (p.action === ShotAction.SWITCH) ok = applySwitch(s, this.weapons, w, p.timeMs) === RULES_OK;
    else ok = applyReload(s, w, p.timeMs) === RULES_OK;
    if (ok) copyShooterState(state, s);
    return ok;
  }
  private readonly scratch: ShooterState = createShooterState(-1, []);

  /** head = confirmed plus every action still in flight that the prediction carried out. */
  private rebuild(): void {
    const alive = this.head.alive;
    copyShooterState(this.head, this.confirmed);
    for (const p of this.pending) {
      if (p.seq > this.head.lastSeq) this.head.lastSeq = p.seq;
      if (p.fired) this.apply(this.head, p);
    }
    this.head.alive = alive;
  }

  /** A new life on the server: full magazines, the loadout's first weapon in hand and drawn. */
  respawn(): void {
    for (const s of [this.confirmed]) {
      for (let w = 0; w < this.weapons.length; w++) {
        s.ammo[w] = this.weapons[w]!.magazine;
        s.reloadEndMs[w] = 0;
      }
      s.equipped = this.loadout[0] ?? 0;
      s.drawEndMs = 0;
      s.alive = true;
    }
    this.rebuild();
    this.head.alive = true;
  }

  /** Compares the synced weapon state with `confirmed` when nothing is in flight. */
  check(weapon: number, ammo: number, reloadEndMs: number, drawEndMs: number): void {
    if (this.pending.length > 0) return;
    const c = this.confirmed;
    this.checks++;
    const w = c.equipped;
    if (weapon !== w || ammo !== Math.max(0, Math.min(0xffff, c.ammo[w] ?? 0)) || reloadEndMs !== (c.reloadEndMs[w] ?? 0) || drawEndMs !== c.drawEndMs) this.mismatches++;
  }
}
