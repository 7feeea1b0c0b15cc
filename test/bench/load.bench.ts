/**
 * `npm run load -- --processes 2 --rooms R --bots-per-room 16 --seconds 60 [--json] [--profile]`:
 * a cluster of game server processes on one Redis (REDIS_URL, default redis://127.0.0.1:6379, a key
 * prefix of its own, deleted after) under simulator bots over real WebSockets (honest players and
 * one cheater per room of 8 or more), with match logs written as in production (to a temporary
 * directory, removed after; --logs DIR keeps them).
 *
 * After a warm-up, every process reports the exact wall time of each tick it ran in the measured
 * window, each room's tick count, its CPU time, joins and verdicts (server/ops/supervised.ts). The
 * last line with --json is one object: processes, rooms, players, ticksPerSecondMin (the slowest
 * room, ticks over the window on its own process's clock), ticksPerSecondSeenMin (the slowest
 * simulator bot's count of distinct ticks in its snapshots per wall-clock second), tickMsP50/P99/Max (every tick of every
 * room), verdictsPerSecond, serverCpuPct (per process, percent of one core), cpuPerPlayerPct
 * (server CPU per connected player), playersPerCore (100 / cpuPerPlayerPct: what one core holds at
 * this per-player cost), joinsPerProcess, errors, the bots' own CPU and the load average.
 * --light-rooms N adds N rooms of 16 light players (lightBots.ts: real clients that never decode
 * the state, step to and fro and shoot into the floor at the rifle's full rate), so one core of bots can fill a
 * server core; their verdicts are counted by reason beside the simulator bots'.
 * --rockets SHARE (0..1, default 0): that share of each room's --bots-per-room players (rounded, at
 * least one simulator bot left) are rocket players (lightRockets.ts: light clients that decode the
 * state, switch to the rocket in each life and launch at the nearest other player in range and in
 * sight at the launcher's rhythm, the magazine reloading itself after each launch); the rest are
 * simulator bots. The server processes then carry ROCKET and GRENADE (LOADOUT); the simulator bots
 * never take a launcher (their loadout leaves them out). The loadout is always given explicitly, and
 * MAX_PLAYERS follows --bots-per-room (at least 16). The JSON counts, over the measured window,
 * launches (verdicts OK_LAUNCH) and those refused, projectileEnds (the rooms' `projectile` messages,
 * each once) by kind, their mean flight (end time less launch time), projectilesLiveMean (launches
 * per second x mean flight: rockets in the air on average) and their kills.
 * --pin (Linux, taskset) gives each server process a core of its own (process i on core i) and the
 * bots the cores left over, so the server's tick times are not the bots' scheduling.
 * --profile takes a V8 CPU profile of each server over the measured window and prints where the
 * time went (cpuProfile.ts).
 *
 * Bots and servers share this machine: the bots' CPU is reported beside the servers' so a run on a
 * busy machine can be read for what it is.
 *
 * Exit codes: 0 for a run without errors, 1 with errors, 2 when it cannot run (bad arguments, no
 * Redis: one line saying where and what to do). SIGTERM, SIGINT or SIGHUP stop the bots and the
 * server processes (each finishes its rooms, SIGKILL after the supervisor's deadline), delete the
 * run's keys and temporary directories, and exit with 128 + the signal's number (further signals
 * change nothing). `npm run load` execs tsx, which relays a signal sent to npm's pid.
 */
import { parseArgs } from 'node:util';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { join, resolve } from 'node:path';
import { ClusterAbortedError, startCluster, DEFAULT_REDIS_URL, type Cluster } from '../../server/cluster/supervisor';
import { clearRedisPrefix, RedisUnavailableError } from '../../server/ops/scale';
import type { ProcessReport } from '../../server/ops/supervised';
import { startLoad, type Load } from './loadBots';
import { startLightLoad, type LightLoad } from './lightBots';
import { loadWorld, DEFAULT_LEVEL_PATH } from '../../server/level/gltf';
import { autoSpawnPoints } from '../../server/level/spawnPoints';
import { MANNEQUIN_RIG } from '../../server/rig/mannequin';
import { summarizeProfiles, type ProfileSummary } from './cpuProfile';
import { summarizeShots } from '../../client-sim/report';
import { WeaponId } from '../../shared/weapons';
import { countLaunches } from './loadRockets';
import { startRocketLoad, type RocketLoad } from './lightRockets';

const USAGE = 'usage: npm run load -- [--processes 2] [--rooms 2] [--bots-per-room 16] [--cheaters-per-room 1] [--rockets 0] [--fog on|off] [--seconds 60] [--warmup 5] [--tick-rate 64] [--seed 1] [--light-rooms 0] [--logs DIR] [--pin] [--profile] [--json]';

function usage(message: string): never {
  console.error(`${message}. ${USAGE}`);
  process.exit(2);
}

let values: Record<string, string | boolean | undefined>;
try {
  ({ values } = parseArgs({
    args: process.argv.slice(2), strict: true,
    options: {
      processes: { type: 'string' }, rooms: { type: 'string' }, 'bots-per-room': { type: 'string' }, 'cheaters-per-room': { type: 'string' },
      seconds: { type: 'string' }, warmup: { type: 'string' }, 'tick-rate': { type: 'string' }, seed: { type: 'string' },
      'light-rooms': { type: 'string' }, rockets: { type: 'string' }, fog: { type: 'string' }, logs: { type: 'string' }, pin: { type: 'boolean' }, profile: { type: 'boolean' }, json: { type: 'boolean' },
    },
  }) as { values: Record<string, string | boolean | undefined> });
} catch (e) {
  usage((e as Error).message.split('. To specify', 1)[0]!);
}
const int = (k: string, d: number, lo: number, hi: number): number => {
  const v = values[k];
  if (v === undefined) return d;
  const n = Number(v);
  if (!(Number.isInteger(n) && n >= lo && n <= hi)) usage(`--${k} takes an integer ${lo}..${hi} (got ${JSON.stringify(v)})`);
  return n;
};
const processes = int('processes', 2, 1, 16);
const rooms = int('rooms', 2, 0, 256);
const lightRooms = int('light-rooms', 0, 0, 256);
const botsPerRoom = int('bots-per-room', 16, 1, 64);
const cheatersPerRoom = int('cheaters-per-room', botsPerRoom >= 8 ? 1 : 0, 0, botsPerRoom);
const seconds = int('seconds', 60, 1, 3600);
const warmup = int('warmup', 5, 0, 600);
const tickRate = int('tick-rate', 64, 1, 128);
const seed = int('seed', 1, 0, 2 ** 31);
const rocketShare = values.rockets === undefined ? 0 : Number(values.rockets);
if (typeof values.rockets === 'string' && (values.rockets.trim() === '' || !(rocketShare >= 0 && rocketShare <= 1))) usage(`--rockets takes a share 0..1 (got ${JSON.stringify(values.rockets)})`);
/** Rocket players per room; the simulator bots (one at least: they open and hold the room) are the rest. */
const rocketsPerRoom = Math.min(Math.round(rocketShare * botsPerRoom), botsPerRoom - Math.max(1, cheatersPerRoom));
const simPerRoom = botsPerRoom - rocketsPerRoom;
if (cheatersPerRoom > simPerRoom) usage(`--cheaters-per-room ${cheatersPerRoom} leaves no room for ${rocketsPerRoom} rocket players among ${botsPerRoom}`);
/** Players per room on the servers, and what each carries (explicit: the server's default may change); the simulator bots carry no launcher. */
const maxPlayers = Math.max(16, botsPerRoom);
const simLoadout: number[] = [WeaponId.RIFLE, WeaponId.PISTOL, WeaponId.SNIPER, WeaponId.SHOTGUN, WeaponId.KNIFE];
const loadout: number[] = [...simLoadout, ...(rocketsPerRoom > 0 ? [WeaponId.ROCKET, WeaponId.GRENADE] : [])];
const json = values.json === true;
// --fog on|off: the servers' fog of war (FOG; default on, as the arena's default).
const fog = values.fog === undefined ? 'on' : String(values.fog);
if (fog !== 'on' && fog !== 'off') usage(`--fog takes on or off (got ${JSON.stringify(values.fog)})`);
const say = (line: string): void => void (json ? process.stderr : process.stdout).write(`${line}\n`);

/** Server process i on core i (all its threads), this process (the bots) on the cores left. */
function pinCores(c: Cluster): void {
  const n = cpus().length;
  if (processes >= n) usage(`--pin needs fewer server processes than cores (${n})`);
  const rest = Array.from({ length: n - processes }, (_, i) => processes + i).join(',');
  try {
    for (const p of c.processes) execFileSync('taskset', ['-a', '-pc', String(p.index), String(p.pid)], { stdio: 'ignore' });
    execFileSync('taskset', ['-a', '-pc', rest, String(process.pid)], { stdio: 'ignore' });
  } catch (e) {
    throw new Error(`--pin: taskset failed (${(e as Error).message.split('\n', 1)[0]})`);
  }
  say(`load: servers pinned to cores 0..${processes - 1}, bots to ${rest}`);
}

const pct = (sorted: Float64Array, q: number): number => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
const r3 = (x: number): number => Math.round(x * 1000) / 1000;

const prefix = `hitreg-load-${process.pid}-${Date.now().toString(36)}:`;
const logDir = typeof values.logs === 'string' ? resolve(values.logs) : mkdtempSync(join(tmpdir(), 'hitreg-load-'));
const profileDir = values.profile === true ? mkdtempSync(join(tmpdir(), 'hitreg-prof-')) : null;
let cluster: Cluster | null = null;
let starting: Promise<Cluster> | null = null;
let load: Load | null = null;
let light: LightLoad | null = null;
let rocketLoad: RocketLoad | null = null;
let redisAnswered = true;
const died: number[] = [];
const serverErrors: string[] = [];
const loadStart = loadavg();

// A signal aborts the run: the sleeps below end at once, a cluster still starting stops its processes.
const stop = new AbortController();
let interrupted: NodeJS.Signals | null = null;
const sleep = (ms: number): Promise<void> => delay(ms, undefined, { signal: stop.signal });

let cleaning: Promise<void> | null = null;
/** Stops the bots and the servers, deletes the run's Redis keys and temporary directories; once. */
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    const started = cluster ?? await starting?.catch(() => null) ?? null;
    await load?.close();
    await rocketLoad?.close();
    await light?.close();
    await started?.stop();
    if (redisAnswered) await clearRedisPrefix(started?.redisUrl ?? process.env.REDIS_URL ?? DEFAULT_REDIS_URL, prefix).catch(() => 0);
    if (typeof values.logs !== 'string') rmSync(logDir, { recursive: true, force: true });
    if (profileDir !== null) rmSync(profileDir, { recursive: true, force: true });
  })();
  return cleaning;
}

const SIGNAL_NUMBERS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.on(signal, () => {
    // Once: the stop is bounded, and one Ctrl-C under npm arrives twice (terminal, and npm through tsx).
    if (interrupted !== null) return;
    interrupted = signal;
    console.error(`load: ${signal}: stopping the bots and the servers`);
    stop.abort();
    void cleanup().then(() => process.exit(128 + SIGNAL_NUMBERS[signal]));
  });
}

try {
  starting = startCluster({
    processes, basePort: 0, keyPrefix: prefix, signal: stop.signal,
    env: {
      MATCH_LOG_DIR: logDir, TICK_RATE: String(tickRate), MAX_PLAYERS: String(maxPlayers), FOG: fog, LOADOUT: loadout.join(','), STATUS_INTERVAL_MS: '0', LOG_LEVEL: 'info',
      MAX_ROOMS: String(Math.max(64, rooms + lightRooms)), ROOM_CREATE_BURST: '10000', ROOM_CREATE_PER_MINUTE: '100000',
    },
    onLine: (i, line, stream) => { if (stream === 'stderr' || line.includes('"level":50') || line.includes('"level":60')) serverErrors.push(`[p${i}] ${line.slice(0, 300)}`); },
    onExit: (p) => void died.push(p.index),
  });
  cluster = await starting;
  if (values.pin === true) pinCores(cluster);
  say(`load: ${processes} processes (${cluster.processes.map((p) => p.publicAddress).join(', ')}), opening ${rooms} rooms x ${botsPerRoom} players (${simPerRoom} simulator bots with ${cheatersPerRoom} cheater(s), ${rocketsPerRoom} rocket players)...`);
  const urls = cluster.processes.map((p) => p.url);
  load = await startLoad({ urls, rooms, botsPerRoom: simPerRoom, cheatersPerRoom, seed, tickRate, maxPlayers, loadout: simLoadout });
  const level = await loadWorld(DEFAULT_LEVEL_PATH);
  if (rocketsPerRoom > 0) rocketLoad = await startRocketLoad(urls, load.roomIds, rocketsPerRoom, level, MANNEQUIN_RIG.eyeHeight);
  if (lightRooms > 0) {
    light = await startLightLoad(urls, lightRooms, 16, level, autoSpawnPoints(level, maxPlayers, DEFAULT_LEVEL_PATH), MANNEQUIN_RIG.eyeHeight);
  }
  load.start();
  rocketLoad?.start();
  light?.start();
  say(`load: ${load.bots.length} bots, ${rocketLoad?.players.length ?? 0} rocket players and ${light?.players.length ?? 0} light players in; warm-up ${warmup} s, then ${seconds} s measured`);
  await sleep(warmup * 1000);

  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const r0 = await cluster.report();
  if (profileDir !== null) await cluster.profileStart();
  const botCpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let s = 0; s < seconds; s += 10) {
    await sleep(Math.min(10, seconds - s) * 1000);
    if (!json) process.stdout.write(`  ${Math.min(seconds, s + 10)} / ${seconds} s\n`);
  }
  const r1 = await cluster.report();
  const profilePaths = profileDir !== null ? await cluster.profileStop(profileDir) : [];
  const t1 = performance.now();
  const wallS = (t1 - t0) / 1000;
  const botCpu = process.cpuUsage(botCpu0);
  load.stop();
  rocketLoad?.stop();
  light?.stop();

  // Per process: CPU, verdicts and room tick rates over the window on the process's own clock.
  const per = r1.map((b) => {
    const a = r0.find((x) => x.processId === b.processId) as ProcessReport | undefined;
    const dtS = a ? (b.atMs - a.atMs) / 1000 : Number.NaN;
    const cpuPct = a ? (100 * (b.cpuUserUs + b.cpuSystemUs - a.cpuUserUs - a.cpuSystemUs)) / 1e6 / dtS : Number.NaN;
    const tps = b.rooms.flatMap((room) => {
      const before = a?.rooms.find((x) => x.roomId === room.roomId);
      return before ? [((room.ticks - before.ticks) / dtS)] : [];
    });
    const ticks = Float64Array.from(b.tickMs).sort();
    return {
      processId: b.processId, publicAddress: b.publicAddress, rooms: b.rooms.length, players: b.players, joins: b.joins,
      cpuPct, verdictsPerSecond: a ? (b.shots - a.shots) / dtS : Number.NaN, ticksPerSecondMin: tps.length ? Math.min(...tps) : Number.NaN,
      tickMsP50: pct(ticks, 0.5), tickMsP99: pct(ticks, 0.99), ticks, internalErrors: b.internalErrors - (a?.internalErrors ?? 0), ticksLost: b.ticksLost,
    };
  });
  const all = Float64Array.from(per.flatMap((p) => Array.from(p.ticks))).sort();
  const players = per.reduce((s, p) => s + p.players, 0);
  const serverCpuPct = per.reduce((s, p) => s + p.cpuPct, 0);
  const cpuPerPlayerPct = serverCpuPct / Math.max(players, 1);

  // The bots' side: verdict round trips and what the cheaters got away with.
  const logs = load.bots.flatMap((b) => b.bot.shots);
  const lat = Float64Array.from(logs.filter((l) => l.verdict !== null).map((l) => l.verdictAt - l.sentAt)).sort();
  const sim = summarizeShots(logs);
  const rockets = countLaunches(rocketLoad?.players ?? [], rocketLoad?.ends ?? new Map(), t0, t1);
  const rocketVerdicts: Record<string, number> = {};
  const rocketRejects: Record<string, number> = {};
  for (const p of rocketLoad?.players ?? []) {
    for (const [k, v] of Object.entries(p.verdicts)) rocketVerdicts[k] = (rocketVerdicts[k] ?? 0) + v;
    for (const [k, v] of Object.entries(p.rejects)) rocketRejects[k] = (rocketRejects[k] ?? 0) + v;
  }
  const rocketsLeft = (rocketLoad?.players ?? []).filter((p) => p.left !== null).length;
  loop.disable();
  const leftBots = load.bots.filter((b) => b.left !== null);
  const left = leftBots.length;
  const leftCodes: Record<string, number> = {};
  for (const b of leftBots) leftCodes[b.left!.code] = (leftCodes[b.left!.code] ?? 0) + 1;
  // What the players saw: ticks per wall-clock second counted from each simulator bot's snapshots
  // over the whole run (its clock's measured periods), the slowest bot's.
  const seen = load.bots.map((b) => (b.bot.clock.msMeasured > 0 ? (b.bot.clock.ticksMeasured * 1000) / b.bot.clock.msMeasured : Number.NaN)).filter(Number.isFinite);
  const ticksPerSecondSeenMin = seen.length > 0 ? Math.min(...seen) : Number.NaN;
  const lightVerdicts: Record<string, number> = {};
  for (const p of light?.players ?? []) for (const [k, v] of Object.entries(p.verdicts)) lightVerdicts[k] = (lightVerdicts[k] ?? 0) + v;
  const lightLeft = (light?.players ?? []).filter((p) => p.left !== null).length;
  const lightLost = (light?.players ?? []).filter((p) => p.lost).length;
  const errors = per.reduce((s, p) => s + p.internalErrors, 0) + died.length + (processes - r1.length) + left + lightLeft + rocketsLeft + serverErrors.length;

  await load.close();
  load = null;
  await rocketLoad?.close();
  rocketLoad = null;
  await light?.close();
  light = null;
  await cluster.stop();
  let profile: ProfileSummary | null = null;
  if (profilePaths.length > 0) profile = summarizeProfiles(profilePaths);

  const result = {
    bench: 'load', fog, processes, rooms: per.reduce((s, p) => s + p.rooms, 0), players, botsPerRoom, simBotsPerRoom: simPerRoom, cheatersPerRoom, rocketsPerRoom, loadout, tickRate, seconds: r3(wallS),
    ticksPerSecondMin: r3(Math.min(...per.map((p) => p.ticksPerSecondMin).filter(Number.isFinite))),
    ticksPerSecondSeenMin: r3(ticksPerSecondSeenMin),
    tickMsP50: r3(pct(all, 0.5)), tickMsP99: r3(pct(all, 0.99)), tickMsMax: r3(all.length ? all[all.length - 1]! : Number.NaN), ticksMeasured: all.length,
    verdictsPerSecond: r3(per.reduce((s, p) => s + p.verdictsPerSecond, 0)),
    serverCpuPct: per.map((p) => r3(p.cpuPct)),
    cpuPerPlayerPct: r3(cpuPerPlayerPct),
    playersPerCore: Math.floor(100 / cpuPerPlayerPct),
    joinsPerProcess: per.map((p) => p.joins),
    playersPerProcess: per.map((p) => p.players),
    tickMsP99PerProcess: per.map((p) => r3(p.tickMsP99)),
    errors,
    verdictLatencyMsP50: r3(pct(lat, 0.5)), verdictLatencyMsP99: r3(pct(lat, 0.99)), shots: logs.length,
    agreement: r3(sim.agreementAll), agreementRaceFree: r3(sim.agreementRaceFree), honestRejected: sim.honestRejected, honestRejectedByReason: sim.honestRejectedByReason,
    cheatShots: sim.ruleCheatShots, cheatAccepted: sim.ruleCheatAccepted, cheatAcceptedList: sim.ruleCheatAcceptedList.slice(0, 5),
    botCpuPct: r3((100 * (botCpu.user + botCpu.system)) / 1e6 / wallS),
    botsLeft: left, botsLeftByCode: leftCodes, lightPlayers: lightRooms * 16, lightVerdicts, lightLeft, lightLost, botLoopDelayMsMax: r3(loop.max / 1e6), botLoopDelayMsP99: r3(loop.percentile(99) / 1e6),
    cores: cpus().length, pinned: values.pin === true, loadAverageStart: loadStart.map(r3), loadAverageEnd: loadavg().map(r3),
    launches: rockets.launches, launchesPerSecond: r3(rockets.launches / wallS), launchesRefused: rockets.refused, projectileEnds: rockets.ends, projectileEndsByKind: rockets.endsByKind,
    projectileFlightMsMean: r3(rockets.flightMsMean), projectilesLiveMean: r3((rockets.launches / wallS) * (rockets.flightMsMean / 1000)),
    projectileKills: rockets.kills, rocketVerdicts, rocketRejects, rocketsLeft,
    ...(profile !== null ? { profile } : {}),
  };
  if (!json) {
    say(`rooms ${result.rooms}, players ${players}, over ${result.seconds} s: ticks/s min ${result.ticksPerSecondMin} of ${tickRate}; tick p50 ${result.tickMsP50} ms, p99 ${result.tickMsP99} ms, max ${result.tickMsMax} ms (${all.length} ticks)`);
    say(`server CPU ${result.serverCpuPct.join(' + ')} % of a core = ${result.cpuPerPlayerPct} % per player -> ${result.playersPerCore} players per core; bots used ${result.botCpuPct} %`);
    if (rocketsPerRoom > 0) say(`rockets: ${result.launches} launches (${result.launchesPerSecond}/s; refused ${JSON.stringify(result.launchesRefused)}), ${result.projectileEnds} ends ${JSON.stringify(result.projectileEndsByKind)}, mean flight ${result.projectileFlightMsMean} ms, ${result.projectilesLiveMean} in the air on average, ${result.projectileKills} kills`);
    say(`verdicts/s ${result.verdictsPerSecond}; verdict round trip p50 ${result.verdictLatencyMsP50} ms p99 ${result.verdictLatencyMsP99} ms; honest prediction agreement ${(100 * sim.agreementAll).toFixed(2)} %, honest rejected ${sim.honestRejected}, rule-breaking cheat shots accepted ${sim.ruleCheatAccepted} of ${sim.ruleCheatShots}; joins per process ${result.joinsPerProcess.join(', ')}; errors ${errors}${left ? ` (bots left: ${JSON.stringify(leftCodes)})` : ''}; bots' event loop delay max ${result.botLoopDelayMsMax} ms; load average ${result.loadAverageStart.join(' ')} -> ${result.loadAverageEnd.join(' ')}`);
    if (profile !== null) {
      say(`profile (${profile.busyMs} ms busy): parts ${profile.parts.slice(0, 10).map((p) => `${p.name} ${p.pct}%`).join(', ')}`);
      for (const f of profile.functions.slice(0, 15)) say(`  ${String(f.pct).padStart(5)}%  ${f.name}`);
    }
    for (const e of serverErrors.slice(0, 10)) say(e);
  } else console.log(JSON.stringify(result));
  process.exitCode = errors === 0 ? 0 : 1;
} catch (e) {
  if (e instanceof RedisUnavailableError) redisAnswered = false;
  // Interrupted: the signal's handler says so and sets the exit code.
  if (interrupted === null && !(e instanceof ClusterAbortedError)) {
    console.error(`load: ${(e as Error).message.split('\n', 1)[0]}`);
    process.exitCode = 2;
  }
} finally {
  await cleanup();
}
