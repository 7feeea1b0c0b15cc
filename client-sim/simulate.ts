/**
 * runSimulation: honest bots and cheaters against the arena over real WebSockets, for a fixed time,
 * then the report (report.ts). Without a url it starts its own game server in this process (the
 * default level, the room's own defaults, its match log left on) on an ephemeral port, and reads the
 * tick time and error counters from it; with a url it plays against that server and loads the same
 * default level locally for the bots' world queries and predictions (both: arena.ts). The bots' own
 * counters are summed in botTotals.ts.
 */
import type { GameServer, GameServerOptions } from '../server/index';
import type { World } from '../shared/world/world';
import { Bot, type ShotLog } from './bot';
import { Intent } from './shots';
import { CHEAT_PROFILE_NAMES, createProfile, parseProfile } from './cheats/index';
import { Rng } from './rng';
import { summarizeShots, percentile, type SimReport } from './report';
import { summarizeImpacts } from './impacts';
import { ServerProbe } from './serverProbe';
import { classifyRaces } from './races';
import { detect } from './detection';
import { FogWatch, fogFields, fogSettingOf } from './fogWatch';
import { peekSummary, runPeek } from './peek';
import type { PeekSummary } from './report';
import { inProcessArena, remoteArena, type Arena } from './arena';
import { addProfileStats, botTotals } from './botTotals';

export type { SimReport, ProfileReport, DetectionReport, Distribution } from './report';
export { SIM_LOADOUT } from './arena';

export interface SimOptions {
  /** Honest players (default 8). */
  bots?: number;
  /** Cheaters (default 0, or one per profile named in `profiles`); cheater k plays profiles[k % profiles.length]. */
  cheaters?: number;
  /** Play time once everyone is in, seconds (default 20). */
  seconds?: number;
  /** Per-bot network conditions (each bot draws its own jitter and loss from its seed). */
  rttMs?: number;
  /** Each bot's round trip is drawn uniformly from rttMs +- rttSpreadMs (default 0: all equal). */
  rttSpreadMs?: number;
  jitterMs?: number;
  /** Per-message loss probability each way; a loss costs a retransmission timeout (net.ts). */
  loss?: number;
  /** Mean loss burst, in consecutive lost transmissions (default: independent losses). */
  burst?: number;
  /** Bandwidth cap per direction per bot, bytes/s (default none). */
  bandwidthBytesPerS?: number;
  /**
   * Scripted stalls of every bot's streams (net.ts NetConditions.stalls): every `everyMs` each
   * direction holds everything for `forMs`, then delivers it at once; each bot on its own phase.
   */
  stalls?: { everyMs: number; forMs: number };
  seed?: number;
  /** A running server (ws://host:port); default: start one in this process. */
  url?: string;
  /**
   * Options for the in-process server (ignored with url). The room's default state patch is one per
   * tick; `server.patchRateMs` > 0 patches on a timer instead (every other tick leaves the clients'
   * interpolation between ticks different from the server's history where a player turns, which
   * costs agreement: compare `npm run sim -- --patch-ms N` with the default).
   */
  server?: GameServerOptions;
  /** Level for the bots when playing a remote server (default the default level). */
  level?: string | World;
  /** Cheat profiles, in assignment order: "name" or "name:strength" (default all of CHEAT_PROFILE_NAMES). */
  profiles?: readonly string[];
  /** Strength (0..1) of every profile named without its own; default each profile's own. */
  strength?: number;
  /**
   * Cheaters stand still (default false). Their starts then lie exactly on the server's eye path,
   * so every refusal is the rule under test, not a divergence of their own-movement prediction
   * from a server that drops ticks under load (that divergence is what originOffsetM measures).
   */
  cheatersStill?: boolean;
  /** Run the audit over the match log at the end and map its flags to profiles (default true in-process). */
  audit?: boolean;
  /** Interpolation delay override, ms (default: derived from the network conditions, see interpDelayFor). */
  interpDelayMs?: number;
  /** The bots join with `fogBackfill` (default true; MatchView.backfill). */
  backfill?: boolean;
  /** Share of honest players who take a rocket or grenade launcher at middle range (default 0.4, honest.ts). */
  launcherShare?: number;
  /** Progress: called about every 250 ms with elapsed and total play ms and shots so far. */
  onProgress?: (elapsedMs: number, totalMs: number, shots: number) => void;
  /** Every shot log at the end of the run (prediction, verdict, timing), for tools and tests. */
  onShots?: (logs: readonly ShotLog[]) => void;
  /** Called with the in-process server once it listens (tests and diagnostics). */
  onServer?: (server: GameServer) => void;
  /** Called as each shot is fired, with the bot that fired it (diagnostics). */
  onFire?: (log: ShotLog, bot: Bot) => void;
  /**
   * Time between the last join and the first shot, ms (default 1000): every bot's clock, view and
   * own-movement prediction settle, and the server's code warms up, before anyone fires.
   */
  warmupMs?: number;
  /** Extra wait for verdicts after the play time, ms (default the round trip + 1500). */
  drainMs?: number;
  /**
   * Play on past `seconds` until this many honest messages have their verdicts (default 0): a
   * loaded machine fires fewer shots in a given time, and a test that needs a sample waits for it,
   * up to `maxSeconds` of play (default 6 x seconds).
   */
  minHonestJudged?: number;
  /** Play on past `seconds` until this holds of the messages so far too (up to `maxSeconds`). */
  until?: (logs: readonly ShotLog[]) => boolean;
  maxSeconds?: number;
  /**
   * The in-process server's fog of war (its `fog` option: an enemy it withholds from a client is
   * absent from that client's state). Default: the server's own default.
   */
  fog?: 'on' | 'off';
  /**
   * false: the in-process server's fog decides every pair on its own regions every tick (shared/fog
   * FOG_NO_CACHES): what its caches cost in what is withheld. Default true.
   */
  fogCaches?: boolean;
  /**
   * The in-process server's fog's hiddenTight (shared/fog/config: 0 decides on the plain regions what
   * the grown ones do not, withholding nearly what the caches give up, at more rays; 1, the default, on the grown ones).
   */
  fogTight?: number;
  /**
   * The in-process server's fog's visibleHoldTicks (shared/fog/config: updates a visible verdict stands
   * untested; 0 re-tests every visible pair every tick, so one that turns hidden is withheld at once).
   */
  fogHold?: number;
  /** The in-process server's fog's precision budget, ms (hitreg/server FogFilterOptions.precisionBudgetMs; 0: no viewer precise). */
  fogPrecisionMs?: number;
  /** Measure fog of war on the honest bots' screens (fogWatch.ts; default true in-process). */
  fogWatch?: boolean;
  /** Screen samples every this many frames of a bot (default 2) and withheldShare every this many ticks (default 4). */
  fogSampleEvery?: number;
  fogTickStride?: number;
  /** Peeks of the scripted peek (peek.ts) at the run's round trip after the match (default 0: none, peekersAdvantageMs null; `npm run sim` asks for 3). */
  peeks?: number;
  /**
   * Where the in-process server spawns players (unless options.server gives spawnPoints): 'centre'
   * (the server's default for a level that names none: near the centre, in sight of each other, a
   * busy match) or 'spread' (spreadSpawnPoints: over the whole level, mostly out of each other's
   * sight). Bots wander near where they spawned.
   */
  spawns?: 'centre' | 'spread';
}

/** Each in-process room's match log and its slots' bots and profiles (what a caller needs to audit a room per player). */
function roomSlots(bots: readonly Bot[], probe: ServerProbe | null): SimReport['rooms'] {
  if (probe === null) return [];
  const rooms = new Map<string, SimReport['rooms'][number]>();
  for (const b of bots) {
    const roomId = b.conn.room?.roomId;
    if (roomId === undefined || b.slot < 0) continue;
    let r = rooms.get(roomId);
    if (r === undefined) rooms.set(roomId, (r = { roomId, matchLog: probe.matchLogByRoom.get(roomId) ?? null, slots: [] }));
    r.slots.push({ slot: b.slot, bot: b.index, profile: b.profile?.name ?? 'honest', strength: b.profile?.strength ?? 0 });
  }
  return [...rooms.values()];
}

/** Closes every bot, giving each at most 2 s (leaving a room whose server is gone never completes). */
async function closeBots(bots: Bot[]): Promise<void> {
  await Promise.all(bots.map((b) => Promise.race([b.close(), new Promise<void>((r) => setTimeout(r, 2000))])));
}

/** Room the interpolation delay leaves under the rewind window, ms: the clock estimate's error and a stamp held to the stream floor. */
export const WINDOW_MARGIN_MS = 15;

/**
 * The interpolation delay a client picks for its conditions: snapshots reach it half a round trip
 * late, up to a patch interval apart, and jittered; rendering that far behind its estimate of the
 * server clock keeps a snapshot on both sides of the render time. The server rewinds to the claimed
 * render time when it lies within the rewind window of the action time (shared/validate/times.ts),
 * so the delay itself, not the delay plus the trip, is capped by the window (less
 * WINDOW_MARGIN_MS) and by the room's largest accepted delay. A delay capped below what the stream
 * needs leaves the client without a snapshot at its render time part of the time.
 */
export function interpDelayFor(rttMs: number, jitterMs: number, patchMs: number, windowMs: number, maxInterpMs: number): number {
  const want = rttMs / 2 + 2 * patchMs + 1.5 * jitterMs + 10;
  const cap = windowMs - WINDOW_MARGIN_MS;
  return Math.round(Math.max(0, Math.min(want, cap, maxInterpMs)));
}

/** The run's settings: the options with their defaults, checked. */
interface RunSettings {
  nBots: number;
  nCheaters: number;
  seconds: number;
  rttMs: number;
  /** The spread of the bots' round trips, clamped to [0, rttMs]. */
  rttSpreadMs: number;
  jitterMs: number;
  loss: number;
  burst: number | undefined;
  bandwidthBytesPerS: number;
  stalls: { everyMs: number; forMs: number } | undefined;
  seed: number;
  profiles: readonly string[];
}

/** The options with their defaults; throws on a value the run cannot use. */
function runSettings(options: SimOptions): RunSettings {
  const nBots = options.bots ?? 8;
  // Named profiles without a count: one cheater each.
  const nCheaters = options.cheaters ?? (options.profiles !== undefined ? options.profiles.length : 0);
  const seconds = options.seconds ?? 20;
  const rttMs = options.rttMs ?? 100;
  const jitterMs = options.jitterMs ?? 20;
  const loss = options.loss ?? 0.01;
  const burst = options.burst;
  const bandwidthBytesPerS = options.bandwidthBytesPerS ?? 0;
  const seed = options.seed ?? 1;
  const profiles = options.profiles ?? CHEAT_PROFILE_NAMES;
  if (options.strength !== undefined && !(options.strength >= 0 && options.strength <= 1)) throw new Error(`strength ${options.strength} must be in [0, 1]`);
  for (const p of profiles) parseProfile(p, options.strength);
  if (!(nBots >= 0 && nCheaters >= 0 && nBots + nCheaters >= 1)) throw new Error('need at least one bot or cheater (--bots N --cheaters K)');
  if (!(rttMs >= 0 && jitterMs >= 0 && loss >= 0 && loss < 1 && seconds > 0)) throw new Error('rtt and jitter must be >= 0 ms, loss in [0, 1), seconds > 0');
  if (burst !== undefined && !(burst >= 1 && burst >= loss / (1 - loss))) throw new Error(`burst must be >= 1 and >= loss / (1 - loss), got ${burst}`);
  if (!(bandwidthBytesPerS >= 0)) throw new Error('bandwidth must be >= 0 bytes/s');
  const stalls = options.stalls;
  if (stalls !== undefined && !(stalls.everyMs > stalls.forMs && stalls.forMs >= 0)) throw new Error('stalls: every must be longer than the stall, the stall >= 0 ms');
  const rttSpreadMs = Math.max(0, Math.min(options.rttSpreadMs ?? 0, rttMs));
  return { nBots, nCheaters, seconds, rttMs, rttSpreadMs, jitterMs, loss, burst, bandwidthBytesPerS, stalls, seed, profiles };
}

/**
 * The run's players, honest bots and cheaters spread among them (so rooms of 16 mix both), each
 * with its own seed, round trip and stall phase drawn from the run's seed. Every shot goes into
 * `logs`, every kill-feed death into `deaths` (victim slot -> server ms).
 */
function makeBots(options: SimOptions, s: RunSettings, arena: Arena, interpFor: (rttMs: number) => number, logs: ShotLog[], deaths: Map<number, Set<number>>): Bot[] {
  const rng = new Rng(s.seed);
  const onDeath = (victim: number, timeMs: number): void => {
    let set = deaths.get(victim);
    if (set === undefined) deaths.set(victim, (set = new Set()));
    set.add(timeMs);
  };
  const { url, world, rig, validation, movement, tickRate } = arena;
  const { nCheaters, rttMs, rttSpreadMs, jitterMs, loss, burst, bandwidthBytesPerS, stalls, profiles } = s;
  const total = s.nBots + nCheaters;
  const bots: Bot[] = [];
  let cheaterIndex = 0;
  for (let i = 0; i < total; i++) {
    const isCheater = nCheaters > 0 && Math.floor(((i + 1) * nCheaters) / total) > Math.floor((i * nCheaters) / total);
    const seedI = (rng.next() * 4294967296) >>> 0;
    const rttI = rttSpreadMs > 0 ? rttMs + (rng.next() * 2 - 1) * rttSpreadMs : rttMs;
    // Each bot stalls on its own phase: spread over the period by an integer hash of its index.
    const botStalls = stalls === undefined ? undefined : { ...stalls, phaseMs: ((i * 2654435761) >>> 0) % Math.round(stalls.everyMs) };
    const bot = new Bot({
      index: i, url, name: isCheater ? `cheater${i}` : `bot${i}`, net: { rttMs: rttI, jitterMs, loss, burst, bandwidthBytesPerS, stalls: botStalls }, seed: seedI,
      world, rig, validation, movement, tickRate, interpDelayMs: interpFor(rttI), fogBackfill: options.backfill !== false, onDeath, launcherShare: options.launcherShare,
      onShot: (l) => {
        logs.push(l);
        options.onFire?.(l, bot);
      },
    });
    if (isCheater) {
      bot.profile = createProfile(profiles[cheaterIndex++ % profiles.length]!, options.strength);
      bot.steer.still = options.cheatersStill === true;
    }
    bots.push(bot);
  }
  return bots;
}

/** Joins every bot, one after another: the matchmaker fills a room before it opens the next. */
async function joinAll(bots: readonly Bot[], url: string): Promise<void> {
  for (const b of bots) {
    try {
      await b.connect();
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      throw new Error(`bot ${b.index} could not join an arena room at ${url} (${why || 'connection refused'}); start the server (npm start) or leave out --url to run one in-process`);
    }
  }
}

/** Honest messages answered so far. */
function honestJudged(logs: readonly ShotLog[]): number {
  let n = 0;
  for (const l of logs) if (l.intent === Intent.HONEST && l.verdict !== null) n++;
  return n;
}

/**
 * Plays on, after the play time, until options.minHonestJudged honest messages are answered and
 * options.until holds (or maxSeconds of play).
 */
async function playUntilJudged(bots: readonly Bot[], options: SimOptions, s: RunSettings, url: string, logs: readonly ShotLog[]): Promise<void> {
  const want = options.minHonestJudged ?? 0;
  const until = options.until;
  const moreMs = ((options.maxSeconds ?? 6 * s.seconds) - s.seconds) * 1000;
  const enough = () => honestJudged(logs) >= want && (until === undefined || until(logs));
  if (!(moreMs > 0) || enough()) return;
  await playFor(bots, moreMs, url, logs, options.onProgress, enough);
}

/** Waits out the play time (or until `enough`), reporting progress; rejects when every connection closed under the bots. */
function playFor(bots: readonly Bot[], totalMs: number, url: string, logs: readonly ShotLog[], onProgress: SimOptions['onProgress'], enough: () => boolean = () => false): Promise<void> {
  const t0 = performance.now();
  return new Promise<void>((resolve, reject) => {
    const iv = setInterval(() => {
      const el = performance.now() - t0;
      onProgress?.(Math.min(el, totalMs), totalMs, logs.length);
      if (el >= totalMs || enough()) {
        clearInterval(iv);
        resolve();
      } else if (bots.every((b) => b.conn.room !== null && !b.conn.room.connection.isOpen)) {
        // Every connection closed under the bots: the server stopped or crashed.
        clearInterval(iv);
        reject(new Error(`the server at ${url} went away ${(el / 1000).toFixed(1)} s into the match (all ${bots.length} connections closed); no report`));
      }
    }, 250);
  });
}

/**
 * The match: everyone joins, the probe watches the in-process rooms, the warmup passes, the bots
 * shoot for the play time, then stop and wait for the verdicts still on their way. A failed join
 * or run closes the bots and the in-process server before the error goes on.
 */
async function playMatch(options: SimOptions, s: RunSettings, arena: Arena, bots: Bot[], probe: ServerProbe | null, logs: readonly ShotLog[], fog: FogWatch | null): Promise<void> {
  try {
    await joinAll(bots, arena.url);
    if (arena.gs !== null) for (const room of arena.gs.rooms.values()) probe!.attach(room);
    if (fog !== null) for (const b of bots) fog.attach(b);
    // The match starts once everyone is in (a join changes who can be hit; see the view's life starts).
    await new Promise((r) => setTimeout(r, options.warmupMs ?? 1000));
    for (const b of bots) b.startShooting();
    await playFor(bots, s.seconds * 1000, arena.url, logs, options.onProgress);
    await playUntilJudged(bots, options, s, arena.url, logs);
    // Stop pulling triggers, then wait for the verdicts still on their way.
    for (const b of bots) b.stopShooting();
    const drainUntil = performance.now() + (options.drainMs ?? s.rttMs + s.jitterMs + 1500);
    while (performance.now() < drainUntil && logs.some((l) => !l.dropped && l.verdict === null)) await new Promise((r) => setTimeout(r, 50));
  } catch (e) {
    // A failed join or run: leave nothing listening behind.
    await closeBots(bots);
    await arena.gs?.close();
    throw e;
  }
}

/** The in-process server's counters and match logs, read once its rooms are gone; then it closes. Nulls for a remote server. */
async function serverCounters(gs: GameServer | null, probe: ServerProbe | null): Promise<Pick<SimReport, 'serverErrors' | 'server' | 'matchLog'>> {
  if (gs === null) return { serverErrors: null, server: null, matchLog: null };
  // Let the rooms dispose (their recorders flush) before reading the counters.
  const deadline = performance.now() + 3000;
  while (gs.rooms.size > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const s = gs.stats;
  const serverErrors = s.internalErrors + s.recorderErrors;
  const server = { shots: s.shots, hits: s.hits, misses: s.misses, kills: s.kills, rejects: { ...s.rejects } };
  const matchLog = probe!.matchLogs.length > 0 ? probe!.matchLogs.join(', ') : null;
  await gs.close();
  return { serverErrors, server, matchLog };
}

/** The scripted peek (peek.ts) at the run's round trip, jitter and loss, on its own in-process server. */
async function peekAtRunRtt(options: SimOptions, s: RunSettings, fog: 'on' | 'off', interpFor: (rtt: number) => number): Promise<PeekSummary | null> {
  const peeks = options.peeks ?? 0;
  if (!(peeks > 0)) return null;
  const tickRate = options.server?.tickRate;
  const row = await runPeek({
    rttMs: s.rttMs, jitterMs: s.jitterMs, loss: s.loss, fog, peeks, seed: s.seed, interpFor: (rtt) => interpFor(rtt),
    server: tickRate !== undefined ? { tickRate } : {},
  });
  return peekSummary(row);
}

export async function runSimulation(options: SimOptions = {}): Promise<SimReport> {
  const s = runSettings(options);
  const started = performance.now();
  const hostile = { events: 0 };
  const arena = options.url === undefined ? await inProcessArena(options, hostile) : await remoteArena(options.url, options.level);
  const interpFor = (rtt: number): number => options.interpDelayMs ?? interpDelayFor(rtt, s.jitterMs, arena.patchMs, arena.validation.rewindWindowMs, arena.maxInterp);
  const interpDelayMs = interpFor(s.rttMs);
  const logs: ShotLog[] = [];
  const deaths = new Map<number, Set<number>>();
  const bots = makeBots(options, s, arena, interpFor, logs, deaths);
  const probe = arena.gs !== null ? new ServerProbe() : null;
  const fog = arena.gs !== null && options.fogWatch !== false
    ? new FogWatch(arena.gs, arena.world, arena.rig, arena.validation.maxPlayers, { sampleEvery: options.fogSampleEvery, tickStride: options.fogTickStride })
    : null;
  if (probe !== null && fog !== null) probe.onDeath = (roomId, victim, killer) => fog.death(roomId, victim, killer);
  await playMatch(options, s, arena, bots, probe, logs, fog);
  await closeBots(bots);
  probe?.detach();
  fog?.detach();
  classifyRaces(logs, probe, deaths, s.jitterMs);

  options.onShots?.(logs);
  const shots = summarizeShots(logs, arena.validation.weapons.map((w) => w.fireIntervalMs));
  const fogSetting = fogSettingOf(arena.gs, options.fog);
  const counters = await serverCounters(arena.gs, probe);
  const peek = arena.gs !== null ? await peekAtRunRtt(options, s, fogSetting ?? 'off', interpFor) : null;
  const detection = probe !== null && options.audit !== false ? await detect(bots, probe, arena.world) : null;
  const ticks = probe?.sortedTicks() ?? new Float64Array(0);
  const t = botTotals(bots);
  addProfileStats(bots, shots.byProfile, arena.movement.maxSpeed);
  const { nBots, nCheaters, seconds, rttMs, rttSpreadMs, jitterMs, loss, burst, bandwidthBytesPerS, stalls, seed, profiles } = s;
  const { tickRate, patchMs, url } = arena;
  return {
    config: { bots: nBots, cheaters: nCheaters, seconds, rttMs, rttSpreadMs, jitterMs, loss, burst: burst ?? null, bandwidthBytesPerS, stalls: stalls ?? null, seed, interpDelayMs, tickRate, patchMs, url, inProcess: arena.gs !== null, profiles: [...profiles], backfill: options.backfill !== false, fogCaches: options.fogCaches !== false, fogTight: options.fogTight ?? null, fogHold: options.fogHold ?? null, fogPrecisionMs: options.fogPrecisionMs ?? null },
    ...shots,
    impacts: summarizeImpacts(logs),
    pellets: { ...shots.pellets, wallBangTries: t.wallBangTries },
    detection,
    tickRate,
    ticksPerSecond: t.ticksPerSecond,
    prediction: t.prediction, weaponState: t.weaponState, hostileEvents: hostile.events,
    tickMsP50: ticks.length > 0 ? percentile(ticks, 0.5) : null,
    tickMsP99: ticks.length > 0 ? percentile(ticks, 0.99) : null,
    ticks: ticks.length,
    serverErrors: counters.serverErrors, server: counters.server, matchLog: counters.matchLog, rooms: roomSlots(bots, probe),
    cameraPushes: t.cameraPushes, botFrames: t.botFrames, starvedFrames: t.starvedFrames, messageRejects: t.messageRejects, network: t.network,
    ...fogFields(fog, fogSetting, arena.gs, arena.validation.rewindWindowMs, bots),
    peekersAdvantageMs: peek,
    durationMs: performance.now() - started,
  };
}
