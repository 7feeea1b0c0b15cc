/**
 * The arena's fog of war (cfg.fog 'on'): the state is ArenaFogState, whose `players`, `holes` and
 * `projectiles` reach a client only through its StateView. This owns the match's FogFilter
 * (hitreg/server), maps its changes onto the views (an enemy's state in or out, with a backfill ahead
 * of it for a client that joined with `fogBackfill: true`; a flight's snapshot in), the bullet holes (fogHoles.ts) and the roster (everyone's scoreboard fields).
 */
import { StateView, type MapSchema } from '@colyseus/schema';
import { ClientState, type Client } from '@colyseus/core';
import { FogFilter, type HitregMatch } from '../match/index';
import { FogHoles } from './fogHoles';
import { Msg } from '../../shared/index';
import { ArenaFogState, RosterEntry, type PlayerState } from './schema';
import type { ArenaConfig } from './config';
import type { ArenaPlayer } from './player';
import type { ArenaProjectiles } from './projectiles';

export class ArenaFog {
  readonly filter: FogFilter<string>;
  readonly holes: FogHoles;
  readonly state = new ArenaFogState();
  private readonly roster: MapSchema<RosterEntry>;

  constructor(match: HitregMatch<string>, private readonly cfg: ArenaConfig, private readonly seats: readonly (ArenaPlayer | null)[], private readonly projectiles: ArenaProjectiles) {
    this.roster = this.state.roster;
    this.filter = new FogFilter<string>(match, {
      movement: cfg.movement, patchMs: Math.max(cfg.patchRateMs, 1000 / cfg.tickRate), climb: cfg.fogClimb ?? true, walk: cfg.fogWalk === undefined ? true : cfg.fogWalk, config: cfg.fogConfig, precisionBudgetMs: cfg.fogPrecisionMs,
      onChange: (v, e, sent) => this.change(v, e, sent),
      onFlightSent: (v, i) => this.flightSent(v, i),
      onProblem: (m, e) => { cfg.stats.recorderErrors++; if (cfg.stats.recorderErrors <= 3) console.error(`arena: ${m}`, e ?? ''); },
    });
    this.holes = new FogHoles(this.filter, cfg.maxBulletHoles, seats);
  }

  /** A player joined: its view holds its own player now, the others as the fog lets them through from the next tick. */
  joined(client: Client, p: ArenaPlayer, ps: PlayerState, backfill: boolean): void {
    p.view = new StateView();
    p.view.add(ps);
    client.view = p.view;
    this.filter.setSeeAll(p.index, p.debug);
    this.filter.setBackfill(p.index, backfill);
    this.holes.joined(p.index);
    const r = new RosterEntry();
    r.slot = p.index;
    r.name = ps.name;
    r.connected = true;
    p.roster = r;
    this.roster.set(client.sessionId, r);
  }

  /** A player left: its view and roster entry go. */
  left(sessionId: string, p: ArenaPlayer): void {
    this.roster.delete(sessionId);
    p.view?.dispose();
    p.view = null;
    p.roster = null;
  }

  /** After the match's tick: who is sent whom, which flights and holes, from this tick's patch on. */
  update(): void {
    this.filter.updateTimed();
    this.holes.update();
    const fog = this.filter.fog, stats = this.cfg.stats;
    stats.fogRays += fog.rays;
    stats.fogPairsOverBudget += fog.pairsOverBudget;
    let viewers = 0;
    for (let s = 0; s < fog.capacity; s++) viewers += fog.present[s]!;
    stats.fogViewerUpdates += viewers;
    const prec = this.filter.precision;
    stats.fogPreciseViewerUpdates += prec.preciseCount;
    const ms = prec.lastTimedMs;
    if (ms === ms) {
      stats.fogTimedUpdates++;
      stats.fogTimedMs += ms;
    }
  }

  /** The fog's verdict changed: the enemy's state enters or leaves the viewer's view. */
  private change(viewerSlot: number, enemySlot: number, sent: boolean): void {
    const viewer = this.seats[viewerSlot], enemy = this.seats[enemySlot];
    if (viewer === null || viewer === undefined || viewer.view === null || enemy === null || enemy === undefined || enemy.state === null) return;
    if (sent) {
      // Ahead of the patch that carries the enemy again, on the same connection (MatchView.backfill).
      // A client still joining gets none: Colyseus holds its messages until its full state, which
      // already holds the enemy, so a backfill would come after the run began (and be dropped).
      const client = viewer.client;
      if (client !== null && client !== undefined && client.state === ClientState.JOINED) {
        const bytes = this.filter.backfillFor(viewerSlot, enemySlot);
        if (bytes !== null) client.sendBytes(Msg.BACKFILL, bytes);
      }
      viewer.view.add(enemy.state);
    } else viewer.view.remove(enemy.state);
  }

  /** The fog sends flight index i to the viewer from now on: its snapshot enters the viewer's view (it leaves with the flight). */
  private flightSent(viewerSlot: number, i: number): void {
    const viewer = this.seats[viewerSlot];
    const snap = this.projectiles.snapshotOf(this.state.projectiles, i);
    if (viewer !== null && viewer !== undefined && viewer.view !== null && snap !== undefined) viewer.view.add(snap);
  }
}
