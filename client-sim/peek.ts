/**
 * Peeker's advantage, scripted: a held angle against a peek, on a level of its own (a
 * floor and one wall whose end is the corner), two bots over the network model against an
 * in-process server. The holder stands still 12 m out, facing the corner; the peeker, facing the
 * holder's spot, waits behind the wall, walks out past the corner at full speed, walks back into
 * cover, waits, and again.
 * Every frame each bot's own screen is tested: the other drawn (present in its snapshots, posed
 * from its view's ring at its render time) and in line of sight from its own rendered eye (its
 * predicted eye) at any sampled hitbox point (fogMeasure.ts BodyPoints). Per peek, the local time
 * each first sees the other after the peeker set off; the advantage is holder-sees-peeker minus
 * peeker-sees-holder, ms (positive: the peeker saw first). Riot's model of it is the peeker's one
 * way + the holder's one way + the holder's interpolation delay + one server tick; these clients
 * render behind their server clock estimate, so their interpolation delay already holds the
 * holder's one way (PeekRow.modelRenderClockMs).
 */
import { createGameServer, type GameServerOptions } from '../server/index';
import { silentLogger } from '../server/ops/log';
import { createPlayerPose } from '../shared/lagcomp/pose';
import { World } from '../shared/world/world';
import type { Rig } from '../shared/rig/rig';
import type { PlayerHistory } from '../shared/lagcomp/history';
import type { PeekSummary } from './report';
import { Bot } from './bot';
import { anyClear, BodyPoints } from './fogMeasure';
import { Rng } from './rng';

/** The peek level: a floor (top at y = 0) and one wall, x -6..0, z -0.2..0.2, 3 m high; its end at x = 0 is the corner. */
export function peekWorld(): World {
  const pos: number[] = [];
  const idx: number[] = [];
  const box = (x0: number, y0: number, z0: number, x1: number, y1: number, z1: number): void => {
    const b = pos.length / 3;
    for (const [x, y, z] of [[x0, y0, z0], [x1, y0, z0], [x1, y1, z0], [x0, y1, z0], [x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]] as const) pos.push(x, y, z);
    for (const i of [0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5]) idx.push(b + i);
  };
  box(-30, -1, -30, 30, 0, 30);
  box(-6, 0, -0.2, 0, 3, 0.2);
  return World.fromTriangles(new Float64Array(pos), new Uint32Array(idx));
}

/** Slot 0 (the holder) 12 m out facing the corner; slot 1 (the peeker) 1.3 m behind the wall, 2.5 m in from its end. */
export const PEEK_SPAWNS = [
  { x: 4, y: 0, z: 12, dirX: -4, dirZ: -12 },
  { x: -2.5, y: 0, z: -1.5, dirX: 1, dirZ: 0 },
];
/** The peeker walks out until its eye is past this x, and back behind this one. */
const OUT_X = 1;
const HIDE_X = -2.2;
/** Wait in cover between peeks, ms (plus up to WAIT_RAND_MS): longer than the holder's screen lags at 200 ms. */
const WAIT_MS = 600;
const WAIT_RAND_MS = 300;

export interface PeekOptions {
  rttMs: number;
  jitterMs?: number;
  loss?: number;
  /** Passed to the server as its `fog` option. */
  fog: 'on' | 'off';
  /** Peeks to measure (default 5). */
  peeks?: number;
  seed?: number;
  /** The interpolation delay the bots render with at a round trip, given the server's patch interval, rewind window and largest delay. */
  interpFor: (rttMs: number, patchMs: number, windowMs: number, maxInterpMs: number) => number;
  /** Extra server options (tick rate, ...). */
  server?: GameServerOptions;
}

/** One row of the table: a round trip and fog setting. Times in ms; nulls when no peek completed. */
export interface PeekRow {
  rttMs: number;
  fog: 'on' | 'off';
  peeks: number;
  /** Median over the peeks of holder-sees-peeker minus peeker-sees-holder. */
  peekersAdvantageMs: number | null;
  minMs: number | null;
  maxMs: number | null;
  /**
   * The same with only the head counted on both sides (eye to head): the body's parts that lead the
   * eye round the corner (hands, feet) left out, so the geometry is the same both ways and what is
   * left is the network's and the rendering's share, the part Riot's model describes.
   */
  headAdvantageMs: number | null;
  /** Riot's model: rtt/2 + rtt/2 + the holder's interpolation delay + one tick. */
  modelMs: number;
  /**
   * The model for these clients: they render `interp` behind their estimate of the server clock, not
   * behind the newest snapshot, so the holder's one way is inside its interpolation delay: the
   * peeker's one way + the holder's interpolation delay + one tick.
   */
  modelRenderClockMs: number;
  interpDelayMs: number;
  /** Median, from setting off, until the peeker saw the holder and the holder the peeker. */
  peekerSeesMs: number | null;
  holderSeesMs: number | null;
  /**
   * Median server clock estimate minus the server's clock, ms, of the holder and of the peeker as
   * each first saw the other: a holder whose estimate runs ahead renders later server times, so sees
   * the peeker that much sooner (rows of the same round trip differ mostly by it).
   */
  holderClockErrorMs: number | null;
  peekerClockErrorMs: number | null;
  /**
   * Median, from the moment the peeker saw the holder, until the server's history had the peeker's
   * eye as far out as the peeker's screen then had it, ms: its one way plus the input queue's
   * buffering plus the wait for the tick (the part of the advantage before the holder's rendering).
   */
  peekerServerLagMs: number | null;
}

/** One peek: the advantage (any body point, and head only), and when each saw the other after the peeker set off, ms. */
interface PeekTimes {
  advantage: number;
  head: number;
  peekerSees: number;
  holderSees: number;
  /** Each one's server clock estimate minus the server's clock when it first saw the other, ms. */
  holderClockError: number;
  peekerClockError: number;
  /** When the server first had the peeker where its own screen had it as it saw the holder, after that moment, ms. */
  serverLag: number;
}

function median(v: number[]): number | null {
  if (v.length === 0) return null;
  const s = [...v].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
}

/**
 * What `bot`'s screen now shows of `other` in line of sight from its rendered eye: 0 nothing, 1 some
 * sampled body point but not the head, 2 the head (BodyPoints' first point).
 */
function sees(bot: Bot, other: number, points: BodyPoints, pose = createPlayerPose(), pts = new Float64Array(points.count * 3)): number {
  const v = bot.view;
  if (!v.renderPose(pose, other, bot.renderTime(performance.now())) || !pose.alive) return 0;
  const n = points.fill(pts, v.rewinder, pose);
  const e = bot.eyeNow;
  if (anyClear(bot.opts.world, e[0]!, e[1]!, e[2]!, pts, 1)) return 2;
  return anyClear(bot.opts.world, e[0]!, e[1]!, e[2]!, pts.subarray(3), n - 1) ? 1 : 0;
}

/** A row as the run's report carries it (SimReport.peekersAdvantageMs). */
export function peekSummary(row: PeekRow): PeekSummary {
  return {
    rttMs: row.rttMs, fog: row.fog, peeks: row.peeks, ms: row.peekersAdvantageMs, headMs: row.headAdvantageMs,
    modelMs: row.modelMs, modelRenderClockMs: row.modelRenderClockMs, peekerServerLagMs: row.peekerServerLagMs,
  };
}

/** Holds a bot's view level along (dx, dz) (its aim's turn replaced on the instance). */
function faceFixed(bot: Bot, dx: number, dz: number): void {
  const aim = bot.aim as unknown as { turn(dtMs: number): void; viewX: number; viewY: number; viewZ: number };
  const len = Math.sqrt(dx * dx + dz * dz);
  aim.turn = (): void => {
    aim.viewX = dx / len; aim.viewY = 0; aim.viewZ = dz / len;
  };
}

/** The in-process server as the peek reads it: its clock and the peeker's history. */
interface ServerSide {
  now(): number;
  history(): PlayerHistory | undefined;
}

/** The time of the first snapshot at or after `fromMs` in which the player's x is at least x (NaN: none kept). */
function firstAtX(h: PlayerHistory, x: number, fromMs: number): number {
  const p = createPlayerPose();
  for (let k = 0; k < h.size(); k++) {
    const t = h.snapshot(p, k);
    if (t >= fromMs && p.x >= x) return t;
  }
  return Number.NaN;
}

/** One round trip and fog setting: its own server and two bots, `peeks` peeks measured. */
export async function runPeek(o: PeekOptions): Promise<PeekRow> {
  const world = peekWorld();
  const gs = await createGameServer({
    log: () => {}, logger: silentLogger(), onHostile: () => {}, matchLogDir: false, ...o.server,
    level: world, spawnPoints: PEEK_SPAWNS, maxPlayers: 2, port: 0, host: '127.0.0.1',
    fog: o.fog,
  });
  const rng = new Rng(o.seed ?? 1);
  const cfg = gs.config;
  const patchMs = cfg.patchRateMs > 0 ? cfg.patchRateMs : 1000 / cfg.tickRate;
  const interp = o.interpFor(o.rttMs, patchMs, cfg.validation.rewindWindowMs, cfg.maxInterpDelayMs);
  const net = { rttMs: o.rttMs, jitterMs: o.jitterMs ?? 0, loss: o.loss ?? 0 };
  const make = (i: number): Bot => new Bot({
    index: i, url: gs.url, name: i === 0 ? 'holder' : 'peeker', net, seed: (rng.next() * 4294967296) >>> 0, world, rig: gs.rig,
    validation: cfg.validation, movement: cfg.movement, tickRate: cfg.tickRate, interpDelayMs: interp,
  });
  const holder = make(0), peeker = make(1);
  const wantPeeks = o.peeks ?? 5;
  const adv: number[] = [], head: number[] = [], pSees: number[] = [], hSees: number[] = [], hErr: number[] = [], pErr: number[] = [], lag: number[] = [];
  try {
    await holder.connect();
    await peeker.connect();
    holder.steer.still = true;
    // Each looks where the other will appear (the body turns with the view): the holder at the corner,
    // the peeker at the holder's spot.
    faceFixed(holder, -PEEK_SPAWNS[0]!.x, -PEEK_SPAWNS[0]!.z);
    faceFixed(peeker, PEEK_SPAWNS[0]!.x, PEEK_SPAWNS[0]!.z - PEEK_SPAWNS[1]!.z);
    const room = [...gs.rooms.values()][0] as unknown as { match: { now(): number; scene: { histories: PlayerHistory[] } } } | undefined;
    const server = room === undefined ? null : { now: () => room.match.now(), history: () => room.match.scene.histories[peeker.slot] };
    await measurePeeks(holder, peeker, gs.rig, rng, wantPeeks, server, (p) => {
      adv.push(p.advantage); head.push(p.head); pSees.push(p.peekerSees); hSees.push(p.holderSees); hErr.push(p.holderClockError); pErr.push(p.peekerClockError);
      if (!Number.isNaN(p.serverLag)) lag.push(p.serverLag);
    });
  } finally {
    await Promise.all([holder, peeker].map((b) => Promise.race([b.close(), new Promise<void>((r) => setTimeout(r, 2000))])));
    await gs.close();
  }
  return {
    rttMs: o.rttMs, fog: o.fog, peeks: adv.length, peekersAdvantageMs: median(adv),
    minMs: adv.length > 0 ? Math.min(...adv) : null, maxMs: adv.length > 0 ? Math.max(...adv) : null,
    headAdvantageMs: median(head),
    modelMs: o.rttMs / 2 + o.rttMs / 2 + interp + 1000 / cfg.tickRate,
    modelRenderClockMs: o.rttMs / 2 + interp + 1000 / cfg.tickRate, interpDelayMs: interp,
    peekerSeesMs: median(pSees), holderSeesMs: median(hSees), holderClockErrorMs: median(hErr), peekerClockErrorMs: median(pErr), peekerServerLagMs: median(lag),
  };
}

/**
 * Drives the peeker (its steering replaced on the instance) and watches both screens every frame
 * until `want` peeks are measured (or 8 s per peek have passed); `done` per peek.
 */
function measurePeeks(holder: Bot, peeker: Bot, rig: Rig, rng: Rng, want: number, server: ServerSide | null, done: (p: PeekTimes) => void): Promise<void> {
  const points = new BodyPoints(rig);
  const pose = createPlayerPose();
  const pts = new Float64Array(points.count * 3);
  let phase: 'wait' | 'out' | 'back' = 'wait';
  let goAt = performance.now() + 1000;
  let setOff = 0, peekerAt = -1, holderAt = -1, peekerHead = -1, holderHead = -1, measured = 0, hErr = 0, pErr = 0;
  let seenX = 0, seenServerMs = 0, serverLag = Number.NaN;
  const serverNow = (): number => server?.now() ?? Number.NaN;
  const steer = peeker.steer as unknown as { update(now: number, eye: Float64Array): void; wishX: number; wishZ: number; jump: boolean };
  steer.update = (now: number, eye: Float64Array): void => {
    steer.jump = false;
    const x = eye[0]!;
    if (phase === 'wait' && now >= goAt && holder.ready() && sees(holder, peeker.slot, points, pose, pts) === 0) {
      // The last peek is over on both screens (the holder's lags it): taken, and the next one starts.
      if (setOff > 0 && peekerAt >= 0 && holderAt >= 0 && peekerHead >= 0 && holderHead >= 0) {
        done({ advantage: holderAt - peekerAt, head: holderHead - peekerHead, peekerSees: peekerAt - setOff, holderSees: holderAt - setOff, holderClockError: hErr, peekerClockError: pErr, serverLag });
        measured++;
      }
      phase = 'out'; setOff = now; peekerAt = -1; holderAt = -1; peekerHead = -1; holderHead = -1; serverLag = Number.NaN;
    } else if (phase === 'out' && x >= OUT_X) phase = 'back';
    else if (phase === 'back' && x <= HIDE_X) {
      phase = 'wait';
      goAt = now + WAIT_MS + rng.next() * WAIT_RAND_MS;
    }
    steer.wishX = phase === 'out' ? 1 : phase === 'back' ? -1 : 0;
    steer.wishZ = 0;
  };
  const watch = (bot: Bot, seen: (what: number, at: number) => void): void => {
    const b = bot as unknown as { frame(): void };
    const frame = b.frame;
    b.frame = (): void => {
      frame.call(bot);
      if (setOff === 0 || !bot.ready()) return;
      const what = sees(bot, bot === holder ? peeker.slot : holder.slot, points, pose, pts);
      if (what > 0) seen(what, performance.now());
    };
  };
  watch(peeker, (what, at) => {
    if (peekerAt < 0) {
      peekerAt = at; pErr = peeker.serverNow(at) - serverNow();
      seenX = peeker.eyeNow[0]!; seenServerMs = serverNow();
    }
    if (what === 2 && peekerHead < 0) peekerHead = at;
  });
  watch(holder, (what, at) => {
    if (holderAt < 0) {
      holderAt = at; hErr = holder.serverNow(at) - serverNow();
      const h = server?.history();
      if (peekerAt >= 0 && h !== undefined) serverLag = firstAtX(h, seenX, seenServerMs - 100) - seenServerMs;
    }
    if (what === 2 && holderHead < 0) holderHead = at;
  });
  const deadline = performance.now() + 4000 + (want + 1) * 8000;
  return new Promise<void>((resolve) => {
    const iv = setInterval(() => {
      if (measured >= want || performance.now() > deadline) {
        clearInterval(iv);
        resolve();
      }
    }, 20);
  });
}

/**
 * The table: every round trip in `rtts` with fog off and on, one after another (each on its own
 * server; Colyseus's matchmaker is one per process, so servers run at once would share rooms).
 */
export async function peekTable(base: Omit<PeekOptions, 'rttMs' | 'fog'>, rtts: readonly number[] = [20, 50, 100, 150, 200]): Promise<PeekRow[]> {
  const rows: PeekRow[] = [];
  for (const fog of ['off', 'on'] as const) for (const rttMs of rtts) rows.push(await runPeek({ ...base, rttMs, fog }));
  return rows;
}
