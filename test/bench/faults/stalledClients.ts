/**
 * Fault scenario: clients that stop reading, against a real server process. Starts the game server
 * as a child process (stalledServer.ts: the server `npm start` runs, its rooms also streaming filler
 * bytes to every client), opens rooms with a few playing light bots each (lightBots.ts), fills them
 * with `stalled` clients (test/helpers/stalledClient.ts) that join, read their first state, then
 * pause their TCP reads while sending unasked pongs (so only the server's own stall rule can end
 * them), and waits until every one is disconnected. Measures the server's RSS (its IPC reports):
 * before the stalled clients came, once they had joined, at its peak while they stalled, and once
 * they were cut (steady: samples a second apart within 1 MB); `rssGrowthMb` = after - before. With
 * `waves`, that many rounds of stalled clients come one after another (each once the last round's
 * kept slots have freed): RSS after each round (`rssAfterWaveMb`) shows whether it keeps growing. RSS
 * keeps what the peak took (V8 and malloc hold on to their pages); the V8 heap after a full
 * collection (`heapAfterGcMb`, beside `heapBeforeMb`) tells whether anything is still held.
 *
 *   npx tsx test/bench/faults/stalledClients.ts [--json] [--stalled 300] [--stallMaxBytes B] [--stallMaxMs MS] [--fillerKBps 256] [--waves 2]
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { StalledClient } from '../../helpers/stalledClient';
import { startLightLoad, type LightLoad } from '../lightBots';
import { benchArgs } from '../args';
import { loadWorld, DEFAULT_LEVEL_PATH } from '../../../server/level/gltf';
import { autoSpawnPoints } from '../../../server/level/spawnPoints';
import { MANNEQUIN_RIG } from '../../../server/rig/mannequin';
import type { ProcessReport } from '../../../server/ops/supervised';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const SERVER = fileURLToPath(new URL('./stalledServer.ts', import.meta.url));
const MB = 1024 * 1024;

export interface StalledClientsOptions {
  /** Clients that stop reading (default 300). */
  stalled?: number;
  /** Of them per room (default 14; a room holds 16). */
  stalledPerRoom?: number;
  /** Playing light bots per room (default 2). */
  botsPerRoom?: number;
  /** The server's STALL_MAX_BYTES / STALL_MAX_MS (default: the server's defaults). */
  stallMaxBytes?: number;
  stallMaxMs?: number;
  /** Filler each room streams to each client, KB/s (default 256). */
  fillerKBps?: number;
  /** How often a stalled client sends an unasked pong, ms (default 1000). */
  heartbeatMs?: number;
  /** How long to wait for every stalled client to be disconnected (default 180 s). */
  timeoutMs?: number;
  /** Times `stalled` clients come, each once the last ones' kept slots have freed (default 1). */
  waves?: number;
  /** How long a cut client's slot is kept for its reconnection, s (default 2: the waves follow sooner). */
  reconnectSeconds?: number;
}

export interface StalledClientsResult {
  /** Stalled clients, over every wave. */
  stalled: number;
  waves: number;
  /** Server RSS after each wave was cut (steady), MB: flat when later waves add nothing. */
  rssAfterWaveMb: number[];
  /** What the last wave added to RSS, MB (null for one wave). */
  rssLastWaveGrowthMb: number | null;
  /** Stalled clients whose connection closed. */
  disconnected: number;
  /** Server RSS once the last wave was cut, less before the first came, MB. */
  rssGrowthMb: number;
  /** Connections the server cut for not reading (hitreg_stalled_clients_cut_total). */
  cut: number;
  /** Close codes the stalled clients saw (they never read: 1006 when the reset reached them). */
  closeCodes: Record<string, number>;
  rooms: number;
  bots: number;
  /** Bots whose connection closed (0: the rule cut no player who reads). */
  botsLeft: number;
  /** From the last wave's stall to its last disconnection, s. */
  secondsToAllCut: number;
  rssBeforeMb: number;
  rssJoinedMb: number;
  rssPeakMb: number;
  rssAfterMb: number;
  /** The server's V8 heap in use, MB (before: just after a full garbage collection). */
  heapBeforeMb: number;
  heapPeakMb: number;
  heapAfterMb: number;
  /** After a full garbage collection, once they were cut. */
  heapAfterGcMb: number;
  rssAfterGcMb: number;
  /** Players the server held once the last wave was cut: the bots and the cut clients' kept slots. */
  playersAtCut: number;
  stallMaxBytes: number | null;
  stallMaxMs: number | null;
  fillerKBps: number;
}

interface ServerProcess {
  child: ChildProcess;
  url: string;
  port: number;
  report(): Promise<ProcessReport>;
  stop(): Promise<void>;
}

const round = (x: number): number => Math.round(x * 10) / 10;
const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const child = fork(SERVER, [], { cwd: REPO, execArgv: ['--expose-gc', '--import', 'tsx'], env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => { stderr = (stderr + d).slice(-4000); });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const listening = await new Promise<{ url: string; port: number }>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`server did not listen within 60 s; stderr: ${stderr}`)), 60_000);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line.startsWith('{"msg":"listening"')) {
          clearTimeout(timer);
          resolve(JSON.parse(line) as { url: string; port: number });
        }
      }
    });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited (${code}) before listening; stderr: ${stderr}`)); });
  });
  let nextId = 1;
  return {
    child, ...listening,
    report: () => new Promise<ProcessReport>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => { child.off('message', on); reject(new Error('the server sent no report within 10 s')); }, 10_000);
      function on(m: unknown): void {
        const r = m as ProcessReport;
        if (r?.type !== 'report' || r.id !== id) return;
        clearTimeout(timer);
        child.off('message', on);
        resolve(r);
      }
      child.on('message', on);
      child.send({ type: 'report', id });
    }),
    stop: async () => {
      child.kill('SIGTERM');
      await Promise.race([exited, pause(5000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** The report once RSS samples a second apart differ by less than 1 MB (at most `tries` samples). */
async function steady(server: ServerProcess, tries = 10): Promise<ProcessReport> {
  let last = await server.report();
  for (let i = 1; i < tries; i++) {
    await pause(1000);
    const now = await server.report();
    if (Math.abs(now.rssBytes - last.rssBytes) < MB) return now;
    last = now;
  }
  return last;
}

async function metric(port: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? Number.NaN : Number(line.slice(name.length + 1));
}

export async function stalledClientsScenario(opts: StalledClientsOptions = {}): Promise<StalledClientsResult> {
  const n = Math.round(opts.stalled ?? 300);
  const perRoom = Math.round(opts.stalledPerRoom ?? 14);
  const botsPerRoom = Math.round(opts.botsPerRoom ?? 2);
  const fillerKBps = opts.fillerKBps ?? 256;
  const rooms = Math.ceil(n / perRoom);
  if (perRoom + botsPerRoom > 16) throw new Error(`stalledPerRoom + botsPerRoom = ${perRoom + botsPerRoom}: a room holds 16`);
  const env: Record<string, string> = {
    PORT: '0', HOST: '127.0.0.1', MATCH_LOG_DIR: 'off', LOG_FORMAT: 'json', LOG_LEVEL: 'error', METRICS: 'on',
    MAX_ROOMS: String(Math.max(64, rooms + 1)), ROOM_CREATE_BURST: '10000', FILLER_KBPS: String(fillerKBps),
    RECONNECT_SECONDS: String(opts.reconnectSeconds ?? 2),
  };
  if (opts.stallMaxBytes !== undefined) env.STALL_MAX_BYTES = String(Math.round(opts.stallMaxBytes));
  if (opts.stallMaxMs !== undefined) env.STALL_MAX_MS = String(Math.round(opts.stallMaxMs));
  const server = await startServer(env);
  const http = `http://127.0.0.1:${server.port}`;
  let load: LightLoad | null = null;
  const stalled: StalledClient[] = [];
  try {
    const world = await loadWorld(DEFAULT_LEVEL_PATH);
    load = await startLightLoad([server.url], rooms, botsPerRoom, world, autoSpawnPoints(world, 16, DEFAULT_LEVEL_PATH), MANNEQUIN_RIG.eyeHeight);
    load.start();
    server.child.send({ type: 'gc' });
    const before = await steady(server);

    const waves = Math.max(1, Math.round(opts.waves ?? 1));
    const rssAfterWaveMb: number[] = [];
    let joined: ProcessReport | null = null;
    let atCut: ProcessReport | null = null;
    let after = before;
    let peak = before.rssBytes;
    let heapPeak = before.heapUsedBytes;
    let t0 = 0;
    let lastClose = Number.NaN;
    for (let w = 0; w < waves; w++) {
      // The last wave's kept slots free up (reconnectSeconds) before the next wave takes them.
      const deadline = performance.now() + (opts.timeoutMs ?? 180_000);
      while (w > 0 && (await server.report()).players > load.players.length && performance.now() < deadline) await pause(250);
      const wave: StalledClient[] = [];
      // Each room's stalled clients join one after another, the rooms side by side.
      await Promise.all(load.roomIds.map(async (roomId, r) => {
        for (let k = 0; k < perRoom && r * perRoom + k < n; k++) wave.push(await StalledClient.join(http, roomId, { name: `stalled${w}.${r}.${k}` }));
      }));
      stalled.push(...wave);
      joined ??= await server.report();
      t0 = performance.now();
      for (const s of wave) s.stall(opts.heartbeatMs ?? 1000);
      while (wave.some((s) => s.closed === null) && performance.now() < deadline) {
        await pause(250);
        const r = await server.report();
        peak = Math.max(peak, r.rssBytes);
        heapPeak = Math.max(heapPeak, r.heapUsedBytes);
      }
      lastClose = Math.max(...wave.map((s) => s.closed?.atMs ?? Number.NaN));
      atCut = await server.report();
      after = await steady(server);
      rssAfterWaveMb.push(round(after.rssBytes / MB));
      peak = Math.max(peak, after.rssBytes);
    }
    server.child.send({ type: 'gc' });
    const collected = await server.report();
    const closeCodes: Record<string, number> = {};
    for (const s of stalled) if (s.closed !== null) closeCodes[s.closed.code] = (closeCodes[s.closed.code] ?? 0) + 1;
    return {
      stalled: stalled.length,
      disconnected: stalled.filter((s) => s.closed !== null).length,
      rssGrowthMb: round((after.rssBytes - before.rssBytes) / MB),
      cut: await metric(server.port, 'hitreg_stalled_clients_cut_total'),
      closeCodes, rooms, bots: load.players.length,
      botsLeft: load.players.filter((p) => p.left !== null).length,
      secondsToAllCut: round((lastClose - t0) / 1000),
      waves, rssAfterWaveMb,
      rssLastWaveGrowthMb: rssAfterWaveMb.length > 1 ? round(rssAfterWaveMb.at(-1)! - rssAfterWaveMb.at(-2)!) : null,
      rssBeforeMb: round(before.rssBytes / MB), rssJoinedMb: round(joined!.rssBytes / MB), rssPeakMb: round(peak / MB), rssAfterMb: round(after.rssBytes / MB),
      heapBeforeMb: round(before.heapUsedBytes / MB), heapPeakMb: round(heapPeak / MB), heapAfterMb: round(after.heapUsedBytes / MB),
      heapAfterGcMb: round(collected.heapUsedBytes / MB),
      rssAfterGcMb: round(collected.rssBytes / MB),
      playersAtCut: atCut!.players,
      stallMaxBytes: opts.stallMaxBytes ?? null, stallMaxMs: opts.stallMaxMs ?? null, fillerKBps,
    };
  } finally {
    for (const s of stalled) s.terminate();
    await load?.close();
    await server.stop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const a = benchArgs('faults/stalledClients.ts', ['stalled', 'stalledPerRoom', 'botsPerRoom', 'stallMaxBytes', 'stallMaxMs', 'fillerKBps', 'heartbeatMs', 'timeoutMs', 'waves', 'reconnectSeconds']);
  const r = await stalledClientsScenario(a);
  if (a.json) console.log(JSON.stringify({ stalledClients: r }));
  else {
    console.log(`stalled clients: ${r.disconnected} of ${r.stalled} disconnected (${r.cut} cut by the stall rule, close codes seen ${JSON.stringify(r.closeCodes)}) within ${r.secondsToAllCut} s, beside ${r.bots} bots (${r.botsLeft} left) in ${r.rooms} rooms`);
    console.log(`  server RSS MB: before ${r.rssBeforeMb}, joined ${r.rssJoinedMb}, peak ${r.rssPeakMb}, after the cut ${r.rssAfterMb}: growth ${r.rssGrowthMb} MB (V8 heap in use ${r.heapBeforeMb}, peak ${r.heapPeakMb}, after ${r.heapAfterMb}, after a full GC ${r.heapAfterGcMb})`);
  }
  process.exit(0);
}
