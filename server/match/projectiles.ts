/**
 * The match's projectiles (rockets, grenades): a launch verdict spawns one at the verdict's eye
 * point and rewound time and catches it up to the newest tick against the rewound players; each
 * endTick flies every live one to the tick's time against the players present then
 * (shared/projectile/flights.ts, the code the audit re-flies). An end applies its direct hit and
 * blast through the same rules as shots (projectileOutcome.ts), is logged, and is handed to the
 * game's onProjectile hook. HitregMatch owns one of these; nothing here touches the network.
 */
import type { PlayerHistory } from '../../shared/lagcomp/history';
import { ProjectileFlights, SpawnRefusal, type ProjectileBlastData, type ProjectileEndData } from '../../shared/projectile/flights';
import type { MatchPlayer } from './player';
import type { MatchRecorder } from './recorder';
import type { FriendlyFire } from '../../shared/validate/rules';
import type { ShotOutcome } from './outcome';
import { applyProjectileEnd, createProjectileOutcome, type ProjectileOutcome } from './projectileOutcome';

/** What the projectiles need of their match. */
export interface ProjectileHost<Id> {
  readonly bySlot: (MatchPlayer<Id> | null)[];
  readonly friendlyFire: FriendlyFire;
  die(victim: MatchPlayer<Id>, killer: MatchPlayer<Id>): void;
  /** A shooter record for a slot nobody holds any more (its projectile still flies). */
  outsider(id: Id): MatchPlayer<Id>;
  /** Calls the recorder, if any, catching what it throws. */
  record(fn: (r: MatchRecorder) => void): void;
  problem(message: string, error?: unknown): void;
}

export class MatchProjectiles<Id> {
  /** Launches not flown because maxProjectiles already flew (their round was used). */
  refused = 0;
  /** The histories projectiles and blasts may touch: a slot's is undefined while nobody holds it. */
  private readonly present: (PlayerHistory | undefined)[];
  /** The shooter of each live projectile, by its index in `flights`. */
  private readonly owners: (MatchPlayer<Id> | null)[];
  private readonly out: ProjectileOutcome<Id> = createProjectileOutcome<Id>();
  private readonly die = (victim: MatchPlayer<Id>, killer: MatchPlayer<Id>): void => this.host.die(victim, killer);
  private readonly endHandler = (end: ProjectileEndData, blast: ProjectileBlastData | null): void => this.ended(end, blast);
  /** An end during a launch's catch-up: the spawn is logged before what its catch-up did. */
  private readonly catchUpEndHandler = (end: ProjectileEndData, blast: ProjectileBlastData | null): void => {
    this.host.record((r) => r.projectileSpawn?.(this.flights.spawned));
    this.ended(end, blast);
  };

  constructor(
    readonly flights: ProjectileFlights,
    private readonly host: ProjectileHost<Id>,
    maxPlayers: number,
    private readonly onProjectile: ((out: ProjectileOutcome<Id>) => void) | null,
  ) {
    this.present = new Array<PlayerHistory | undefined>(maxPlayers).fill(undefined);
    this.owners = new Array<MatchPlayer<Id> | null>(flights.capacity).fill(null);
  }

  /** Slot `slot` is held (by a player whose history is `history`) or freed (undefined). */
  setPresent(slot: number, history: PlayerHistory | undefined): void {
    this.present[slot] = history;
  }

  /**
   * A launch verdict of `p`: the projectile spawns and is caught up to `newestTickMs` (an end during
   * the catch-up is applied at once); refused (PROJECTILE_LIMIT) when maxProjectiles already fly.
   * Writes out.projectile (the id, -1 when refused) and out.projectileRefusal.
   */
  launch(out: ShotOutcome<Id>, p: MatchPlayer<Id>, newestTickMs: number, tickMs: number): void {
    const f = this.flights;
    const v = out.verdict;
    // The index is known before the catch-up may end the flight: the end handler reads its owner.
    let free = 0;
    while (free < f.capacity && f.live[free] === 1) free++;
    if (free < f.capacity) this.owners[free] = p;
    const i = f.spawn(p.slot, v.weapon, v.seq, v.rewindTimeMs, newestTickMs, tickMs, v.x, v.y, v.z, v.nx, v.ny, v.nz, this.present, this.catchUpEndHandler);
    if (i < 0) {
      if (f.refusal === SpawnRefusal.PROJECTILE_LIMIT) this.refused++;
      out.projectileRefusal = refusalName(f.refusal);
      return;
    }
    out.projectile = f.spawned.id;
    out.projectileStartMs = f.spawned.fromMs;
    if (f.spawned.alive) this.host.record((r) => r.projectileSpawn?.(f.spawned));
  }

  /** Flies every live projectile to tick `tick` at `timeMs` against the players present. */
  step(tick: number, timeMs: number): void {
    this.flights.step(tick, timeMs, this.present, this.endHandler);
  }

  /** A flight ended: damage applied, logged, handed to the game. */
  private ended(end: ProjectileEndData, blast: ProjectileBlastData | null): void {
    const h = this.host;
    const shooter = this.owners[end.index] ?? h.outsider(h.bySlot[end.shooter]?.id as Id);
    this.owners[end.index] = null;
    const out = this.out;
    applyProjectileEnd(out, end, blast, h.bySlot, shooter, h.friendlyFire, this.die);
    h.record((r) => r.projectileEnd?.(end));
    if (blast !== null) h.record((r) => r.projectileBlast?.(blast));
    if (this.onProjectile === null) return;
    try {
      this.onProjectile(out);
    } catch (e) {
      h.problem('the onProjectile hook threw (the match goes on)', e);
    }
  }
}

function refusalName(r: number): string {
  for (const [k, v] of Object.entries(SpawnRefusal)) if (v === r) return k;
  return String(r);
}
