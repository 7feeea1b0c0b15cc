/**
 * The state of one synthetic match (./synthMatch.ts) and the room's shot path through it: the
 * scene, rules and log the match is built on, its players, the ring of past positions the others
 * render, the scratch buffers every tick reuses, and how a shot is encoded, held back by the
 * weapon, judged by the real validateShot, applied and recorded.
 */
import { createPlayerPose, type PlayerPose } from '../../../shared/lagcomp/pose';
import { MANNEQUIN_RIG } from '../../rig/mannequin';
import { BONE_STRIDE, HitZone } from '../../../shared/rig/rig';
import { WeaponId, type WeaponSpec } from '../../../shared/weapons';
import { validateShot, type ValidationConfig } from '../../../shared/validate/shot';
import { copyShooterState, createShooterState, createVerdict, VerdictKind, VerdictReason, type ShooterState, type Verdict } from '../../../shared/validate/verdict';
import type { MoveConfig } from '../../../shared/movement/step';
import { encodeShot, createShotMessage, SHOT_BYTES, type ShotMessage } from '../../../shared/protocol/shot';
import { createWorldHit, type World, type WorldHit } from '../../../shared/world/world';
import { createMatchScene, type MatchScene } from '../../../shared/validate/scene';
import { TICK_POSE_STRIDE } from '../../match/recorder';
import type { SpawnPoint } from '../../arena/config';
import { findSpawnPoints } from '../../level/spawnPoints';
import { MatchLogRecorder } from '../../matchlog/recorder';
import { Rng } from '../../../client-sim/rng';
import { HEADER_LAYOUT_VERSION } from '../../../shared/matchlog/records';
import { CheatKind } from './synthPlayers';
import { defaultRules } from './synthRules';
import { createPlayer, type Player } from './synthPlayer';
import type { SynthMatchOptions } from './synthOptions';

const LEGACY: ReadonlySet<string> = new Set([CheatKind.AIMBOT, CheatKind.WALLHACK, CheatKind.BACKTRACK]);
/** Ticks of past positions kept per player for what others render (up to 500 ms at 64 Hz). */
const PAST = 40;
/** Values per player and tick in the ring of past positions: x, y, z, alive, epoch. */
const PAST_STRIDE = 5;

export class SynthMatchState {
  readonly rng: Rng;
  readonly n: number;
  readonly dtMs: number;
  readonly ticks: number;
  readonly world: World;
  readonly validation: ValidationConfig;
  readonly movement: MoveConfig;
  readonly scene: MatchScene;
  /** Eye height above a player's root, m. */
  readonly eye: number;
  readonly spawns: SpawnPoint[];
  readonly rec: MatchLogRecorder;
  readonly magazines: number[];
  readonly cheats: Record<number, CheatKind> = {};
  readonly players: Player[] = [];
  readonly immortal: boolean;
  readonly rifle: WeaponSpec;
  /** The tick's pose rows as the recorder takes them. */
  readonly poses: Float64Array;
  /** Who is alive and since when, by slot, as validateShot's targets read them. */
  readonly alive: boolean[];
  readonly life: number[];
  // Nobody leaves a synthetic match, and nobody is on a team.
  private readonly noneLeft: number[];
  private readonly noTeams: number[];
  /** Past positions (x, y, z, alive, epoch) per tick and player: what the others render. */
  private readonly past: Float64Array;
  // Scratch reused by every tick and shot.
  readonly wish = { wishX: 0, wishZ: 0, jump: false };
  readonly pose: PlayerPose = createPlayerPose();
  readonly sampled: PlayerPose = createPlayerPose();
  readonly shot: ShotMessage = createShotMessage();
  readonly bones: Float64Array;
  readonly aimPoint = new Float64Array(3);
  readonly seen = new Float64Array(3);
  readonly worldHit: WorldHit = createWorldHit();
  readonly headBox: number;
  readonly torsoBox: number;
  private readonly verdict: Verdict = createVerdict();
  private readonly before: ShooterState = createShooterState(-1, []);
  private readonly bytes = new Uint8Array(SHOT_BYTES);
  private readonly hitHealth: number[] = [];
  private readonly hitKilled: boolean[] = [];
  shots = 0;
  hits = 0;

  /** Sets up the scene and the rules, opens the log with its header and seats the players. */
  constructor(options: SynthMatchOptions) {
    const seed = options.seed ?? 1;
    this.rng = new Rng(seed);
    const n = this.n = options.players ?? 16;
    const tickRate = options.tickRate ?? 64;
    this.dtMs = 1000 / tickRate;
    this.ticks = Math.round((options.durationS ?? 60) * tickRate);
    const world = this.world = options.world;
    const rig = MANNEQUIN_RIG;
    const defaults = defaultRules(n, tickRate);
    const header = defaults.header;
    const validation = this.validation = { ...defaults.validation, ...options.rules };
    this.movement = header.movement;
    this.scene = createMatchScene(world, rig, header.scene);
    this.eye = validation.eyeHeightM;
    this.spawns = findSpawnPoints(world, n);
    this.rec = new MatchLogRecorder({ path: options.path, flushIntervalMs: 50 });
    this.rec.header({
      formatVersion: HEADER_LAYOUT_VERSION, roomId: options.roomId ?? 'synthetic', startedAtIso: new Date(0).toISOString(), tickRate, maxPlayers: n,
      levelPath: options.levelPath, worldHash: world.hash, rigHash: rig.hash, validation, scene: header.scene, movement: header.movement,
    });
    this.magazines = validation.weapons.map((w) => w.magazine);
    this.seat(options, seed);
    this.immortal = Boolean(options.immortal);
    this.poses = new Float64Array(n * TICK_POSE_STRIDE);
    this.noneLeft = new Array<number>(n).fill(Number.NaN);
    this.noTeams = new Array<number>(n).fill(-1);
    this.alive = new Array<boolean>(n).fill(true);
    this.life = new Array<number>(n).fill(Infinity);
    this.rifle = validation.weapons[WeaponId.RIFLE]!;
    this.bones = new Float64Array(rig.hitboxCount * BONE_STRIDE);
    this.headBox = rig.hitboxZone.indexOf(HitZone.HEAD);
    this.torsoBox = rig.hitboxZone.indexOf(HitZone.UPPER_TORSO);
    this.past = new Float64Array(PAST * n * PAST_STRIDE);
  }

  /** Draws the players slot by slot from the match's stream and logs their joins. */
  private seat(options: SynthMatchOptions, seed: number): void {
    const windowMs = this.validation.rewindWindowMs;
    for (let i = 0; i < this.n; i++) {
      const cheat = options.cheats?.[i] ?? CheatKind.HONEST;
      this.cheats[i] = cheat;
      const strength = options.strengths?.[i] ?? options.strength ?? 1;
      this.players.push(createPlayer(i, cheat, LEGACY.has(cheat), this.spawns[i % this.spawns.length]!, strength, seed, this.rng, windowMs, this.magazines, options.persons?.[i]));
      this.rec.event({ kind: 'join', slot: i, timeMs: 0 });
      for (const id of options.identities ?? []) if (id.slot === i) this.rec.identity(id);
    }
  }

  /** Nothing of the world lies between the two points. */
  visible(ax: number, ay: number, az: number, bx: number, by: number, bz: number): boolean {
    return !this.world.anyHit(ax, ay, az, bx, by, bz);
  }

  /** Keeps `pl`'s position at `tick` (this.pose) in the ring of past positions. */
  remember(pl: Player, tick: number): void {
    const past = this.past, pose = this.pose;
    const b = ((tick % PAST) * this.n + pl.slot) * PAST_STRIDE;
    past[b] = pose.x; past[b + 1] = pose.y; past[b + 2] = pose.z; past[b + 3] = pl.alive ? 1 : 0; past[b + 4] = pl.epoch;
  }

  /** Where `o` is drawn at tick `tick` by a player `lagTicks` behind: false when unknown or dead. */
  rendered(out: Float64Array, o: number, tick: number, lagTicks: number): boolean {
    const past = this.past;
    const j = Math.max(1, tick - lagTicks);
    if (tick - j >= PAST) return false;
    const b = ((j % PAST) * this.n + o) * PAST_STRIDE;
    if (past[b + 3] !== 1 || past[b + 4] !== this.players[o]!.epoch) return false;
    out[0] = past[b]!; out[1] = past[b + 1]!; out[2] = past[b + 2]!;
    return true;
  }

  /** Encodes a rifle shot from the eye along (dx, dy, dz) (unit), `reach` long, claiming `claimed` and `target`. */
  encode(pl: Player, ex: number, ey: number, ez: number, dx: number, dy: number, dz: number, reach: number, claimed: number, target: number): void {
    const shot = this.shot;
    shot.weapon = WeaponId.RIFLE; shot.claimedTarget = target; shot.seq = ++pl.seq; shot.renderTimeMs = claimed;
    shot.sx = ex; shot.sy = ey; shot.sz = ez; shot.ex = ex + dx * reach; shot.ey = ey + dy * reach; shot.ez = ez + dz * reach;
    encodeShot(this.bytes, shot);
  }

  /** The weapon can fire at action time `at` (fire interval with a client's margin, magazine, reload). */
  ready(pl: Player, at: number, margin: number): boolean {
    if (at < pl.shooter.nextFireMs + margin) return false;
    return !this.reloading(pl, at);
  }

  /** The magazine is empty and its reload not done (with a client's margin) at action time `at`. */
  reloading(pl: Player, at: number): boolean {
    const reloadEnd = pl.shooter.reloadEndMs[WeaponId.RIFLE] ?? 0;
    return (pl.shooter.ammo[WeaponId.RIFLE] ?? 0) <= 0 && (reloadEnd === 0 || at < reloadEnd + 20);
  }

  /** Judges the encoded shot like the room does, applies it, records it. */
  fire(pl: Player, receive: number, t: number): void {
    const before = this.before, verdict = this.verdict;
    copyShooterState(before, pl.shooter);
    const timing = { receiveTimeMs: receive, rttMs: pl.rttMs, interpDelayMs: pl.interpMs, newestTickMs: t };
    const targets = { alive: this.alive.slice(), lifeStartMs: this.life.slice(), leftMs: this.noneLeft, team: this.noTeams };
    validateShot(verdict, this.scene, this.validation, this.bytes, before, timing, targets);
    copyShooterState(pl.shooter, verdict.after);
    let healthAfter = -1;
    let killed = false;
    const hh = this.hitHealth, hk = this.hitKilled;
    hh.length = 0;
    hk.length = 0;
    if (verdict.kind === VerdictKind.HIT) {
      this.hits++;
      // As in the room (HitregMatch.applyHits): each hit in order; a player killed by an earlier
      // pellet or while the shot was in flight takes no more damage.
      const hits = verdict.hits;
      for (let i = 0; i < hits.count; i++) {
        const victim = this.players[hits.target[i]!];
        let after = -1;
        let kill = false;
        if (victim !== undefined && victim.alive && hits.reason[i] === VerdictReason.OK_HIT) {
          if (!this.immortal) victim.health = Math.max(0, victim.health - hits.damage[i]!);
          after = victim.health;
          if (victim.slot === verdict.target) healthAfter = after;
          if (victim.health <= 0) {
            kill = true;
            killed = true;
            this.kill(victim, pl.slot, receive, t);
          }
        }
        hh.push(after);
        hk.push(kill);
      }
    }
    this.rec.shot({ bytes: this.bytes.slice(), nonBytesType: null, shooterBefore: before, timing, targets, verdict, targetHealthAfter: healthAfter, killed, hitHealthAfter: hh, hitKilled: hk });
    this.shots++;
  }

  /** `victim` dies by `killer`'s shot that arrived at `receive`, and respawns 2 s after tick time `t`. */
  private kill(victim: Player, killer: number, receive: number, t: number): void {
    victim.alive = false;
    victim.shooter.alive = false;
    victim.respawnAtMs = t + 2000;
    this.alive[victim.slot] = false;
    this.rec.event({ kind: 'death', slot: victim.slot, timeMs: receive, other: killer });
  }
}
