/**
 * How an honest player fights, at the edges the rules allow: the human model's trigger finger
 * (./human/trigger.ts: taps, bursts and sprays by distance, at the weapon's full rate within a run:
 * a run's claimed action times exactly one fire interval apart, the edge of the server's fire
 * clock), from wherever the own-movement prediction says the player is while it walks, strafes
 * and jumps; weapon switches (to the pistol when the rifle runs dry in a fight, back to the rifle
 * afterwards, the sniper rifle at long range) and manual reloads between fights.
 *
 * It plays for a Fighter (the bot, through that interface only). Nothing is sent that the
 * mirrored rules state (weaponState.ts) says the server would refuse: every decision asks the same
 * weapon rules the server runs (drawn, loaded, not reloading, the fire clock), and a shot is
 * predicted with the full pipeline before it goes.
 */
import { ShotAction } from '../shared/protocol/shot';
import { RULES_OK } from '../shared/validate/weaponRules';
import { HitZone } from '../shared/rig/rig';
import { WeaponId } from '../shared/weapons';
import type { WeaponState } from '../shared/client/weaponState';
import type { Aim } from './aim';
import type { Rng } from './rng';
import type { Intent } from './shots';
import { drawHeadAim, NOTICE_RANGE_M } from './human/traits';
import { drawBurstFollowUps, drawBurstPauseMs, drawTapGapMs, TriggerMode, triggerMode } from './human/trigger';

/** What honest play needs of the player it plays for. Times in and out are as named; `now` is local ms. */
export interface Fighter {
  /** The player's human aim: its view, engagement and confirmation. */
  readonly aim: Aim;
  /** The mirrored weapon rules state. */
  readonly weapons: WeaponState;
  /** The eye now (predicted). */
  readonly eyeNow: Float64Array;
  /** The player believes it is alive. */
  aliveKnown(): boolean;
  serverNow(now: number): number;
  /** The server time the player renders others at. */
  renderTime(now: number): number;
  /** An action time stamped now. */
  stamp(now: number): number;
  /** Newest server time the rendered view has a snapshot of. */
  newestSnapshotMs(): number;
  /** Nearest player in sight, alive and not already as good as dead, within maxDist; -1 none. */
  findTarget(eye: Float64Array, t: number, visible: boolean, maxDist: number): number;
  /** A point inside `slot`'s hitbox of `zone` at render time `t`; false when not renderable or dead. */
  zonePoint(out: Float64Array, slot: number, t: number, zone: number): boolean;
  /**
   * A shot along the view the server holds, rendering `t`, at action time `at`: sent unless the
   * full pipeline predicts the server would refuse it (the crosshair drifted onto cover). True when sent.
   */
  fireAlongView(now: number, t: number, at: number, intent: Intent): boolean;
  /** Sends a switch (to `weapon`) or a reload at action time `at`. */
  act(action: number, weapon: number, at: number, intent: Intent): void;
}

/** Farther than this, a player takes the sniper rifle (metres). */
const SNIPER_RANGE_M = 25;
/** Least time between two switches or reloads, ms (a person does not juggle weapons). */
const ACTION_GAP_MS = 700;

export class HonestPlay {
  private mode: TriggerMode = TriggerMode.TAP;
  /** Shots left in the current burst (full rate while > 0; a spray has no end of its own). */
  private burstLeft = 0;
  /** The hit zone this engagement aims at (a person picks head or chest per fight, not per frame). */
  private zone: number = HitZone.UPPER_TORSO;
  /** Local ms before which the next tap or burst may not start. */
  private nextTriggerAt = 0;
  /** The last shot was part of a run at full rate (the next claims exactly one interval later). */
  private inRun = false;
  private lastTargetAt = -1e9;
  private nextActionAt = 0;
  private readonly p = new Float64Array(3);
  /** Counters for the report. */
  switches = 0;
  reloads = 0;
  runShots = 0;
  /** Frames the trigger was held because the render time was past the newest snapshot. */
  starved = 0;

  constructor(private readonly me: Fighter, private readonly rng: Rng) {}

  /** One frame of honest play (a cheater in between its cheats passes intent VALID). */
  frame(now: number, intent: Intent): void {
    const me = this.me;
    const aim = me.aim;
    if (!me.aliveKnown()) {
      aim.target = -1;
      this.inRun = false;
      return;
    }
    const eye = me.eyeNow;
    const t = me.renderTime(now);
    const target = me.findTarget(eye, t, true, NOTICE_RANGE_M);
    if (target !== aim.target) {
      aim.engage(target, now);
      this.zone = drawHeadAim(aim.traits, this.rng) ? HitZone.HEAD : HitZone.UPPER_TORSO;
      this.inRun = false;
      this.burstLeft = 0;
    }
    if (target < 0) {
      this.inRun = false;
      this.betweenFights(now, intent);
      return;
    }
    this.lastTargetAt = now;
    // Nothing buffered at the render time yet (the clock or the stream is behind): hold fire, as
    // a client that would otherwise have to extrapolate what it shows.
    if (t > me.newestSnapshotMs()) {
      this.starved++;
      return;
    }
    const p = this.p;
    if (!me.zonePoint(p, target, t, this.zone)) return;
    const dx = p[0]! - eye[0]!, dy = p[1]! - eye[1]!, dz = p[2]! - eye[2]!;
    const dist = Math.sqrt(dx * dx + dy * dy + dz * dz);
    aim.aimAt(eye, p, dist, now);
    if (this.chooseWeapon(now, dist, intent)) return;
    // Reacted, and the view on the body for the confirmation delay (a run already under way goes on
    // while the view stays on the body).
    const onBody = aim.confirmed(eye, p, dist, now);
    if (now < aim.readyAt || (!onBody && !(this.inRun && aim.onBodySince >= 0))) {
      this.inRun = false;
      return;
    }
    const ws = me.weapons;
    const w = ws.equipped;
    const server = me.serverNow(now);
    const head = ws.head;
    // Continuing a run at full rate: claim exactly one interval after the last shot, once due.
    let at: number;
    if (this.inRun && head.nextFireMs <= server && server - head.nextFireMs < 3 * 16 && head.nextFireMs >= head.lastActionMs) at = head.nextFireMs;
    else {
      if (this.inRun && head.nextFireMs > server) return; // not due yet
      this.inRun = false;
      if (now < this.nextTriggerAt) return;
      at = me.stamp(now);
    }
    if (ws.fireCheck(at) !== RULES_OK) {
      this.inRun = false;
      return;
    }
    if (!this.inRun) this.startTrigger(w.id, dist);
    // A shot the server would refuse is held back, as a player holds fire at a wall.
    if (!me.fireAlongView(now, t, at, intent)) {
      this.inRun = false;
      return;
    }
    if (this.inRun) this.runShots++;
    this.burstLeft--;
    if (this.burstLeft > 0) this.inRun = true;
    else {
      this.inRun = false;
      // Between taps and after a burst: the model's pauses.
      const pause = this.mode === TriggerMode.TAP ? drawTapGapMs(this.rng) : drawBurstPauseMs(this.rng);
      this.nextTriggerAt = now + Math.max(w.fireIntervalMs, pause);
    }
  }

  /** A tap, a burst or a spray by weapon and distance. */
  private startTrigger(weapon: number, dist: number): void {
    const mode = triggerMode(dist);
    if (weapon === WeaponId.SNIPER) {
      this.mode = TriggerMode.TAP;
      this.burstLeft = 1;
    } else if (weapon === WeaponId.PISTOL) {
      // A pistol has no spray: a short burst within burst range now and then, else taps.
      this.mode = mode !== TriggerMode.TAP && this.rng.next() < 0.5 ? TriggerMode.BURST : TriggerMode.TAP;
      this.burstLeft = this.mode === TriggerMode.BURST ? this.rng.int(2, 4) : 1;
    } else {
      this.mode = mode;
      this.burstLeft = mode === TriggerMode.SPRAY ? Number.POSITIVE_INFINITY : mode === TriggerMode.BURST ? 1 + drawBurstFollowUps(this.rng) : 1;
    }
  }

  /**
   * Weapon choice in a fight: the sniper rifle far away, the pistol when the rifle is dry (its
   * reload takes longer than drawing the pistol), else the rifle. True when a switch was sent.
   */
  private chooseWeapon(now: number, dist: number, intent: Intent): boolean {
    const ws = this.me.weapons;
    const server = this.me.serverNow(now);
    const eq = ws.head.equipped;
    let want: number = WeaponId.RIFLE;
    if (dist > SNIPER_RANGE_M && (ws.ammoAt(WeaponId.SNIPER, server) > 0 || eq === WeaponId.SNIPER)) want = WeaponId.SNIPER;
    const rifleDry = ws.ammoAt(WeaponId.RIFLE, server) === 0 || ws.reloadingAt(WeaponId.RIFLE, server);
    if (want === WeaponId.RIFLE && rifleDry) want = WeaponId.PISTOL;
    if (eq === WeaponId.PISTOL && want === WeaponId.RIFLE) want = WeaponId.PISTOL; // keep the pistol until the fight ends
    if (want === eq || now < this.nextActionAt || this.inRun) return false;
    return this.switchTo(now, want, intent);
  }

  private switchTo(now: number, weapon: number, intent: Intent): boolean {
    const at = this.me.stamp(now);
    if (this.me.weapons.switchCheck(at, weapon) !== RULES_OK) return false;
    this.me.act(ShotAction.SWITCH, weapon, at, intent);
    this.switches++;
    this.nextActionAt = now + ACTION_GAP_MS;
    return true;
  }

  /** Between fights: back to the rifle, and a manual reload of a half-empty magazine. */
  private betweenFights(now: number, intent: Intent): void {
    if (now < this.nextActionAt || now - this.lastTargetAt < 800) return;
    const ws = this.me.weapons;
    if (ws.head.equipped !== WeaponId.RIFLE) {
      if (now - this.lastTargetAt > 1500) this.switchTo(now, WeaponId.RIFLE, intent);
      return;
    }
    const at = this.me.stamp(now);
    const w = ws.equipped;
    if (ws.ammoAt(w.id, at) < w.magazine * 0.6 && ws.reloadCheck(at) === RULES_OK) {
      this.me.act(ShotAction.RELOAD, w.id, at, intent);
      this.reloads++;
      this.nextActionAt = now + ACTION_GAP_MS;
    }
  }
}
