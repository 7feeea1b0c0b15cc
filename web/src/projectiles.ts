/**
 * Rockets and grenades on the page, all drawn at the render time (server clock - interpolation
 * delay), as the players are:
 * - own launches, predicted at once with the shared LaunchPredictor against what the page draws
 *   (a sphere of the weapon's radius from the moment the trigger is pulled);
 * - every projectile the server flies, from the synced state's snapshots (SyncedProjectiles), except
 *   the synced copy of an own launch whose prediction is still flying (matched by slot and seq);
 * - the server's end of each (Msg.PROJECTILE): a fading sphere of the splash radius where one
 *   exploded, shown when the render time reaches the end's time; it ends the prediction of that launch.
 * `stats`, `launches`, `ends`, `drawnSynced` and `hiddenOwn` are read by tests and the console.
 */
import * as THREE from 'three';
import {
  FlightEventKind, LaunchPredictor, Msg, SyncedProjectiles, weaponById,
  type MatchView, type ProjectileEndData, type ProjectileEndReply, type ProjectileSnapshotLike, type Verdict, type VerdictReply, type WeaponSpec,
} from '../../shared/index';
import type { Joined } from './net';

/** How long an explosion shows, ms. */
const BLAST_MS = 450;
/** An end whose time the render time has not reached is shown anyway this long after the interpolation delay, ms. */
const END_LATE_MS = 500;
/** Records kept for tests and the console. */
const KEEP = 64;

/** An own launch as the page predicted it. */
export interface LaunchView {
  seq: number;
  weapon: number;
  /** The predicted end (kind, where, the player struck or -1), null while flying or when the server's end came first. */
  predictedEnd: { kind: number; x: number; y: number; z: number; player: number } | null;
  /** The server's end, once it arrived. */
  serverEnd: ProjectileEndReply | null;
}

/** A server end as the page received it. */
export interface EndView {
  end: ProjectileEndReply;
  arrivedAt: number;
  /** Local ms the explosion (or, for an end without one, the end) was drawn; NaN until then. */
  shownAt: number;
}

interface Blast {
  mesh: THREE.Mesh<THREE.SphereGeometry, THREE.MeshBasicMaterial>;
  from: number;
  radius: number;
}

const COLOURS: Record<string, number> = { rocket: 0xff7a1a, grenade: 0x4f7d32 };

export class ProjectileView {
  readonly group = new THREE.Group();
  readonly predictor: LaunchPredictor;
  readonly synced: SyncedProjectiles;
  /**
   * Drawn now: predicted own launches, synced projectiles, explosions; synced copies hidden behind a
   * prediction; and explosions shown so far.
   */
  readonly stats = { predicted: 0, synced: 0, blasts: 0, hiddenOwn: 0, explosions: 0 };
  /** Own launches by seq (the last KEEP). */
  readonly launches = new Map<number, LaunchView>();
  /** The server's ends in arrival order (the last KEEP). */
  readonly ends: EndView[] = [];
  /** Synced projectiles drawn at least once, as `shooter:seq` (the last KEEP). */
  readonly drawnSynced: string[] = [];
  /** Own launches whose synced copy was hidden behind the prediction at least once, by seq (the last KEEP). */
  readonly hiddenOwn: number[] = [];
  private readonly pending: EndView[] = [];
  private readonly predictedMeshes: (THREE.Mesh | null)[];
  private readonly syncedMeshes = new Map<number, THREE.Mesh>();
  private readonly blasts: Blast[] = [];
  private readonly sphere = new THREE.SphereGeometry(1, 14, 10);
  private readonly materials = new Map<number, THREE.MeshStandardMaterial>();
  private readonly weapons: readonly WeaponSpec[];
  /** How long after its arrival an end is shown at the latest, ms. */
  private readonly endWaitMs: number;
  private readonly onPredictedEnd = (e: ProjectileEndData): void => {
    const l = this.launches.get(e.seq);
    if (l !== undefined) l.predictedEnd = { kind: e.kind, x: e.x, y: e.y, z: e.z, player: e.kind === FlightEventKind.PLAYER ? e.player : -1 };
  };

  constructor(view: MatchView, net: Joined, private readonly slot: number) {
    const rules = net.welcome.validation;
    this.weapons = rules.weapons;
    this.endWaitMs = net.welcome.interpDelayMs + END_LATE_MS;
    this.predictor = new LaunchPredictor(view, rules, net.welcome.tickRate);
    this.synced = new SyncedProjectiles(net.world, rules.weapons, net.welcome.tickRate);
    this.predictedMeshes = new Array<THREE.Mesh | null>(this.predictor.flights.capacity).fill(null);
    net.room.onStateChange((state: { projectiles?: { values(): Iterable<ProjectileSnapshotLike> } }) => {
      if (state.projectiles !== undefined) this.synced.update(state.projectiles.values());
    });
    net.room.onMessage(Msg.PROJECTILE, (e: ProjectileEndReply) => this.ended(e));
  }

  /**
   * Own launch `seq` was sent, predicted as `p` (verdict LAUNCH: the eye point, the unit direction,
   * the render time), expected at the server at arrivalMs: it flies from where the server will start it
   * and is drawn at once. False when it cannot fly.
   */
  launched(seq: number, p: Verdict, arrivalMs: number): boolean {
    const i = this.predictor.launch(this.slot, p.weapon, seq, p.x, p.y, p.z, p.nx, p.ny, p.nz, p.rewindTimeMs, this.onPredictedEnd, arrivalMs);
    if (i < 0) return false;
    this.launches.set(seq, { seq, weapon: p.weapon, predictedEnd: null, serverEnd: null });
    for (const k of this.launches.keys()) if (this.launches.size > KEEP) this.launches.delete(k);
    this.drawPredicted(p.rewindTimeMs);
    return true;
  }

  /** A verdict: a launch's prediction is flown again from the flight start the server names, when it started elsewhere. */
  verdict(v: VerdictReply): void {
    if (typeof v.projectileStartMs === 'number' && this.launches.has(v.seq)) this.predictor.confirm(v.seq, v.projectileStartMs, this.onPredictedEnd);
  }

  private ended(e: ProjectileEndReply): void {
    if (typeof e !== 'object' || e === null || !Number.isFinite(e.seq)) return;
    const v: EndView = { end: e, arrivedAt: performance.now(), shownAt: Number.NaN };
    this.ends.push(v);
    if (this.ends.length > KEEP) this.ends.shift();
    this.pending.push(v);
    const l = e.shooter === this.slot ? this.launches.get(e.seq) : undefined;
    if (l !== undefined) l.serverEnd = e;
  }

  /** Draws everything at render time `t` (local ms `now`): flies the predictions, shows the ends due, fades the explosions. */
  draw(t: number, now: number): void {
    this.predictor.advance(t, this.onPredictedEnd);
    for (let k = 0; k < this.pending.length; k++) {
      const v = this.pending[k]!;
      if (!(v.end.timeMs <= t) && now - v.arrivedAt < this.endWaitMs) continue;
      this.pending.splice(k--, 1);
      this.show(v, now);
    }
    this.drawPredicted(t);
    this.drawSynced(t);
    this.stats.blasts = 0;
    for (let k = 0; k < this.blasts.length; k++) {
      const b = this.blasts[k]!;
      const f = (now - b.from) / BLAST_MS;
      if (f >= 1) {
        this.group.remove(b.mesh);
        b.mesh.material.dispose();
        this.blasts.splice(k--, 1);
        continue;
      }
      b.mesh.scale.setScalar(b.radius * (0.35 + 0.65 * Math.sqrt(f)));
      b.mesh.material.opacity = 0.75 * (1 - f);
      this.stats.blasts++;
    }
  }

  /** The server's end is due: the prediction of that launch stops, an explosion shows where it blew. */
  private show(v: EndView, now: number): void {
    const e = v.end;
    v.shownAt = now;
    if (e.shooter === this.slot) this.predictor.drop(e.seq);
    const splash = weaponById(this.weapons, e.weapon)?.projectile?.splash;
    if (!e.exploded || splash === undefined || !Number.isFinite(e.x + e.y + e.z)) return;
    const mesh = new THREE.Mesh(this.sphere, new THREE.MeshBasicMaterial({ color: 0xff8a1c, transparent: true, opacity: 0.75, depthWrite: false, side: THREE.DoubleSide, fog: false }));
    mesh.position.set(e.x, e.y, e.z);
    mesh.scale.setScalar(splash.radius * 0.35);
    this.group.add(mesh);
    this.blasts.push({ mesh, from: now, radius: splash.radius });
    this.stats.explosions++;
  }

  private drawPredicted(t: number): void {
    const f = this.predictor.flights;
    this.stats.predicted = 0;
    for (let i = 0; i < f.capacity; i++) {
      let mesh = this.predictedMeshes[i] ?? null;
      if (f.live[i] !== 1) {
        if (mesh !== null) mesh.visible = false;
        continue;
      }
      if (mesh === null) {
        mesh = new THREE.Mesh(this.sphere);
        this.predictedMeshes[i] = mesh;
        this.group.add(mesh);
      }
      // The flight stands at its last grid sub-step (at most one tick before t): carried on along its velocity.
      const dt = Math.min(Math.max(0, t - f.timeMs[i]!), f.stepMs[i]!) / 1000;
      this.place(mesh, f.weapon[i]!, f.x[i]! + f.vx[i]! * dt, f.y[i]! + f.vy[i]! * dt, f.z[i]! + f.vz[i]! * dt);
      this.stats.predicted++;
    }
  }

  /** Whether the own launch `seq` is still predicted in flight. */
  private predicting(seq: number): boolean {
    const f = this.predictor.flights;
    if (f.count === 0) return false;
    for (let i = 0; i < f.capacity; i++) if (f.live[i] === 1 && f.seq[i] === seq) return true;
    return false;
  }

  private drawSynced(t: number): void {
    this.synced.advance(t);
    this.stats.synced = 0;
    this.stats.hiddenOwn = 0;
    for (const [id, mesh] of this.syncedMeshes) {
      if (this.synced.entries.has(id)) continue;
      this.group.remove(mesh);
      this.syncedMeshes.delete(id);
    }
    for (const e of this.synced.entries.values()) {
      let mesh = this.syncedMeshes.get(e.id);
      if (mesh === undefined) {
        mesh = new THREE.Mesh(this.sphere);
        this.syncedMeshes.set(e.id, mesh);
        this.group.add(mesh);
      }
      if (e.shooter === this.slot && this.predicting(e.seq)) {
        mesh.visible = false;
        this.stats.hiddenOwn++;
        if (mesh.userData.hidden !== true) {
          mesh.userData.hidden = true;
          this.hiddenOwn.push(e.seq);
          if (this.hiddenOwn.length > KEEP) this.hiddenOwn.shift();
        }
        continue;
      }
      this.place(mesh, e.weapon, e.state.x, e.state.y, e.state.z);
      this.stats.synced++;
      if (mesh.userData.drawn !== true) {
        mesh.userData.drawn = true;
        this.drawnSynced.push(`${e.shooter}:${e.seq}`);
        if (this.drawnSynced.length > KEEP) this.drawnSynced.shift();
      }
    }
  }

  private place(mesh: THREE.Mesh, weapon: number, x: number, y: number, z: number): void {
    mesh.material = this.material(weapon);
    mesh.scale.setScalar(weaponById(this.weapons, weapon)?.projectile?.radius ?? 0.1);
    mesh.position.set(x, y, z);
    mesh.visible = true;
  }

  private material(weapon: number): THREE.MeshStandardMaterial {
    let m = this.materials.get(weapon);
    if (m === undefined) {
      const colour = COLOURS[weaponById(this.weapons, weapon)?.name ?? ''] ?? 0xdddddd;
      m = new THREE.MeshStandardMaterial({ color: colour, emissive: colour, emissiveIntensity: 0.5 });
      this.materials.set(weapon, m);
    }
    return m;
  }
}
