/**
 * Which of a match's projectiles a FogFilter sends to whom (part of its update): per flight row and
 * viewer, sent once the viewer is the flight's shooter, is sent everyone, was sent the shooter at
 * the flight's first update (its launch, seen), or may see it before the next patch is on screen
 * (FogOfWar.seesPoint: where it can be over the viewer's body horizon, its arc up to a contact or,
 * for one that bounces, the ball its speed and gravity reach, its lag behind the newest tick
 * covered); once sent, sent until it ends. Each update lists its new sends (changeViewer,
 * changeIndex: the flight's row in match.projectiles, changeId: its id). Flat arrays sized at
 * construction; update() allocates nothing.
 */
import { Q_GRAVITY, Q_LEAD, Q_RADIUS, Q_TURNS, Q_VX, Q_VY, Q_VZ, Q_X, Q_Y, Q_Z } from '../../shared/fog/index';
import { FlightMode } from '../../shared/projectile/flight';
import { weaponById } from '../../shared/weapons';
import type { ProjectileFlights } from '../../shared/projectile/flights';
import type { FogJudge } from './fogJudge';

export class FogFlightSends {
  /** Per flight row: the id it is for (-1: none); per row and viewer (row * viewers + viewer): 1 once sent. */
  readonly id: Float64Array;
  readonly sent: Uint8Array;
  /** The last update's new sends. */
  readonly changeViewer: Uint16Array;
  readonly changeIndex: Uint16Array;
  readonly changeId: Float64Array;
  changeCount = 0;
  /** Per flight row: its projectile's gravity (m/s^2), radius (m), and 1 when a contact may turn it (it bounces). */
  private readonly gravity: Float64Array;
  private readonly radius: Float64Array;
  private readonly turns: Uint8Array;

  constructor(private readonly flights: ProjectileFlights, private readonly viewers: number) {
    const fc = flights.capacity;
    this.id = new Float64Array(fc).fill(-1);
    this.sent = new Uint8Array(fc * viewers);
    this.changeViewer = new Uint16Array(fc * viewers);
    this.changeIndex = new Uint16Array(fc * viewers);
    this.changeId = new Float64Array(fc * viewers);
    this.gravity = new Float64Array(fc);
    this.radius = new Float64Array(fc);
    this.turns = new Uint8Array(fc);
  }

  /**
   * Whether the flight `flightId` was sent to the viewer in `viewerSlot` (its row is kept until the
   * next update after the flight ended, so a game's end handler can ask).
   */
  isSent(viewerSlot: number, flightId: number): boolean {
    if (!(viewerSlot >= 0 && viewerSlot < this.viewers)) return false;
    const ids = this.id;
    for (let i = 0; i < ids.length; i++) if (ids[i] === flightId) return this.sent[i * this.viewers + viewerSlot] === 1;
    return false;
  }

  /**
   * The rows after the fog's update (the newest tick at newestMs): a row whose flight ended or
   * changed is cleared; each live flight not yet sent to a viewer of `judge` is sent by the rules
   * above. Returns changeCount.
   */
  update(judge: FogJudge, newestMs: number): number {
    const f = this.flights, n = this.viewers, fog = judge.fog, q = fog.point;
    let count = 0;
    for (let i = 0; i < f.capacity; i++) {
      const row = i * n;
      if (f.live[i] !== 1) {
        if (this.id[i] >= 0) {
          this.id[i] = -1;
          this.sent.fill(0, row, row + n);
        }
        continue;
      }
      const launch = this.id[i] !== f.id[i];
      if (launch) {
        this.id[i] = f.id[i]!;
        this.sent.fill(0, row, row + n);
        const spec = weaponById(f.weapons, f.weapon[i]!)?.projectile;
        this.gravity[i] = spec === undefined ? 0 : spec.gravity;
        this.radius[i] = spec === undefined ? 0 : spec.radius;
        // Unknown: it may turn (the safe side).
        this.turns[i] = spec === undefined || spec.bounce > 0 ? 1 : 0;
      }
      const shooter = f.shooter[i]!;
      const lag = newestMs - f.timeMs[i]!;
      q[Q_X] = f.x[i]!; q[Q_Y] = f.y[i]!; q[Q_Z] = f.z[i]!;
      q[Q_VX] = f.vx[i]!; q[Q_VY] = f.vy[i]!; q[Q_VZ] = f.vz[i]!;
      q[Q_GRAVITY] = this.gravity[i]!; q[Q_RADIUS] = this.radius[i]!;
      q[Q_LEAD] = lag > 0 ? lag / 1000 : 0;
      // A rolling one keeps to the floor without gravity; any mode but flying may turn.
      q[Q_TURNS] = this.turns[i] === 1 || f.mode[i] !== FlightMode.FLYING ? 1 : 0;
      for (let v = 0; v < n; v++) {
        if (this.sent[row + v] === 1 || !judge.hasViewer(v)) continue;
        const sent = v === shooter || judge.seeAll[v] === 1 || (launch && judge.isSent(v, shooter)) || fog.seesPoint(v);
        if (!sent) continue;
        this.sent[row + v] = 1;
        this.changeViewer[count] = v;
        this.changeIndex[count] = i;
        this.changeId[count] = f.id[i]!;
        count++;
      }
    }
    this.changeCount = count;
    return count;
  }
}
