/**
 * The playable client: first-person WASD + mouse look, own movement predicted with the shared
 * movement step at the server's tick rate and reconciled against the server's acknowledged input,
 * others drawn interpolated at the render time (server clock - interpolation delay) from the
 * same snapshot rings the server rewinds (shared/client/view.ts), and every shot predicted with
 * the server's own validateShot against exactly what was drawn, with the weapon rules state
 * mirrored by the shared PredictingShooter (which also fills a pattern weapon's pellets): an instant
 * hit marker, each pellet's tracer, holes and hits, and the predicted damage, then confirmed or
 * corrected by the server's verdict (its pellets redrawn where the server says they went).
 */
import * as THREE from 'three';
import {
  BONE_STRIDE, Msg, MatchView, PredictingShooter, RULES_OK, SnapshotPool, VerdictKind, createInputMessage, createMoveState,
  createBackfill, createPlayerPose, createWorldHit, decodeBackfill, encodeInput, hasPattern, reasonName, rewindReachMs, setView, stepMovement, weaponById, INPUT_BYTES, PING_MARGIN_MS,
  type ClientClock, type DamagedReply, type HitReply, type MoveState, type VerdictReply, type RewoundPose,
} from '../../shared/index';
import type { Joined } from './net';
import type { Controls } from './controls';
import { HitboxFigure, hitboxGeometries, levelMesh, segmentLine } from './scene';
import { MarkColour, ShotDecor, muzzle } from './shotDecor';
import { marksOfReply, marksOfVerdict, sameOutcome, type ShotMarks } from './shotMarks';
import { ProjectileView } from './projectiles';

/** One shot as the page saw it: the prediction at once, the verdict when it comes. */
export interface ShotView {
  seq: number;
  sentAt: number;
  renderTimeMs: number;
  segment: [number, number, number, number, number, number];
  predicted: { kind: number; reason: string; target: number; zone: number; hitbox: number; damage: number };
  weapon: number;
  /** What the prediction drew: each pellet's stop, the holes and the hits (one pellet for a single segment). */
  marks: ShotMarks;
  /** What the verdict redrew when it carried pellets (null before it, or when it had none). */
  verdictMarks: ShotMarks | null;
  /** What the client drew at its render time: each other player's posed bones (for the debug view). */
  seen: Map<number, Float64Array>;
  verdict: VerdictReply | null;
  /** Prediction and verdict agree on kind, target and zone. */
  agreed: boolean | null;
}

export class Game {
  readonly renderer: THREE.WebGLRenderer;
  readonly scene = new THREE.Scene();
  readonly camera = new THREE.PerspectiveCamera(75, 1, 0.05, 500);
  readonly view: MatchView;
  readonly shots: ShotView[] = [];
  readonly controls: Controls = { forward: false, back: false, left: false, right: false, jump: false, fire: false, pulled: false };
  yaw = 0;
  pitch = 0;
  slot: number;
  health = 100;
  /**
   * The weapon messages: seq, frames, predictions, and the rules state (weapon in hand, rounds,
   * reloads, draws) after every message sent, rebuilt from the server's verdicts.
   */
  readonly shooter: PredictingShooter;
  /** Own movement, predicted. */
  readonly me: MoveState = createMoveState(0, 0, 0);
  /** Smoothing offset left by a reconciliation, fading out over a few frames (metres). */
  private readonly smooth = new Float64Array(3);
  private predictedReady = false;
  private inputSeq = 0;
  /** Predicted feet position after each sent input, by seq (ring). */
  private readonly predictedAt = new Float64Array(256 * 4);
  private accumulator = 0;
  private lastFrame = -1;
  private nextFireAt = 0;
  private lastEpoch = -1;
  private readonly figures: (HitboxFigure | null)[] = [];
  private readonly geometries: THREE.BufferGeometry[];
  private readonly bones: Float64Array;
  private readonly pose = createPlayerPose();
  private readonly hit = createWorldHit();
  private readonly inputBuf = new Uint8Array(INPUT_BYTES);
  private readonly input = createInputMessage();
  private readonly clockNow: ClientClock = { serverNowMs: 0, rttMs: 0, interpDelayMs: 0, newestTickMs: 0, streamFloorMs: Number.NaN };
  /** Tracers, holes and hit dots of the shots, predicted then judged. */
  readonly decor = new ShotDecor();
  /** Rockets and grenades: own launches predicted, every synced one, the explosions. */
  readonly projectiles: ProjectileView;
  private readonly debugGroup = new THREE.Group();
  /** Per-second counters for the net graph. */
  readonly stats = { snapshots: 0, tickRate: 0, lastTick: -1, lastTickAt: 0, corrections: 0, correctionM: 0 };
  onShot: ((s: ShotView) => void) | null = null;
  onVerdict: ((s: ShotView) => void) | null = null;
  onDamaged: ((d: DamagedReply) => void) | null = null;
  debug = false;

  constructor(readonly canvas: HTMLCanvasElement, readonly net: Joined) {
    const { welcome, world, rig } = net;
    this.slot = welcome.slot;
    this.view = new MatchView(world, rig, welcome.validation.maxPlayers, rewindReachMs(welcome.validation), welcome.tickRate);
    const snapshots = new SnapshotPool(welcome.validation.maxPlayers, 2);
    this.shooter = new PredictingShooter(this.view, welcome.validation);
    this.shooter.slot = welcome.slot;
    this.bones = new Float64Array(rig.hitboxCount * BONE_STRIDE);
    this.geometries = hitboxGeometries(rig);
    this.debug = welcome.debug;
    this.projectiles = new ProjectileView(this.view, net, welcome.slot);

    this.renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(Math.min(2, window.devicePixelRatio));
    this.scene.background = new THREE.Color(0x9fb8cf);
    this.scene.fog = new THREE.Fog(0x9fb8cf, 40, 160);
    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x445566, 1.6));
    const sun = new THREE.DirectionalLight(0xffffff, 1.4);
    sun.position.set(20, 40, 10);
    this.scene.add(sun);
    this.scene.add(levelMesh(world));
    this.scene.add(this.decor.group, this.debugGroup, this.projectiles.group);
    for (let s = 0; s < welcome.validation.maxPlayers; s++) this.figures.push(null);

    const room = net.room;
    room.onStateChange((state: any) => {
      const snap = snapshots.capture(state);
      if (snap === null) return;
      this.view.apply(snap);
      snap.inUse = false;
      this.stats.snapshots++;
      const me = state.players?.get(room.sessionId);
      if (me !== undefined) this.reconcile(me);
    });
    const backfill = createBackfill();
    net.backfill.to = (bytes) => {
      if (decodeBackfill(backfill, bytes)) this.view.backfill(backfill);
    };
    room.onMessage(Msg.VERDICT, (v: VerdictReply) => this.verdict(v));
    room.onMessage(Msg.HIT, (h: HitReply) => {
      if (h.killed) this.view.markKilled(h.target);
    });
    room.onMessage(Msg.DAMAGED, (d: DamagedReply) => {
      this.health = d.health;
      this.onDamaged?.(d);
    });
    room.onMessage(Msg.REJECT, () => {});
  }

  /** Server ms the others are drawn at. */
  renderTime(now: number): number {
    return this.net.clock.serverNow(now) - this.net.welcome.interpDelayMs;
  }

  get viewDir(): [number, number, number] {
    const cp = Math.cos(this.pitch);
    return [Math.sin(this.yaw) * cp, Math.sin(this.pitch), Math.cos(this.yaw) * cp];
  }

  eye(): [number, number, number] {
    return [this.me.x + this.smooth[0]!, this.me.y + this.smooth[1]! + this.net.rig.eyeHeight, this.me.z + this.smooth[2]!];
  }

  /**
   * Reconciliation: the server says where it put us after input `inputSeq`. The difference to where
   * this client predicted itself after the same input is the prediction error; it is added to the
   * current prediction (the later inputs' effect stays), and shown smoothed unless it is a teleport.
   */
  private reconcile(me: any): void {
    this.shooter.alive = me.alive;
    if (me.alive && me.epoch !== this.lastEpoch) {
      // A new life on the server: full magazines, the loadout's first weapon in hand.
      if (this.lastEpoch >= 0) this.shooter.respawn();
      this.lastEpoch = me.epoch;
    }
    if (!this.predictedReady || !me.alive) {
      this.me.x = me.x; this.me.y = me.y; this.me.z = me.z;
      this.me.vx = 0; this.me.vy = 0; this.me.vz = 0;
      if (!this.predictedReady) {
        this.yaw = Math.atan2(me.viewX, me.viewZ);
        this.predictedReady = true;
      }
      if (!me.alive) this.health = 0;
      else if (this.health <= 0) this.health = me.health;
      return;
    }
    this.health = me.health;
    this.shooter.weapons.check(me.weapon, me.ammo, me.reloadEndMs, me.drawEndMs);
    const seq = me.inputSeq >>> 0;
    if (seq === 0 || seq > this.inputSeq || this.inputSeq - seq >= 256) return;
    const o = (seq & 255) * 4;
    if (this.predictedAt[o + 3] !== seq) return;
    const dx = me.x - this.predictedAt[o]!, dy = me.y - this.predictedAt[o + 1]!, dz = me.z - this.predictedAt[o + 2]!;
    const err = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (err < 1e-4) return;
    // Over 2 m is a teleport (a respawn), not a prediction error: taken as it is, not counted.
    if (err < 2) {
      this.stats.corrections++;
      this.stats.correctionM = err;
    }
    this.me.x += dx; this.me.y += dy; this.me.z += dz;
    for (let k = 0; k < 256; k++) {
      const ok = k * 4;
      if (this.predictedAt[ok + 3]! > seq) { this.predictedAt[ok] += dx; this.predictedAt[ok + 1] += dy; this.predictedAt[ok + 2] += dz; }
    }
    if (err < 2) { this.smooth[0] -= dx; this.smooth[1] -= dy; this.smooth[2] -= dz; }
  }

  /**
   * One fixed tick of own movement, due at local ms `at` (a late timer runs several at once, each
   * stamped with its own time): send the input, step the same movement the server steps.
   */
  private tick(dt: number, at: number): void {
    const [vx, vy, vz] = this.viewDir;
    let wx = 0, wz = 0;
    const c = this.controls;
    const fx = Math.sin(this.yaw), fz = Math.cos(this.yaw);
    if (c.forward) { wx += fx; wz += fz; }
    if (c.back) { wx -= fx; wz -= fz; }
    if (c.left) { wx += fz; wz -= fx; }
    if (c.right) { wx -= fz; wz += fx; }
    const l = Math.sqrt(wx * wx + wz * wz);
    if (l > 0) { wx /= l; wz /= l; }
    const inp = this.input;
    inp.seq = ++this.inputSeq;
    inp.buttons = c.jump ? 1 : 0;
    inp.wishX = wx; inp.wishZ = wz; inp.viewX = vx; inp.viewY = vy; inp.viewZ = vz;
    inp.timeMs = this.net.clock.measured > 0 ? this.net.stamper.stamp(this.net.clock.serverNow(at)) : 0;
    this.net.room.sendBytes(Msg.INPUT, encodeInput(this.inputBuf, inp).slice());
    if (this.predictedReady && this.health > 0) {
      setView(this.me, vx, vy, vz);
      stepMovement(this.me, { wishX: Math.fround(wx), wishZ: Math.fround(wz), viewX: vx, viewY: vy, viewZ: vz, jump: c.jump }, this.net.world, this.net.welcome.movement, dt);
    }
    const o = (inp.seq & 255) * 4;
    this.predictedAt[o] = this.me.x; this.predictedAt[o + 1] = this.me.y; this.predictedAt[o + 2] = this.me.z; this.predictedAt[o + 3] = inp.seq;
  }

  /** The weapon in hand, as of every message this client sent. */
  get equipped(): number {
    return this.shooter.weapons.head.equipped;
  }

  /** Action time from which the weapon in hand is drawn, server ms. */
  get drawEndMs(): number {
    return this.shooter.weapons.head.drawEndMs;
  }

  /** Action time at which the reload of the weapon in hand ends, server ms (0: none). */
  get reloadEndMs(): number {
    return this.shooter.weapons.head.reloadEndMs[this.equipped] ?? 0;
  }

  /** Rounds in the weapon in hand now (a reload that has ended counts as done). */
  get ammo(): number {
    return this.shooter.weapons.ammoAt(this.equipped, this.net.clock.serverNow(performance.now()));
  }

  /** The clock a message stamped at local `now` carries (scratch). */
  private clockAt(now: number): ClientClock {
    const c = this.clockNow;
    c.serverNowMs = this.net.clock.stamp(now, this.net.stamper.floor - PING_MARGIN_MS);
    c.rttMs = this.net.rtt.ms;
    c.interpDelayMs = this.net.welcome.interpDelayMs;
    c.newestTickMs = this.view.newestTimeMs;
    c.streamFloorMs = this.net.stamper.floor;
    return c;
  }

  /** Fires along the view: predicts with validateShot against what is drawn, sends, shows the prediction. */
  fire(now: number): ShotView | null {
    const v = this.net.welcome.validation;
    const weapon = weaponById(v.weapons, this.equipped)!;
    if (now < this.nextFireAt || this.health <= 0 || !this.predictedReady) return null;
    // The rules as the server will judge them: drawn, loaded, not reloading, the fire clock.
    if (this.shooter.weapons.fireCheck(this.net.clock.serverNow(now)) !== RULES_OK) return null;
    const t = this.renderTime(now);
    if (t > this.view.newestTimeMs) return null; // nothing buffered to draw at that time yet
    this.nextFireAt = now + weapon.fireIntervalMs + 10;
    const [sx, sy, sz] = this.eye();
    const [dx, dy, dz] = this.viewDir;
    let len = weapon.rangeM * 0.999;
    // Pellets (as long as the aim), a penetrating round and a launch take the weapon's range; any other shot ends just behind the first wall.
    const reaches = hasPattern(weapon) || (weapon.penetration ?? 0) > 0 || weapon.projectile !== undefined;
    if (!reaches && this.net.world.firstHit(this.hit, sx, sy, sz, sx + dx * len, sy + dy * len, sz + dz * len)) len = Math.min(len, this.hit.t * len + 0.05);
    // Prediction: the server's pipeline against this client's rings, arrival half a round trip away.
    const clock = this.clockAt(now);
    const pr = this.shooter.fire(clock, t, sx, sy, sz, sx + dx * len, sy + dy * len, sz + dz * len);
    const p = pr.verdict;
    const launch = p.kind === VerdictKind.LAUNCH && this.projectiles.launched(pr.seq, p, clock.serverNowMs + clock.rttMs / 2); // drawn as a projectile, not a tracer
    const seen = new Map<number, Float64Array>();
    for (let s = 0; s < this.view.maxPlayers; s++) {
      if (s === this.slot || !this.view.renderPose(this.pose, s, p.rewindTimeMs === p.rewindTimeMs ? p.rewindTimeMs : t) || !this.pose.alive) continue;
      seen.set(s, this.view.rewinder.poseBones(new Float64Array(this.bones.length), this.pose).slice());
    }
    const view: ShotView = {
      seq: pr.seq, sentAt: now, renderTimeMs: t, segment: [sx, sy, sz, sx + dx * len, sy + dy * len, sz + dz * len],
      predicted: { kind: p.kind, reason: reasonName(p.reason), target: p.target, zone: p.zone, hitbox: p.hitbox, damage: p.damage },
      weapon: weapon.id, marks: launch ? { sx, sy, sz, pellets: [], holes: [], hits: [] } : marksOfVerdict(p, sx, sy, sz, sx + dx * len, sy + dy * len, sz + dz * len), verdictMarks: null,
      seen, verdict: null, agreed: null,
    };
    this.net.room.sendBytes(Msg.SHOT, pr.bytes);
    this.shots.push(view);
    if (this.shots.length > 200) this.shots.shift();
    this.decor.show(view.seq, view.marks, MarkColour.PREDICTED, now, muzzle(view.segment));
    this.onShot?.(view);
    return view;
  }

  /**
   * Takes the loadout's `index`-th weapon (keys 1, 2, 3): a SWITCH stamped now. It is drawn
   * `drawMs` later (the server judges shots before that as WEAPON_DRAWING, so fire() waits); a
   * reload under way is cancelled. Returns false when there is nothing to switch to.
   */
  switchTo(index: number, now: number): boolean {
    const id = this.net.welcome.validation.loadout[index];
    if (id === undefined || id === this.equipped || this.health <= 0 || !this.predictedReady) return false;
    const pr = this.shooter.switchTo(this.clockAt(now), id);
    this.net.room.sendBytes(Msg.SHOT, pr.bytes);
    return true;
  }

  /** Asks for a reload of the weapon in hand (R), when the rules allow one. */
  reload(now: number): void {
    if (this.shooter.weapons.reloadCheck(this.net.clock.serverNow(now)) !== RULES_OK) return;
    this.net.room.sendBytes(Msg.SHOT, this.shooter.reload(this.clockAt(now)).bytes);
  }

  private verdict(v: VerdictReply): void {
    this.shooter.settle(v.seq, v);
    this.projectiles.verdict(v);
    const s = this.shots.find((x) => x.seq === v.seq && x.verdict === null);
    if (s === undefined) return;
    s.verdict = v;
    s.agreed = s.predicted.kind === v.kind && s.predicted.target === v.target && s.predicted.zone === v.zone;
    this.redraw(s, v, performance.now());
    if (this.debug && v.rewound) this.showImpact(s, v.rewound);
    this.onVerdict?.(s);
  }

  /**
   * The verdict's pellets replace the predicted ones (green when they went where predicted, red
   * when not); a verdict without pellets recolours the prediction, and a refused one leaves no
   * holes or hits (the server made none).
   */
  private redraw(s: ShotView, v: VerdictReply, now: number): void {
    const [sx, sy, sz] = s.segment;
    s.verdictMarks = marksOfReply(v, sx, sy, sz, s.marks);
    if (s.verdictMarks !== null) s.agreed = s.agreed && sameOutcome(s.marks, s.verdictMarks);
    let marks = s.verdictMarks ?? s.marks;
    if (s.verdictMarks === null && v.kind === VerdictKind.REJECTED) marks = { ...marks, holes: [], hits: [] };
    else if (s.verdictMarks === null && v.kind !== VerdictKind.HIT) marks = { ...marks, hits: [] };
    this.decor.show(s.seq, marks, s.agreed ? MarkColour.CONFIRMED : MarkColour.CORRECTED, now, muzzle(s.segment));
  }

  /** sv_showimpacts: the hitboxes this client drew when it fired (blue) beside the server's rewound ones (green if they agree, red if not). */
  showImpact(s: ShotView, rewound: RewoundPose[]): void {
    this.debugGroup.clear();
    const [sx, sy, sz, ex, ey, ez] = s.segment;
    this.debugGroup.add(segmentLine(sx, sy, sz, ex, ey, ez, s.agreed ? 0x22cc44 : 0xff3322));
    for (const [slot, bones] of s.seen) {
      const f = new HitboxFigure(this.net.rig, this.geometries, 0x3388ff, { wireframe: true, opacity: 0.8 });
      f.setBones(bones);
      if (s.predicted.target === slot) f.highlight(s.predicted.hitbox, 0xffffff);
      this.debugGroup.add(f.group);
    }
    for (const r of rewound) {
      const pose = this.pose;
      pose.x = r.x; pose.y = r.y; pose.z = r.z; pose.qx = r.qx; pose.qy = r.qy; pose.qz = r.qz; pose.qw = r.qw;
      pose.clip = r.clip; pose.time = r.time; pose.alive = true;
      const f = new HitboxFigure(this.net.rig, this.geometries, s.agreed ? 0x22cc44 : 0xff3322, { wireframe: true, opacity: 0.9 });
      f.setBones(this.view.rewinder.poseBones(this.bones, pose));
      this.debugGroup.add(f.group);
    }
  }

  /**
   * Fixed ticks of own movement and the trigger, run from a timer of its own (not the animation
   * frame, which a slow GPU or a hidden tab may starve): inputs reach the server at its tick rate.
   */
  update(now: number): void {
    const dtMs = this.lastFrame < 0 ? 0 : Math.min(250, now - this.lastFrame);
    this.lastFrame = now;
    const tickMs = 1000 / this.net.welcome.tickRate;
    this.accumulator += dtMs;
    while (this.accumulator >= tickMs) {
      this.accumulator -= tickMs;
      this.tick(tickMs / 1000, now - this.accumulator);
    }
    const fade = Math.min(1, dtMs / 100);
    for (let k = 0; k < 3; k++) this.smooth[k] -= this.smooth[k]! * fade;
    const c = this.controls;
    if ((c.fire || c.pulled) && this.fire(now) !== null) c.pulled = false;
    // A pull the rules do not allow now (dead, reloading, empty) is dropped rather than fired later.
    if (c.pulled && !c.fire && (this.health <= 0 || this.ammo <= 0)) c.pulled = false;
  }

  /** Draws the match as of `now` (per animation frame). */
  draw(now: number): void {
    const t = this.renderTime(now);
    this.decor.update(now);
    this.projectiles.draw(t, now);
    for (let s = 0; s < this.view.maxPlayers; s++) {
      // renderPose draws only from received snapshots: while the player is absent (left, or
      // withheld by the server's fog of war) only its received tail, nothing before its first snapshot back.
      const drawable = s !== this.slot && this.view.renderPose(this.pose, s, t) && this.pose.alive;
      let f = this.figures[s] ?? null;
      if (!drawable) {
        if (f !== null && !this.view.present(s)) {
          // Absent and past its tail: off the scene (no figure left standing where it was last seen); a fresh one when it is back.
          this.scene.remove(f.group);
          f.dispose();
          this.figures[s] = null;
        } else if (f !== null) f.group.visible = false;
        continue;
      }
      if (f === null) {
        f = new HitboxFigure(this.net.rig, this.geometries, 0xc05a3a);
        this.figures[s] = f;
        this.scene.add(f.group);
      }
      f.group.visible = true;
      f.setBones(this.view.rewinder.poseBones(this.bones, this.pose));
    }
    const [ex, ey, ez] = this.eye();
    const [dx, dy, dz] = this.viewDir;
    this.camera.position.set(ex, ey, ez);
    this.camera.lookAt(ex + dx, ey + dy, ez + dz);
    const w = this.canvas.clientWidth, h = this.canvas.clientHeight;
    if (this.canvas.width !== Math.floor(w * this.renderer.getPixelRatio()) || this.canvas.height !== Math.floor(h * this.renderer.getPixelRatio())) {
      this.renderer.setSize(w, h, false);
      this.camera.aspect = w / Math.max(1, h);
      this.camera.updateProjectionMatrix();
    }
    this.renderer.render(this.scene, this.camera);
  }

  /** Turns the view toward a point inside `slot`'s hitbox of `zone` as drawn now (an aim assist for tests and demos). */
  aimAt(slot: number, zone: number, now: number): boolean {
    if (!this.view.renderPose(this.pose, slot, this.renderTime(now))) return false;
    const rig = this.net.rig;
    let h = -1;
    for (let i = 0; i < rig.hitboxCount; i++) if (rig.hitboxZone[i] === zone) { h = i; break; }
    if (h < 0) return false;
    this.view.rewinder.poseBones(this.bones, this.pose);
    const o = h * BONE_STRIDE;
    const [ex, ey, ez] = this.eye();
    // The bone origin sits inside its hitbox for the torso and head.
    const dx = this.bones[o]! - ex, dy = this.bones[o + 1]! - ey + 0.05, dz = this.bones[o + 2]! - ez;
    this.yaw = Math.atan2(dx, dz);
    this.pitch = Math.atan2(dy, Math.sqrt(dx * dx + dz * dz));
    return true;
  }
}
