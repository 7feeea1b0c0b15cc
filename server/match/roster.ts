/**
 * Who is in a match and how their lives stand: players by the game's id and by slot, each slot's
 * epoch (bumped by every life and teleport, so no history interpolates across one), and the
 * target arrays the shot pipeline reads (alive, life start, leave time, team by slot). Pure state:
 * the match (match.ts) records the events and keeps the histories.
 */
import type { ValidationConfig } from '../../shared/validate/rules';
import { MatchPlayer } from './player';
import type { TargetArrays } from './judge';

export class Roster<Id> {
  readonly byId = new Map<Id, MatchPlayer<Id>>();
  /** The player in each slot (null: free). */
  readonly bySlot: (MatchPlayer<Id> | null)[] = [];
  readonly targets: TargetArrays = { alive: [], lifeStartMs: [], leftMs: [], team: [] };
  private readonly epochs: number[] = [];
  private readonly magazines: number[];

  constructor(readonly maxPlayers: number, private readonly rules: ValidationConfig, private readonly maxHealth: number) {
    this.magazines = rules.weapons.map((w) => w.magazine);
    for (let s = 0; s < maxPlayers; s++) {
      this.bySlot.push(null);
      this.epochs.push(0);
      this.targets.alive.push(false);
      this.targets.lifeStartMs.push(0);
      this.targets.leftMs.push(Number.NaN);
      this.targets.team.push(-1);
    }
  }

  /** A new player in the first free slot, its first life begun. Throws when the id is in or the match is full. */
  seat(id: Id, team: number, interpDelayMs: number): MatchPlayer<Id> {
    if (this.byId.has(id)) throw new Error(`HitregMatch.join: player ${String(id)} is already in the match`);
    const slot = this.bySlot.indexOf(null);
    if (slot < 0) throw new Error(`HitregMatch.join: the match is full (${this.maxPlayers} players)`);
    const p = new MatchPlayer<Id>(id, slot, this.magazines, this.rules.loadout);
    p.present = true;
    p.interpDelayMs = interpDelayMs;
    p.team = team;
    this.bySlot[slot] = p;
    this.byId.set(id, p);
    this.targets.leftMs[slot] = Number.NaN;
    this.targets.team[slot] = team;
    this.beginLife(p);
    return p;
  }

  /** The player left at match ms `t`: no target from then on, its slot free. */
  unseat(p: MatchPlayer<Id>, t: number): void {
    this.byId.delete(p.id);
    this.bySlot[p.slot] = null;
    p.present = false;
    p.alive = false;
    p.connected = true;
    this.targets.alive[p.slot] = false;
    this.targets.leftMs[p.slot] = t;
  }

  /** A new life: alive, full health and magazines, the loadout's first weapon in hand and drawn, a new epoch. */
  beginLife(p: MatchPlayer<Id>): void {
    p.alive = true;
    p.health = this.maxHealth;
    p.diedAtMs = Number.NaN;
    p.epoch = ++this.epochs[p.slot]!;
    p.lifePending = true;
    p.lives++;
    const w = p.weapons;
    const weapons = this.rules.weapons;
    for (let k = 0; k < weapons.length; k++) {
      w.ammo[k] = weapons[k]!.magazine;
      w.reloadEndMs[k] = 0;
    }
    w.equipped = this.rules.loadout[0] ?? 0;
    w.drawEndMs = 0;
    w.alive = true;
  }

  /** `p` dies at match ms `t`, killed by `killer` (itself for a death by the world). */
  die(p: MatchPlayer<Id>, killer: MatchPlayer<Id>, t: number): void {
    p.alive = false;
    p.health = 0;
    p.diedAtMs = t;
    p.weapons.alive = false;
    p.deaths++;
    this.targets.alive[p.slot] = false;
    if (killer !== p) killer.kills++;
  }

  /** A discontinuous move: a new epoch. */
  teleport(p: MatchPlayer<Id>): void {
    p.epoch = ++this.epochs[p.slot]!;
  }

  setTeam(p: MatchPlayer<Id>, team: number): void {
    p.team = team;
    this.targets.team[p.slot] = team;
  }

  /** `p`'s snapshot at match ms `t` is recorded: a pending life begins there; the targets follow. */
  recorded(p: MatchPlayer<Id>, t: number): void {
    if (p.lifePending && p.alive) {
      p.lifeStartMs = t;
      p.lifePending = false;
    }
    this.targets.alive[p.slot] = p.alive;
    this.targets.lifeStartMs[p.slot] = p.lifePending ? Number.POSITIVE_INFINITY : p.lifeStartMs;
  }
}
