/**
 * Snapshots of the synced state as a predicting client keeps them: each patch copied out of the
 * game's state (which mutates in place on the next patch) into a pooled record of flat numbers,
 * one row per player slot. What the copy reads is the game's business: a SnapshotReader maps the
 * game's own schema (its field names, a direction or a quaternion, its own player ids) onto the
 * row; ARENA_READER reads hitreg's own arena schema.
 */
import { setYawFromDirection } from '../lagcomp/pose';

/** Numbers captured per player per snapshot. */
export const SNAP_STRIDE = 25;
export const Snap = {
  PRESENT: 0, X: 1, Y: 2, Z: 3, QX: 4, QY: 5, QZ: 6, QW: 7, CLIP: 8, TIME: 9, ALIVE: 10, EPOCH: 11, HEALTH: 12,
  VX: 13, VY: 14, VZ: 15,
  /** Weapon in hand, its rounds, reload end and draw end (server ms), the newest input seq applied. */
  WEAPON: 16, AMMO: 17, RELOAD_END: 18, DRAW_END: 19, INPUT_SEQ: 20,
  /** Eye height above the root (NaN: the rules'), and team (-1: none). */
  EYE: 21, TEAM: 22,
  /**
   * The slot's run: a count that changes whenever the slot begins a new unbroken run of captures
   * (its player was absent from the capture before, or the slot went to another id). MatchView
   * never joins two runs, even when it skipped the capture between them.
   */
  RUN: 23,
  /**
   * The slot's owner: a count that changes whenever the slot goes to another id, carried in absent
   * rows too, so MatchView ends a tail it still draws when the slot went to another id in a capture
   * it skipped.
   */
  OWNER: 24,
} as const;

export interface StateSnapshot {
  tick: number;
  timeMs: number;
  /** maxPlayers * SNAP_STRIDE numbers. */
  players: Float64Array;
  /** The kill feed as pairs (victim slot, server ms of the death); `deathCount` pairs are valid. */
  deaths: Float64Array;
  deathCount: number;
  /** Held by a link queue (not yet applied); a pooled snapshot still in use is never handed out. */
  inUse: boolean;
}

function createSnapshot(maxPlayers: number): StateSnapshot {
  return { tick: 0, timeMs: 0, players: new Float64Array(maxPlayers * SNAP_STRIDE), deaths: new Float64Array(16), deathCount: 0, inUse: false };
}

/**
 * One player as a reader writes it. Left alone, a field keeps its default: the quaternion unset
 * (qw NaN: the yaw is taken from the view's horizontal part), the view, weapon fields and eye
 * height unknown (NaN), alive, epoch 0, team -1.
 */
export interface SnapPlayer {
  /** The game's id of the player (its session id, say). */
  id: string | number;
  /** The server's slot when the state says it (hitreg's arena does), else -1: the pool gives one by id. */
  slot: number;
  x: number; y: number; z: number;
  qx: number; qy: number; qz: number; qw: number;
  viewX: number; viewY: number; viewZ: number;
  clip: number; time: number;
  alive: boolean;
  /** Bumps at every respawn or teleport (the view never interpolates across it). */
  epoch: number;
  health: number;
  team: number;
  eyeHeight: number;
  weapon: number; ammo: number; reloadEndMs: number; drawEndMs: number;
  inputSeq: number;
}

/** How a client reads the game's synced state. */
export interface SnapshotReader<S = any> {
  /** The tick number and server ms of the state's newest snapshot (what poses are interpolated by). */
  tick(state: S): number;
  timeMs(state: S): number;
  /**
   * Calls `visit(player, id)` for each player object of the state with its id (a MapSchema's
   * forEach does: value, key); false when the state has no players yet.
   */
  players(state: S, visit: (player: any, id: string | number) => void): boolean;
  /** Fills `out` from a player object of the state (out.id is already the id players() gave). */
  read(player: any, out: SnapPlayer): void;
  /**
   * Calls `visit(victim, timeMs)` for each death the state lists (a kill feed), if it has one. The
   * victim is its slot, or its id for a state without slots (the pool gives the slot it keeps for
   * that id, -1 for an id it never saw); a victim absent from the state (withheld) is listed too.
   */
  deaths?(state: S, visit: (victim: number | string, timeMs: number) => void): void;
}

/** hitreg's arena schema (server/arena/schema.ts). */
export const ARENA_READER: SnapshotReader = {
  tick: (s) => s.tick >>> 0,
  timeMs: (s) => s.serverTimeMs,
  players(s, visit) {
    if (s === undefined || s === null || s.players === undefined) return false;
    s.players.forEach(visit);
    return true;
  },
  read(p, o) {
    o.id = p.slot; o.slot = p.slot;
    o.x = p.x; o.y = p.y; o.z = p.z;
    o.qx = p.qx; o.qy = p.qy; o.qz = p.qz; o.qw = p.qw;
    o.clip = p.clip; o.time = p.animTime; o.alive = p.alive; o.epoch = p.epoch; o.health = p.health;
    o.viewX = p.viewX; o.viewY = p.viewY; o.viewZ = p.viewZ;
    o.weapon = p.weapon; o.ammo = p.ammo; o.reloadEndMs = p.reloadEndMs; o.drawEndMs = p.drawEndMs; o.inputSeq = p.inputSeq;
  },
  deaths(s, visit) {
    s.killFeed?.forEach((k: any) => visit(k.victim, k.timeMs));
  },
};

function resetSnapPlayer(o: SnapPlayer): void {
  o.id = -1; o.slot = -1;
  o.x = Number.NaN; o.y = Number.NaN; o.z = Number.NaN;
  o.qx = 0; o.qy = 0; o.qz = 0; o.qw = Number.NaN;
  o.viewX = Number.NaN; o.viewY = Number.NaN; o.viewZ = Number.NaN;
  o.clip = 0; o.time = 0; o.alive = true; o.epoch = 0; o.health = Number.NaN; o.team = -1; o.eyeHeight = Number.NaN;
  o.weapon = Number.NaN; o.ammo = Number.NaN; o.reloadEndMs = Number.NaN; o.drawEndMs = Number.NaN; o.inputSeq = Number.NaN;
}

/**
 * Snapshots for one client, reused: a patch is copied out of the synced state into a pooled
 * record that may wait (a simulated link's queue) until applied. A record still in use (a long
 * retransmission wait) is skipped and a fresh one made, so nothing is overwritten while in flight;
 * at the patch rate the pool is not allocated from in steady state.
 *
 * Slots: a state that gives slots (the arena's) is used as it is. Otherwise each id keeps its slot
 * while it is absent (left, or withheld by the server's fog of war), so one that comes back gets
 * the same slot; a new id takes a slot never used first, then the one whose id has been absent
 * longest. An absent id whose slot went to another gets a fresh one when it returns. Either way
 * MatchView starts a new run for a player at its return, and an absent row carries its slot's owner
 * count (Snap.OWNER) so a tail still drawn ends when the slot goes to another id: nothing of one id is ever
 * joined to another's or across a gap.
 */
export class SnapshotPool {
  private readonly pool: StateSnapshot[] = [];
  private next = 0;
  private readonly scratch = {} as SnapPlayer;
  private readonly bySlot: (string | number | undefined)[] = [];
  private readonly slots = new Map<string | number, number>();
  private readonly seen: boolean[] = [];
  /** Per slot: the capture count when its id was last present (for giving the longest-absent slot first). */
  private readonly lastSeen: Float64Array;
  /** Per slot: its run count (Snap.RUN) and owner count (Snap.OWNER). */
  private readonly runs: Float64Array;
  private readonly owners: Float64Array;
  private captures = 0;
  private current: StateSnapshot | null = null;
  private readonly visitPlayer = (p: unknown, id: string | number): void => this.copyPlayer(p, id);
  private readonly visitDeath = (victim: number | string, timeMs: number): void => this.copyDeath(victim, timeMs);

  constructor(private readonly maxPlayers: number, size = 128, private readonly reader: SnapshotReader = ARENA_READER) {
    for (let i = 0; i < size; i++) this.pool.push(createSnapshot(maxPlayers));
    for (let i = 0; i < maxPlayers; i++) this.seen.push(false);
    this.lastSeen = new Float64Array(maxPlayers);
    this.runs = new Float64Array(maxPlayers);
    this.owners = new Float64Array(maxPlayers);
  }

  /**
   * The view slot of a player id: where it is in the last snapshot, or, while it is absent, the
   * slot kept for it (see the class comment); -1 when it has none.
   */
  slotOf(id: string | number): number {
    return this.slots.get(id) ?? -1;
  }

  /** The id of the player in a view slot, or whose slot it is kept as while absent (undefined when free). */
  idOf(slot: number): string | number | undefined {
    return this.bySlot[slot];
  }

  /** Whether the id was in the last snapshot captured. */
  presentNow(id: string | number): boolean {
    const s = this.slots.get(id);
    return s !== undefined && this.seen[s] === true;
  }

  /** Copies what a client needs out of the synced state; null when it has no players yet. */
  capture(state: any): StateSnapshot | null {
    let snap = this.pool[this.next]!;
    if (snap.inUse) {
      snap = createSnapshot(this.maxPlayers);
      this.pool[this.next] = snap;
    }
    snap.players.fill(0);
    this.seen.fill(false);
    this.current = snap;
    snap.deathCount = 0;
    const reader = this.reader;
    if (!reader.players(state, this.visitPlayer)) {
      this.current = null;
      return null;
    }
    this.next = (this.next + 1) % this.pool.length;
    snap.inUse = true;
    this.captures++;
    for (let s = 0; s < this.maxPlayers; s++) {
      if (this.seen[s]) this.lastSeen[s] = this.captures;
      // An absent row carries its slot's owner count: MatchView ends a tail whose slot went to another id.
      else snap.players[s * SNAP_STRIDE + Snap.OWNER] = this.owners[s]!;
    }
    reader.deaths?.(state, this.visitDeath);
    snap.tick = reader.tick(state);
    snap.timeMs = reader.timeMs(state);
    this.current = null;
    return snap;
  }

  private copyPlayer(p: unknown, id: string | number): void {
    const o = this.scratch;
    resetSnapPlayer(o);
    if (typeof id === 'string' || typeof id === 'number') o.id = id;
    this.reader.read(p, o);
    const owner = this.bySlot[o.slot >= 0 ? o.slot : (this.slots.get(o.id) ?? -1)];
    const s = this.slotFor(o.id, o.slot);
    if (s < 0) return; // over the limit
    // Absent from the last capture, or the slot was another id's: a new run.
    if (this.lastSeen[s]! !== this.captures || owner !== o.id) this.runs[s]!++;
    this.seen[s] = true;
    const players = this.current!.players;
    const b = s * SNAP_STRIDE;
    players[b + Snap.PRESENT] = 1;
    players[b + Snap.RUN] = this.runs[s]!;
    players[b + Snap.OWNER] = this.owners[s]!;
    players[b + Snap.X] = o.x; players[b + Snap.Y] = o.y; players[b + Snap.Z] = o.z;
    if (o.qw === o.qw) {
      players[b + Snap.QX] = o.qx; players[b + Snap.QY] = o.qy; players[b + Snap.QZ] = o.qz; players[b + Snap.QW] = o.qw;
    } else {
      yawInto(players, b, o.viewX, o.viewZ);
    }
    players[b + Snap.CLIP] = o.clip; players[b + Snap.TIME] = o.time;
    players[b + Snap.ALIVE] = o.alive ? 1 : 0; players[b + Snap.EPOCH] = o.epoch; players[b + Snap.HEALTH] = o.health;
    players[b + Snap.VX] = o.viewX; players[b + Snap.VY] = o.viewY; players[b + Snap.VZ] = o.viewZ;
    players[b + Snap.WEAPON] = o.weapon; players[b + Snap.AMMO] = o.ammo; players[b + Snap.RELOAD_END] = o.reloadEndMs;
    players[b + Snap.DRAW_END] = o.drawEndMs; players[b + Snap.INPUT_SEQ] = o.inputSeq;
    players[b + Snap.EYE] = o.eyeHeight; players[b + Snap.TEAM] = o.team;
  }

  private copyDeath(victimOrId: number | string, timeMs: number): void {
    const snap = this.current!;
    const victim = typeof victimOrId === 'number' ? victimOrId : this.slotOf(victimOrId);
    const n = snap.deathCount;
    if (2 * n + 2 > snap.deaths.length) {
      const grown = new Float64Array(snap.deaths.length * 2);
      grown.set(snap.deaths);
      snap.deaths = grown;
    }
    snap.deaths[2 * n] = victim;
    snap.deaths[2 * n + 1] = timeMs;
    snap.deathCount = n + 1;
  }

  /** The row of a player: its server slot when the state gives one, else the slot kept for its id (a free one for a new id). */
  private slotFor(id: string | number, slot: number): number {
    if (slot >= 0) {
      if (!(slot < this.maxPlayers && Number.isInteger(slot))) return -1;
      if (this.bySlot[slot] !== id) {
        const old = this.bySlot[slot];
        if (old !== undefined) this.slots.delete(old);
        this.bySlot[slot] = id;
        this.slots.set(id, slot);
        this.owners[slot]!++;
      }
      return slot;
    }
    const known = this.slots.get(id);
    if (known !== undefined) return known;
    // A slot never used, else the one kept longest for an id absent from the last snapshot and
    // not yet seen in this one (an id still present keeps its slot: a new one over the limit gets none).
    let pick = -1;
    for (let s = 0; s < this.maxPlayers; s++) {
      if (this.bySlot[s] === undefined) {
        pick = s;
        break;
      }
      if (!this.seen[s] && this.lastSeen[s]! < this.captures && (pick < 0 || this.lastSeen[s]! < this.lastSeen[pick]!)) pick = s;
    }
    if (pick < 0) return -1;
    const old = this.bySlot[pick];
    if (old !== undefined) this.slots.delete(old);
    this.bySlot[pick] = id;
    this.slots.set(id, pick);
    this.owners[pick]!++;
    return pick;
  }
}

/** The yaw quaternion facing the horizontal direction (dx, dz), into players[b + QX..QW] (identity when degenerate). */
function yawInto(players: Float64Array, b: number, dx: number, dz: number): void {
  const q = scratchQuat;
  q.qx = 0; q.qy = 0; q.qz = 0; q.qw = 1;
  setYawFromDirection(q, dx, dz);
  players[b + Snap.QX] = q.qx; players[b + Snap.QY] = q.qy; players[b + Snap.QZ] = q.qz; players[b + Snap.QW] = q.qw;
}

const scratchQuat = { qx: 0, qy: 0, qz: 0, qw: 1 };
