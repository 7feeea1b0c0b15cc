/**
 * How an honest player fights, at the edges the rules allow: the human model's trigger finger
 * (./human/trigger.ts: taps, bursts and sprays by distance, at the weapon's full rate within a run:
 * a run's claimed action times exactly one fire interval apart, the edge of the server's fire
 * clock), from wherever the own-movement prediction says the player is while it walks, strafes
 * and jumps; weapon switches (to the pistol when the rifle runs dry in a fight, back to the rifle
 * afterwards, the sniper rifle at long range, a rocket or a grenade now and then at a target in
 * the open at middle range when the loadout carries them) and manual reloads between fights.
 *
 * It plays for a Fighter (the bot, through that interface only). Nothing is sent that the
 * mirrored rules state (weaponState.ts) says the server would refuse: every decision asks the same
 * weapon rules the server runs (drawn, loaded, not reloading, the fire clock), and a shot is
 * predicted with the full pipeline before it goes.
 */
import { ShotAction } from '../shared/protocol/shot';
import { RULES_OK } from '../shared/validate/weaponRules';
import { HitZone } from '../shared/rig/rig';
import { isMelee, WeaponId } from '../shared/weapons';
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
  /**
   * The same shot run its full length through whatever is in the way: sent only when the full
   * pipeline predicts it hits behind a wall (a wall-bang the weapon's penetration pays for). True when sent.
   */
  fireThroughView(now: number, t: number, at: number, intent: Intent): boolean;
  /** Whether the player's loadout carries weapon `id`. */
  carries(weapon: number): boolean;
  /** Whether the link holds (or just held) this player's inputs back: the server's eye path may stray from the predicted one. */
  linkStalled(now: number): boolean;
  /** What the walls from the eye to `p` cost a bullet's penetration power (thickness x resistance). */
  wallCost(eye: Float64Array, p: Float64Array): number;
  /** Sends a switch (to `weapon`) or a reload at action time `at`. */
  act(action: number, weapon: number, at: number, intent: Intent): void;
}

/** Farther than this, a player takes the sniper rifle (metres); one in SNIPER_FAN_SHARE prefers it from SNIPER_FAN_RANGE_M on. */
const SNIPER_RANGE_M = 25;
const SNIPER_FAN_SHARE = 0.25;
const SNIPER_FAN_RANGE_M = 12;
/**
 * Nearer than this, a player who likes the shotgun (SHOTGUN_FAN_SHARE of them; the others spray the
 * rifle) takes it (metres); once in hand it is kept out to SHOTGUN_KEEP_M.
 */
const SHOTGUN_RANGE_M = 12;
const SHOTGUN_KEEP_M = 16;
const SHOTGUN_FAN_SHARE = 0.5;
/**
 * A target nearer than this fraction of the knife's range (eye to the aimed zone) makes a player
 * who carries one take it; once in hand it is kept out to KNIFE_KEEP of the range.
 */
const KNIFE_TAKE = 0.55;
const KNIFE_KEEP = 0.95;
/** The target must stay within KNIFE_TAKE this long before the knife comes out (one passing by is shot), ms. */
const KNIFE_CLOSE_MS = 250;
/**
 * A player who likes a launcher (LAUNCHER_FAN_SHARE of them: rocket or grenade, even odds) takes it
 * at a target between LAUNCH_MIN_M and LAUNCH_MAX_M away, loaded and not reloading, at most once
 * per LAUNCH_GAP_MS (then back to the rifle while it reloads).
 */
const LAUNCHER_FAN_SHARE = 0.4;
const LAUNCH_MIN_M = 8;
const LAUNCH_MAX_M = 30;
const LAUNCH_GAP_MS = 4000;
/** Least time between two switches or reloads, ms (a person does not juggle weapons). */
const ACTION_GAP_MS = 700;
/**
 * A player who loses sight of its target behind cover goes through the wall with the sniper rifle
 * with this chance, within this long of the last sight (plus the draw when the rifle is not in hand).
 */
const WALLBANG_CHANCE = 0.75;
const WALLBANG_WINDOW_MS = 1000;
/** The body parts a wall-bang weighs, aiming at the one behind the least wall. */
const WALLBANG_ZONES: readonly number[] = [HitZone.HEAD, HitZone.UPPER_TORSO, HitZone.PELVIS, HitZone.THIGH, HitZone.UPPER_ARM];

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
  /** The target just lost behind cover that this player means to shoot through the wall (-1: none). */
  private bangTarget = -1;
  /** Local ms until which the wall-bang may go on. */
  private bangUntil = 0;
  private nextActionAt = 0;
  /** Since when the target has been within the knife's KNIFE_TAKE (-1: it is not). */
  private closeSince = -1;
  private readonly p = new Float64Array(3);
  private readonly q = new Float64Array(3);
  /** Counters for the report. */
  switches = 0;
  reloads = 0;
  runShots = 0;
  /** Frames the trigger was held because the render time was past the newest snapshot. */
  starved = 0;
  /** Wall-bangs sent (shots through cover the prediction said hit), and targets lost behind cover it meant to shoot through. */
  wallBangs = 0;
  wallBangTries = 0;

  /** Farther than this, this player takes the sniper rifle (metres). */
  readonly sniperRangeM: number;
  /** This player takes the shotgun at close range (a cheat profile that needs the rifle turns it off). */
  shotgunFan: boolean;
  /** The launcher this player takes at middle range (WeaponId.ROCKET or GRENADE), -1: none. */
  launcher: number;
  /** Local ms before which no launcher is taken again. */
  private nextLaunchAt = 0;

  constructor(private readonly me: Fighter, private readonly rng: Rng, launcherShare = LAUNCHER_FAN_SHARE) {
    this.sniperRangeM = rng.next() < SNIPER_FAN_SHARE ? SNIPER_FAN_RANGE_M : SNIPER_RANGE_M;
    this.shotgunFan = rng.next() < SHOTGUN_FAN_SHARE;
    const l = rng.next();
    this.launcher = l < launcherShare / 2 ? WeaponId.ROCKET : l < launcherShare ? WeaponId.GRENADE : -1;
  }

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
    if (target < 0 && aim.target >= 0 && this.bangTarget !== aim.target && now - this.lastTargetAt < 100) this.bangTarget = this.meansToWallBang(now, aim.target, intent);
    if (target >= 0 || now > this.bangUntil) this.bangTarget = -1;
    if (this.bangTarget >= 0 && this.bangTarget === aim.target) {
      if (this.wallBang(now, t, intent)) return;
      this.bangTarget = -1;
    }
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
    // A swing reaches only a little beyond the knife from the server's eye: held while the link
    // holds the inputs back and the server's eye path strays from where this player stands.
    if (isMelee(w) && me.linkStalled(now)) {
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
    if (w.projectile !== undefined) this.nextLaunchAt = now + LAUNCH_GAP_MS;
    this.burstLeft--;
    if (this.burstLeft > 0) this.inRun = true;
    else {
      this.inRun = false;
      // Between taps and after a burst: the model's pauses.
      const pause = this.mode === TriggerMode.TAP ? drawTapGapMs(this.rng) : drawBurstPauseMs(this.rng);
      this.nextTriggerAt = now + Math.max(w.fireIntervalMs, pause);
    }
  }

  /**
   * Sight of `target` just lost: with WALLBANG_CHANCE the player means to shoot it through the
   * cover with the sniper rifle (drawing it first when it is loaded but not in hand). Returns the
   * target, or -1.
   */
  private meansToWallBang(now: number, target: number, intent: Intent): number {
    const me = this.me;
    const ws = me.weapons;
    if (!me.carries(WeaponId.SNIPER) || !((ws.weapon(WeaponId.SNIPER).penetration ?? 0) > 0)) return -1;
    if (!me.zonePoint(this.p, target, me.renderTime(now), this.zone) || this.rng.next() >= WALLBANG_CHANCE) return -1; // dead, or not this time
    const server = me.serverNow(now);
    if (ws.ammoAt(WeaponId.SNIPER, server) === 0 || ws.reloadingAt(WeaponId.SNIPER, server)) return -1;
    let window = WALLBANG_WINDOW_MS;
    if (ws.head.equipped !== WeaponId.SNIPER) {
      if (now < this.nextActionAt || !this.switchTo(now, WeaponId.SNIPER, intent)) return -1;
      window += ws.weapon(WeaponId.SNIPER).drawMs;
    }
    this.bangUntil = now + window;
    this.wallBangTries++;
    return target;
  }

  /**
   * One frame of a wall-bang at the target just lost behind cover: the view stays on where the
   * player renders it, and once on the body a shot goes through when the prediction says it hits
   * (the pattern of walls and the power left decide). False when it cannot go on (the target gone).
   */
  private wallBang(now: number, t: number, intent: Intent): boolean {
    const me = this.me;
    const aim = me.aim;
    const eye = me.eyeNow;
    if (t > me.newestSnapshotMs()) return true;
    // Where the cover is thinnest: the body part behind the least wall (a player knows the level).
    const p = this.p, q = this.q;
    let best = Infinity;
    for (const zone of WALLBANG_ZONES) {
      if (!me.zonePoint(q, this.bangTarget, t, zone)) return false;
      const cost = me.wallCost(eye, q);
      if (cost < best) {
        best = cost;
        p.set(q);
      }
    }
    const dx = p[0]! - eye[0]!, dy = p[1]! - eye[1]!, dz = p[2]! - eye[2]!;
    const dist = Math.sqrt(dx * dx + dy * dy + dz * dz);
    aim.aimAt(eye, p, dist, now);
    if (!aim.confirmed(eye, p, dist, now) || now < this.nextTriggerAt) return true;
    const at = me.stamp(now);
    if (me.weapons.fireCheck(at) !== RULES_OK) return true;
    if (me.fireThroughView(now, t, at, intent)) {
      this.wallBangs++;
      this.bangTarget = -1;
      this.nextTriggerAt = now + Math.max(me.weapons.equipped.fireIntervalMs, drawTapGapMs(this.rng));
    }
    return true;
  }

  /** A tap, a burst or a spray by weapon and distance. */
  private startTrigger(weapon: number, dist: number): void {
    const mode = triggerMode(dist);
    if (weapon === WeaponId.SNIPER || weapon === WeaponId.SHOTGUN || weapon === WeaponId.KNIFE || weapon === WeaponId.ROCKET || weapon === WeaponId.GRENADE) {
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
   * Weapon choice in a fight: the knife within its reach, the sniper rifle far away, the shotgun
   * close by for a player who likes it (loaded, not reloading), the pistol when the rifle is dry
   * (its reload takes longer than drawing the pistol), else the rifle. True when a switch was sent.
   */
  private chooseWeapon(now: number, dist: number, intent: Intent): boolean {
    const ws = this.me.weapons;
    const server = this.me.serverNow(now);
    const eq = ws.head.equipped;
    let want: number = WeaponId.RIFLE;
    if (dist > this.sniperRangeM && (ws.ammoAt(WeaponId.SNIPER, server) > 0 || eq === WeaponId.SNIPER)) want = WeaponId.SNIPER;
    else if (this.shotgunFan && (dist < SHOTGUN_RANGE_M || (eq === WeaponId.SHOTGUN && dist < SHOTGUN_KEEP_M)) && this.me.carries(WeaponId.SHOTGUN)
      && ws.ammoAt(WeaponId.SHOTGUN, server) > 0 && !ws.reloadingAt(WeaponId.SHOTGUN, server)) want = WeaponId.SHOTGUN;
    const rifleDry = ws.ammoAt(WeaponId.RIFLE, server) === 0 || ws.reloadingAt(WeaponId.RIFLE, server);
    if (want === WeaponId.RIFLE && rifleDry) want = WeaponId.PISTOL;
    if (eq === WeaponId.PISTOL && want === WeaponId.RIFLE) want = WeaponId.PISTOL; // keep the pistol until the fight ends
    if (this.launcherWanted(now, dist, server)) want = this.launcher;
    else if (eq === this.launcher && ws.ammoAt(eq, server) === 0) {
      // A launcher that has fired is reloaded at once, in hand, and kept while it reloads at a target at middle range.
      this.inRun = false;
      if (!ws.reloadingAt(eq, server)) return now >= this.nextActionAt && this.reloadInHand(now, eq, intent);
      if (dist >= LAUNCH_MIN_M && dist <= LAUNCH_MAX_M) return false;
    }
    if (this.me.carries(WeaponId.KNIFE)) {
      const reach = ws.weapon(WeaponId.KNIFE).rangeM;
      if (!(dist < reach * KNIFE_TAKE)) this.closeSince = -1;
      else if (this.closeSince < 0) this.closeSince = now;
      if ((this.closeSince >= 0 && now - this.closeSince >= KNIFE_CLOSE_MS) || (eq === WeaponId.KNIFE && dist < reach * KNIFE_KEEP)) want = WeaponId.KNIFE;
    }
    if (want !== eq && !this.me.carries(want)) return false;
    if (want === eq || now < this.nextActionAt || this.inRun) return false;
    return this.switchTo(now, want, intent);
  }

  /**
   * Whether this player takes its launcher at a target `dist` away: it likes one, carries it, the
   * target is at middle range, the launcher is loaded and not reloading (one in hand is kept until it
   * has fired), and none was fired within LAUNCH_GAP_MS.
   */
  private launcherWanted(now: number, dist: number, server: number): boolean {
    const id = this.launcher;
    if (id < 0 || now < this.nextLaunchAt || !(dist >= LAUNCH_MIN_M && dist <= LAUNCH_MAX_M) || !this.me.carries(id)) return false;
    const ws = this.me.weapons;
    return ws.ammoAt(id, server) > 0 && !ws.reloadingAt(id, server);
  }

  private reloadInHand(now: number, weapon: number, intent: Intent): boolean {
    const at = this.me.stamp(now);
    if (this.me.weapons.reloadCheck(at) !== RULES_OK) return false;
    this.me.act(ShotAction.RELOAD, weapon, at, intent);
    this.reloads++;
    this.nextActionAt = now + ACTION_GAP_MS;
    return true;
  }

  private switchTo(now: number, weapon: number, intent: Intent): boolean {
    const at = this.me.stamp(now);
    if (this.me.weapons.switchCheck(at, weapon) !== RULES_OK) return false;
    this.me.act(ShotAction.SWITCH, weapon, at, intent);
    this.switches++;
    this.nextActionAt = now + ACTION_GAP_MS;
    return true;
  }

  /**
   * Between fights: a manual reload of a half-empty magazine in hand, then back to the weapon this
   * player walks with (the rifle; the sniper rifle for one who prefers it).
   */
  private betweenFights(now: number, intent: Intent): void {
    if (now < this.nextActionAt || now - this.lastTargetAt < 800) return;
    const ws = this.me.weapons;
    const home = this.sniperRangeM < SNIPER_RANGE_M && this.me.carries(WeaponId.SNIPER) ? WeaponId.SNIPER : WeaponId.RIFLE;
    const at = this.me.stamp(now);
    const w = ws.equipped;
    const reload = ws.ammoAt(w.id, at) < w.magazine * 0.6 && !ws.reloadingAt(w.id, at) && ws.reloadCheck(at) === RULES_OK;
    if (ws.head.equipped !== home && !reload) {
      if (now - this.lastTargetAt > 1500 && !ws.reloadingAt(w.id, at)) this.switchTo(now, home, intent);
      return;
    }
    if (reload) {
      this.me.act(ShotAction.RELOAD, w.id, at, intent);
      this.reloads++;
      this.nextActionAt = now + ACTION_GAP_MS;
    }
  }
}
