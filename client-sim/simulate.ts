/**
 * runSimulation: honest bots and cheaters against the arena over real WebSockets, for a fixed time,
 * then the report (report.ts). Without a url it starts its own game server in this process (the
 * default level, the room's own defaults, its match log left on) on an ephemeral port, and reads the
 * tick time and error counters from it; with a url it plays against that server and loads the same
 * default level locally for the bots' world queries and predictions.
 */
import { createGameServer, type GameServer, type GameServerOptions } from '../server/index';
import { silentLogger } from '../server/ops/log';
import { loadWorld, DEFAULT_LEVEL_PATH } from '../server/level/gltf';
import { World } from '../shared/world/world';
import { MANNEQUIN_RIG, Clip } from '../server/rig/mannequin';
import { defaultMoveConfig, type MoveConfig } from '../shared/movement/step';
import { auditMatchLog } from '../server/behaviour/audit';
import { DEFAULT_ZONE_MULTIPLIERS, HIT_ZONE_COUNT, type Rig } from '../shared/rig/rig';
import { WEAPONS } from '../shared/weapons';
import { defaultValidationConfig, type ValidationConfig } from '../shared/validate/shot';
import { Bot, type ShotLog } from './bot';
import { CHEAT_PROFILE_NAMES, createProfile, parseProfile } from './cheats/index';
import { Rng } from './rng';
import { summarizeShots, percentile, type DetectionReport, type SimReport } from './report';
import { ServerProbe } from './serverProbe';

export type { SimReport, ProfileReport, DetectionReport, Distribution } from './report';

export interface SimOptions {
  /** Honest players (default 8). */
  bots?: number;
  /** Cheaters (default 0); cheater k plays profiles[k % profiles.length]. */
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
   * alone costs about 1% of agreement: measured with 12 bots, 98.2-99.2% against 99.6-100%).
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
}

/** Closes every bot, giving each at most 2 s (leaving a room whose server is gone never completes). */
async function closeBots(bots: Bot[]): Promise<void> {
  await Promise.all(bots.map((b) => Promise.race([b.close(), new Promise<void>((r) => setTimeout(r, 2000))])));
}

/**
 * The interpolation delay a client picks for its conditions: snapshots reach it half a round trip
 * late, up to a patch interval apart, and jittered; rendering that far behind its estimate of the
 * server clock keeps a snapshot on both sides of the render time. Capped so the rewind the server
 * needs (half a round trip + jitter + the delay) stays inside the rewind window.
 */
export function interpDelayFor(rttMs: number, jitterMs: number, patchMs: number, windowMs: number, maxInterpMs: number): number {
  const want = rttMs / 2 + 2 * patchMs + 1.5 * jitterMs + 10;
  const cap = windowMs - rttMs / 2 - jitterMs - 15;
  return Math.round(Math.max(0, Math.min(want, cap, maxInterpMs)));
}

/**
 * Marks the shots whose outcome turned on a death the shooter could not have seen yet: the shooter
 * itself was dead on the server when the shot arrived (diedInFlight), or the predicted target was
 * (targetDiedInFlight), or it fired knowing it was dead and had respawned by the arrival
 * (respawnedInFlight, in-process only). In-process the facts come from the server's own record of each arrival; with
 * a remote server from the kill feed: a death of the target after the render time and before the
 * latest the shot can have arrived (half the round trip plus half the jitter, plus 5 ms of clock error).
 */
function classifyRaces(logs: readonly ShotLog[], probe: ServerProbe | null, deaths: Map<number, Set<number>>, jitterMs: number): void {
  const seen = new Map<string, number>();
  for (const l of logs) {
    if (l.dropped) continue;
    if (probe !== null) {
      const key = `${l.roomId}:${l.slot}:${l.seq}`;
      const k = seen.get(key) ?? 0;
      seen.set(key, k + 1);
      const facts = probe.arrivals.get(key)?.[k];
      if (facts === undefined) continue;
      // Died (or died and respawned) on the server while the message was on its way.
      l.diedInFlight = !l.deadKnown && (!facts.shooterAlive || facts.shooterEpoch !== l.epochAtSend);
      l.respawnedInFlight = facts.shooterAlive && l.deadKnown;
      l.floorLeadMs = facts.streamFloorMs - l.timeMs;
      const t = l.predictedTarget;
      if (t >= 0) {
        const lifeOk = (facts.lifeStartMs[t] ?? Infinity) <= (l.verdict?.rewindTimeMs ?? l.renderTimeMs);
        l.targetDiedInFlight = facts.targetsAlive[t] !== true || !lifeOk;
      }
      continue;
    }
    if (l.predictedTarget < 0) continue;
    const ds = deaths.get(l.predictedTarget);
    if (ds === undefined) continue;
    const arrival = l.sentServerMs + l.rttMs / 2 + jitterMs / 2 + 5;
    for (const t of ds) if (t > l.renderTimeMs - 1 && t <= arrival) l.targetDiedInFlight = true;
  }
}

export async function runSimulation(options: SimOptions = {}): Promise<SimReport> {
  const nBots = options.bots ?? 8;
  const nCheaters = options.cheaters ?? 0;
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

  const started = performance.now();
  let gs: GameServer | null = null;
  let hostileEvents = 0;
  let url: string;
  let world: World;
  let rig: Rig;
  let validation: ValidationConfig;
  let tickRate: number;
  let patchMs: number;
  let maxInterp: number;
  let movement: MoveConfig;
  if (options.url === undefined) {
    const tr = Math.round(options.server?.tickRate ?? 64);
    // The room's hostile-client lines are the cheaters doing their job: counted, not printed.
    gs = await createGameServer({ log: () => {}, logger: silentLogger(), onHostile: () => { hostileEvents++; }, ...options.server, port: 0, host: '127.0.0.1' });
    options.onServer?.(gs);
    url = gs.url;
    world = gs.world;
    rig = gs.rig;
    validation = gs.config.validation;
    tickRate = gs.config.tickRate;
    patchMs = gs.config.patchRateMs > 0 ? gs.config.patchRateMs : 1000 / tickRate;
    maxInterp = gs.config.maxInterpDelayMs;
    movement = gs.config.movement;
  } else {
    url = options.url;
    world = options.level instanceof World ? options.level : await loadWorld(options.level ?? DEFAULT_LEVEL_PATH);
    rig = MANNEQUIN_RIG;
    const zm: number[] = [];
    for (let z = 0; z < HIT_ZONE_COUNT; z++) zm.push((DEFAULT_ZONE_MULTIPLIERS as Record<number, number>)[z] ?? 1);
    validation = defaultValidationConfig(WEAPONS, zm, rig.eyeHeight, 16);
    tickRate = 64;
    patchMs = 1000 / tickRate; // the room's default: one patch per tick
    maxInterp = 250;
    movement = defaultMoveConfig({ idle: Clip.IDLE, jog: Clip.JOG, run: Clip.RUN, fall: Clip.FALL }, rig.clips.map((c) => c.duration));
  }
  const rttSpreadMs = Math.max(0, Math.min(options.rttSpreadMs ?? 0, rttMs));
  const interpFor = (rtt: number): number => options.interpDelayMs ?? interpDelayFor(rtt, jitterMs, patchMs, validation.rewindWindowMs, maxInterp);
  const interpDelayMs = interpFor(rttMs);

  const rng = new Rng(seed);
  const logs: ShotLog[] = [];
  const deaths = new Map<number, Set<number>>();
  const onDeath = (victim: number, timeMs: number): void => {
    let s = deaths.get(victim);
    if (s === undefined) deaths.set(victim, (s = new Set()));
    s.add(timeMs);
  };
  // Cheaters spread among the honest players (so rooms of 16 mix both).
  const total = nBots + nCheaters;
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
      world, rig, validation, movement, tickRate, interpDelayMs: interpFor(rttI), onDeath,
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
  const probe = gs !== null ? new ServerProbe() : null;
  try {
    // Sequential joins: the matchmaker fills a room before it opens the next.
    for (const b of bots) {
      try {
        await b.connect();
      } catch (e) {
        const why = e instanceof Error ? e.message : String(e);
        throw new Error(`bot ${b.index} could not join an arena room at ${url} (${why || 'connection refused'}); start the server (npm start) or leave out --url to run one in-process`);
      }
    }
    if (gs !== null) for (const room of gs.rooms.values()) probe!.attach(room);
    // The match starts once everyone is in (a join changes who can be hit; see the view's life starts).
    await new Promise((r) => setTimeout(r, options.warmupMs ?? 1000));
    for (const b of bots) b.startShooting();

    const totalMs = seconds * 1000;
    const t0 = performance.now();
    await new Promise<void>((resolve, reject) => {
      const iv = setInterval(() => {
        const el = performance.now() - t0;
        options.onProgress?.(Math.min(el, totalMs), totalMs, logs.length);
        if (el >= totalMs) {
          clearInterval(iv);
          resolve();
        } else if (bots.every((b) => b.conn.room !== null && !b.conn.room.connection.isOpen)) {
          // Every connection closed under the bots: the server stopped or crashed.
          clearInterval(iv);
          reject(new Error(`the server at ${url} went away ${(el / 1000).toFixed(1)} s into the match (all ${bots.length} connections closed); no report`));
        }
      }, 250);
    });
    // Stop pulling triggers, then wait for the verdicts still on their way.
    for (const b of bots) b.stopShooting();
    const drainUntil = performance.now() + (options.drainMs ?? rttMs + jitterMs + 1500);
    while (performance.now() < drainUntil && logs.some((l) => !l.dropped && l.verdict === null)) await new Promise((r) => setTimeout(r, 50));
  } catch (e) {
    // A failed join or run: leave nothing listening behind.
    await closeBots(bots);
    await gs?.close();
    throw e;
  }
  await closeBots(bots);
  probe?.detach();
  classifyRaces(logs, probe, deaths, jitterMs);

  options.onShots?.(logs);
  const shots = summarizeShots(logs, validation.weapons.map((w) => w.fireIntervalMs));
  let serverErrors: number | null = null;
  let server: SimReport['server'] = null;
  let matchLog: string | null = null;
  if (gs !== null) {
    // Let the rooms dispose (their recorders flush) before reading the counters.
    const deadline = performance.now() + 3000;
    while (gs.rooms.size > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const s = gs.stats;
    serverErrors = s.internalErrors + s.recorderErrors;
    server = { shots: s.shots, hits: s.hits, misses: s.misses, kills: s.kills, rejects: { ...s.rejects } };
    matchLog = probe!.matchLogs.length > 0 ? probe!.matchLogs.join(', ') : null;
    await gs.close();
  }
  const detection = probe !== null && options.audit !== false ? await detect(bots, probe, world) : null;
  const ticks = probe?.sortedTicks() ?? new Float64Array(0);
  let cameraPushes = 0, botFrames = 0, starvedFrames = 0, tickSum = 0, tickMs = 0;
  const network = { lostTransmissions: 0, retransmittedMessages: 0, maxRetransmitDelayMs: 0 };
  const prediction = { corrections: 0, meanErrorM: 0, maxErrorM: 0, jumps: 0 };
  const weaponState = { firedMismatches: 0, checks: 0, mismatches: 0 };
  let errSum = 0, errN = 0;
  const messageRejects: Record<string, number> = {};
  for (const b of bots) {
    cameraPushes += b.camera.pushes;
    for (const st of [b.link.upstream, b.link.downstream]) {
      network.lostTransmissions += st.lost;
      network.retransmittedMessages += st.retransmitted;
      network.maxRetransmitDelayMs = Math.max(network.maxRetransmitDelayMs, st.maxRetransmitDelayMs);
    }
    botFrames += b.frames;
    starvedFrames += b.honest.starved;
    tickSum += b.clock.ticksMeasured;
    tickMs += b.clock.msMeasured;
    prediction.corrections += b.move.corrections;
    prediction.maxErrorM = Math.max(prediction.maxErrorM, b.move.maxErrorM);
    prediction.jumps += b.steer.jumps;
    errSum += b.move.errorSumM;
    errN += b.move.errorN;
    weaponState.firedMismatches += b.weapons.firedMismatches;
    weaponState.checks += b.weapons.checks;
    weaponState.mismatches += b.weapons.mismatches;
    for (const [k, v] of Object.entries(b.rejects)) messageRejects[k] = (messageRejects[k] ?? 0) + v;
    const pr = b.profile !== null ? shots.byProfile[b.profile.name] : undefined;
    if (pr !== undefined && b.profile !== null) {
      const st = b.profile.stats?.() ?? {};
      for (const [k, v] of Object.entries(st)) pr.stats[k] = (pr.stats[k] ?? 0) + v;
      if (b.profile.name === 'speedHack') {
        pr.stats.maxSpeedMps = Math.max(pr.stats.maxSpeedMps ?? 0, b.maxSnapSpeed);
        pr.stats.allowedSpeedMps = movement.maxSpeed;
      }
    }
  }
  prediction.meanErrorM = errN > 0 ? errSum / errN : 0;
  return {
    config: { bots: nBots, cheaters: nCheaters, seconds, rttMs, rttSpreadMs, jitterMs, loss, burst: burst ?? null, bandwidthBytesPerS, stalls: stalls ?? null, seed, interpDelayMs, tickRate, patchMs, url, inProcess: gs !== null, profiles: [...profiles] },
    ...shots,
    detection,
    tickRate,
    ticksPerSecond: tickMs > 0 ? (tickSum * 1000) / tickMs : 0,
    prediction, weaponState, hostileEvents,
    tickMsP50: ticks.length > 0 ? percentile(ticks, 0.5) : null,
    tickMsP99: ticks.length > 0 ? percentile(ticks, 0.99) : null,
    ticks: ticks.length,
    serverErrors, server, matchLog, cameraPushes, botFrames, starvedFrames, messageRejects, network,
    durationMs: performance.now() - started,
  };
}

/**
 * Runs the audit (server/audit/audit.ts) over each room's match log and maps its flagged slots to
 * the bots that played them: per profile, the share of its players flagged, beside the share of
 * the run's honest players flagged (with a handful of honest players that rate is coarse).
 */
async function detect(bots: readonly Bot[], probe: ServerProbe, world: World): Promise<Record<string, DetectionReport> | null> {
  if (probe.matchLogByRoom.size === 0) return null;
  const flaggedRules = new Map<Bot, string[]>();
  for (const [roomId, path] of probe.matchLogByRoom) {
    let r;
    try {
      r = await auditMatchLog(path, { world, workers: 1 });
    } catch {
      continue;
    }
    for (const b of bots) {
      if (b.conn.room?.roomId !== roomId || b.slot < 0) continue;
      const p = r.players.find((x) => x.player === b.slot);
      if (p !== undefined && p.flags.length > 0) flaggedRules.set(b, p.flags.map((f) => f.rule));
    }
  }
  const honest = bots.filter((b) => b.profile === null);
  const fp = honest.length > 0 ? honest.filter((b) => flaggedRules.has(b)).length / honest.length : Number.NaN;
  const out: Record<string, DetectionReport> = {};
  for (const b of bots) {
    if (b.profile === null) continue;
    const d = (out[b.profile.name] ??= { strength: b.profile.strength, players: 0, flagged: 0, detectionRate: 0, falsePositiveRate: fp, rules: {} });
    d.players++;
    const rules = flaggedRules.get(b);
    if (rules !== undefined) {
      d.flagged++;
      for (const rule of rules) d.rules[rule] = (d.rules[rule] ?? 0) + 1;
    }
  }
  for (const d of Object.values(out)) d.detectionRate = d.flagged / d.players;
  out.honest = { strength: 0, players: honest.length, flagged: honest.filter((b) => flaggedRules.has(b)).length, detectionRate: fp, falsePositiveRate: fp, rules: {} };
  for (const b of honest) for (const rule of flaggedRules.get(b) ?? []) out.honest.rules[rule] = (out.honest.rules[rule] ?? 0) + 1;
  return out;
}
