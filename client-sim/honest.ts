/**
 * How an honest player fights, at the edges the rules allow: taps, bursts and sprays at the
 * weapon's full rate (a spray's claimed action times exactly one fire interval apart: the edge of
 * the server's fire clock), from wherever the own-movement prediction says the player is while it
 * walks, strafes and jumps; weapon switches (to the pistol when the rifle runs dry in a fight, back
 * to the rifle afterwards, the sniper rifle at long range) and manual reloads between fights.
 *
 * Nothing is sent that the bot's mirrored rules state (weaponState.ts) says the server would
 * refuse: every decision asks the same weapon rules the server runs (drawn, loaded, not reloading,
 * the fire clock), and the message is predicted with the full pipeline before it goes.
 */
import { ShotAction } from '../shared/protocol/shot';
import { RULES_OK } from '../shared/validate/weaponRules';
import { HitZone } from '../shared/rig/rig';
import { WeaponId } from '../shared/weapons';
import { VerdictKind } from '../shared/validate/verdict';
import type { Bot } from './bot';
import type { Rng } from './rng';
import type { Intent } from './shots';

/** Eye-to-chest aim picks the upper torso mostly, sometimes the head, as players do. */
const HEAD_AIM_P = 0.15;
/** Farther than this, a player takes the sniper rifle (metres). */
const SNIPER_RANGE_M = 25;
/** Closer than this a rifle sprays, closer than BURST_RANGE_M it fires bursts, else taps (metres). */
const SPRAY_RANGE_M = 12;
const BURST_RANGE_M = 30;
/** Targets farther than this are not engaged (metres). */
const ENGAGE_RANGE_M = 60;
/** Least time between two switches or reloads, ms (a person does not juggle weapons). */
const ACTION_GAP_MS = 700;

const Mode = { TAP: 0, BURST: 1, SPRAY: 2 } as const;

export class HonestPlay {
  private mode: number = Mode.TAP;
  /** Shots left in the current burst (full rate while > 0). */
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
  private readonly a = new Float64Array(3);
  /** Counters for the report. */
  switches = 0;
  reloads = 0;
  runShots = 0;

  constructor(private readonly bot: Bot, private readonly rng: Rng) {}

  /** One frame of honest play (a cheater in between its cheats passes intent VALID). */
  frame(now: number, intent: Intent): void {
    const bot = this.bot;
    const aim = bot.aim;
    if (!bot.aliveKnown()) {
      aim.target = -1;
      this.inRun = false;
      return;
    }
    const eye = bot.eyeNow;
    const t = bot.renderTime(now);
    const target = bot.findTarget(eye, t, true, ENGAGE_RANGE_M);
    if (target !== aim.target) {
      aim.engage(target, now);
      this.zone = this.rng.next() < HEAD_AIM_P ? HitZone.HEAD : HitZone.UPPER_TORSO;
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
    if (t > bot.view.newestTimeMs) {
      bot.starved++;
      return;
    }
    const p = this.p;
    if (!bot.zonePoint(p, target, t, this.zone)) return;
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
    const w = bot.weapon;
    const server = bot.serverNow(now);
    const head = bot.weapons.head;
    // Continuing a run at full rate: claim exactly one interval after the last shot, once due.
    let at: number;
    if (this.inRun && head.nextFireMs <= server && server - head.nextFireMs < 3 * 16 && head.nextFireMs >= head.lastActionMs) at = head.nextFireMs;
    else {
      if (this.inRun && head.nextFireMs > server) return; // not due yet
      this.inRun = false;
      if (now < this.nextTriggerAt) return;
      at = bot.clock.stamp(now);
    }
    if (bot.weapons.fireCheck(at) !== RULES_OK) {
      this.inRun = false;
      return;
    }
    if (!this.inRun) this.startTrigger(w.id, dist);
    // Along the view the server holds: the one in the last input sent. A shot the full pipeline
    // says the server would refuse (the crosshair drifted onto cover with the target behind it) is
    // held back, as a player holds fire at a wall.
    const a = bot.inputs.viewPoint(this.a, eye);
    const msg = bot.fireMessage(eye, a[0]!, a[1]!, a[2]!, bot.shotLength(), t, at);
    if (bot.predict(msg, now).kind === VerdictKind.REJECTED) {
      this.inRun = false;
      return;
    }
    bot.send(msg, intent);
    if (this.inRun) this.runShots++;
    this.burstLeft--;
    if (this.burstLeft > 0) this.inRun = true;
    else {
      this.inRun = false;
      // Between taps and after a burst: a human cadence.
      const pause = this.mode === Mode.TAP ? Math.max(w.fireIntervalMs, 180 + 60 * Math.abs(this.rng.normal())) : this.rng.uniform(250, 450);
      this.nextTriggerAt = now + Math.max(w.fireIntervalMs, pause);
    }
  }

  /** A tap, a burst or a spray by weapon and distance. */
  private startTrigger(weapon: number, dist: number): void {
    if (weapon === WeaponId.SNIPER) {
      this.mode = Mode.TAP;
      this.burstLeft = 1;
    } else if (weapon === WeaponId.PISTOL) {
      this.mode = dist < BURST_RANGE_M && this.rng.next() < 0.5 ? Mode.BURST : Mode.TAP;
      this.burstLeft = this.mode === Mode.BURST ? this.rng.int(2, 4) : 1;
    } else if (dist < SPRAY_RANGE_M) {
      this.mode = Mode.SPRAY;
      this.burstLeft = this.rng.int(8, 31);
    } else if (dist < BURST_RANGE_M) {
      this.mode = Mode.BURST;
      this.burstLeft = this.rng.int(3, 6);
    } else {
      this.mode = Mode.TAP;
      this.burstLeft = 1;
    }
  }

  /**
   * Weapon choice in a fight: the sniper rifle far away, the pistol when the rifle is dry (its
   * reload takes longer than drawing the pistol), else the rifle. True when a switch was sent.
   */
  private chooseWeapon(now: number, dist: number, intent: Intent): boolean {
    const bot = this.bot;
    const ws = bot.weapons;
    const server = bot.serverNow(now);
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
    const bot = this.bot;
    const at = bot.clock.stamp(now);
    if (bot.weapons.switchCheck(at, weapon) !== RULES_OK) return false;
    bot.send(bot.actionMessage(ShotAction.SWITCH, weapon, at), intent);
    this.switches++;
    this.nextActionAt = now + ACTION_GAP_MS;
    return true;
  }

  /** Between fights: back to the rifle, and a manual reload of a half-empty magazine. */
  private betweenFights(now: number, intent: Intent): void {
    const bot = this.bot;
    if (now < this.nextActionAt || now - this.lastTargetAt < 800) return;
    const ws = bot.weapons;
    if (ws.head.equipped !== WeaponId.RIFLE) {
      if (now - this.lastTargetAt > 1500) this.switchTo(now, WeaponId.RIFLE, intent);
      return;
    }
    const at = bot.clock.stamp(now);
    const w = bot.weapon;
    if (ws.ammoAt(w.id, at) < w.magazine * 0.6 && ws.reloadCheck(at) === RULES_OK) {
      bot.send(bot.actionMessage(ShotAction.RELOAD, w.id, at), intent);
      this.reloads++;
      this.nextActionAt = now + ACTION_GAP_MS;
    }
  }
}
