/**
 * Observes the in-process server for the report, without changing what it does:
 * - tick time: each arena room's fixed-timestep callback calls the room's `step` method through
 *   `this`, so an own-property wrapper on the room instance times every tick (a bounded ring of the
 *   newest 65,536 durations);
 * - ground truth for races: the room's match hands every judged shot to its recorder (the match log); a
 *   wrapper on that recorder instance's `shot` method notes, by room, shooter slot and seq, whether
 *   the shooter was alive (and in which life) and which players could be hit when the shot arrived, then passes the call
 *   on unchanged. A prediction that disagrees because a player died on the server while the shot was
 *   in flight is a race the client could not see, not a validation error; this tells the two apart;
 *   it also keeps the server's own verdict kind and reason, which a cheat's outcome is judged by;
 * - deaths: a wrapper on the recorder's `event` method hands each death (room, victim slot, killer
 *   slot) to `onDeath` as the server applies it (the fog report's deaths behind cover, fogWatch.ts).
 */
import { MatchEventKind, type MatchEvent, type ShotRecord } from '../server/match/index';

const RING = 1 << 16;

export interface ArrivalFacts {
  receiveTimeMs: number;
  shooterAlive: boolean;
  /** The shooter's life (epoch) when the message arrived. */
  shooterEpoch: number;
  targetsAlive: boolean[];
  lifeStartMs: number[];
  /** The newest time the shooter's stream had stated when the message arrived (NaN: nothing yet). */
  streamFloorMs: number;
  /** The server's own verdict kind and reason (a reply may read otherwise: fog of war masks what would place a withheld player). */
  kind: number;
  reason: number;
}

export class ServerProbe {
  private readonly ring = new Float64Array(RING);
  private n = 0;
  private readonly wrapped: { obj: any; key: string }[] = [];
  readonly matchLogs: string[] = [];
  /** Match log path by room id. */
  readonly matchLogByRoom = new Map<string, string>();
  /** `${roomId}:${slot}:${seq}` -> facts; a replayed seq keeps every arrival, in order. */
  readonly arrivals = new Map<string, ArrivalFacts[]>();
  /** Told of every death as the room records it (victim and killer slots; killer -1 when none). */
  onDeath: ((roomId: string, victim: number, killer: number) => void) | null = null;

  attach(room: object): void {
    const r = room as any;
    if (typeof r.step === 'function' && !Object.prototype.hasOwnProperty.call(r, 'step')) {
      const step = r.step;
      const ring = this.ring;
      r.step = (...args: unknown[]) => {
        const t0 = performance.now();
        try {
          return step.apply(r, args);
        } finally {
          ring[this.n++ & (RING - 1)] = performance.now() - t0;
        }
      };
      this.wrapped.push({ obj: r, key: 'step' });
    }
    const match = r.match;
    const rec = match?.recorder;
    if (rec !== null && rec !== undefined && typeof rec.shot === 'function' && !Object.prototype.hasOwnProperty.call(rec, 'shot')) {
      const shot = rec.shot;
      const roomId = String(r.roomId);
      rec.shot = (s: ShotRecord) => {
        try {
          const key = `${roomId}:${s.shooterBefore.slot}:${s.verdict.seq}`;
          let list = this.arrivals.get(key);
          if (list === undefined) this.arrivals.set(key, (list = []));
          const id = match.idOfSlot(s.shooterBefore.slot);
          const epoch = (id !== undefined ? match.player(id)?.epoch ?? -1 : -1) & 0xffff;
          list.push({ receiveTimeMs: s.timing.receiveTimeMs, shooterAlive: s.shooterBefore.alive, shooterEpoch: epoch, targetsAlive: Array.from(s.targets.alive), lifeStartMs: Array.from(s.targets.lifeStartMs), streamFloorMs: s.timing.streamFloorMs ?? Number.NaN, kind: s.verdict.kind, reason: s.verdict.reason });
        } catch {
          // observing must never break the recorder
        }
        return shot.call(rec, s);
      };
      this.wrapped.push({ obj: rec, key: 'shot' });
      if (typeof rec.event === 'function' && !Object.prototype.hasOwnProperty.call(rec, 'event')) {
        const event = rec.event;
        rec.event = (e: MatchEvent) => {
          try {
            if (e.kind === MatchEventKind.DEATH) this.onDeath?.(roomId, e.slot, e.other ?? -1);
          } catch {
            // observing must never break the recorder
          }
          return event.call(rec, e);
        };
        this.wrapped.push({ obj: rec, key: 'event' });
      }
      if (typeof rec.path === 'string') {
        this.matchLogs.push(rec.path);
        this.matchLogByRoom.set(roomId, rec.path);
      }
    }
  }

  detach(): void {
    for (const w of this.wrapped) delete w.obj[w.key];
    this.wrapped.length = 0;
  }

  /** Recorded tick durations, ms, ascending. */
  sortedTicks(): Float64Array {
    const out = this.ring.slice(0, Math.min(this.n, RING));
    out.sort();
    return out;
  }
}
