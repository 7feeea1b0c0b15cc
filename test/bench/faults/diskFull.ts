/**
 * The full-disk fault: a real game server (createGameServer) whose match-log directory is a tmpfs
 * of `sizeBytes` (1 MiB by default), mounted for the run and unmounted after, with light players
 * (../lightBots.ts: real WebSocket clients firing at the rifle's full rate) until the room's log
 * outgrows the disk, then on for `ticksAfterFull` more room ticks. It reads GET /metrics while the
 * disk is full and after the room's log has closed, and audits the file left on the tmpfs.
 *
 * Needs root (mount) and a kernel that lets it mount a tmpfs; without them it throws
 * TmpfsUnavailableError (../../helpers/tmpfs.ts), whose message names what is missing.
 * `prefillBytes` fills part of the disk first (a disk already nearly full: the log outgrows it
 * sooner).
 *
 *   npx tsx test/bench/faults/diskFull.ts [--size BYTES] [--prefill BYTES] [--players N] [--ticks-after-full N]
 *
 * runs it once and prints the result as one JSON line (exit 2 with one line when no tmpfs can be
 * mounted here).
 */
import { copyFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { createGameServer, type GameServer } from '../../../server/index';
import { silentLogger } from '../../../server/ops/log';
import { auditMatchLog } from '../../../server/behaviour/audit';
import type { LogEnd } from '../../../shared/audit/logEnd';
import { startLightLoad, type LightLoad } from '../lightBots';
import { waitFor } from '../../helpers/wait';
import { mountTmpfs, unmountTmpfs, TmpfsUnavailableError } from '../../helpers/tmpfs';

export { TmpfsUnavailableError } from '../../helpers/tmpfs';

export interface DiskFullOptions {
  /** The tmpfs's size, bytes. Default 1 MiB. */
  sizeBytes?: number;
  /** Bytes a filler file takes on the tmpfs before the match. Default 0. */
  prefillBytes?: number;
  /** Light players in the one room. Default 16. */
  players?: number;
  /** Room ticks to run after the first failed write. Default 320 (5 s at 64 Hz). */
  ticksAfterFull?: number;
  /** Bound on each wait (the log outgrowing the disk, the ticks after, the log closing), ms. Default 60 000. */
  timeoutMs?: number;
  /** Where the writer's and the scenario's lines go. Default: nowhere. */
  log?: (line: string) => void;
  /** A path to copy the log to before the tmpfs goes (for a second reading). Default: none. */
  copyLogTo?: string;
}

/** The match-log series of one /metrics scrape. */
export interface MatchLogMetrics {
  bytesWritten: number;
  pendingBytes: number;
  unwrittenBytes: number;
  writeFailures: number;
  droppedRecords: number;
}

export interface DiskFullResult {
  sizeBytes: number;
  prefillBytes: number;
  players: number;
  /** Bytes the match log left unwritten once it closed (hitreg_match_log_unwritten_bytes_total). */
  unwrittenBytes: number;
  /** The audit of the file on the tmpfs says it ends early. */
  auditSaysTruncated: boolean;
  /** Where and why the audit says the log ends. */
  ends: LogEnd;
  /** The first scrape after a failed write, the last one before the log closed, and the one after. */
  whileFull: MatchLogMetrics;
  lastWhileFull: MatchLogMetrics;
  afterClose: MatchLogMetrics;
  /** Room ticks run from the first failed write to the players' leaving, and their rate on this clock. */
  ticksAfterFull: number;
  ticksPerSecondAfterFull: number;
  /** Shots the room judged in that time (the match went on). */
  shotsAfterFull: number;
  /** Seconds from the players' start to the first failed write. */
  secondsToFull: number;
  /** The log file: its size, the shots the audit replayed, their mismatches, whether the audit failed. */
  fileBytes: number;
  shotsAudited: number;
  mismatches: number;
  auditFailed: boolean;
  problems: string[];
  /** The writer's lines (its failure, its close). */
  writerLines: string[];
}

/** The value of one sample line (`name value`), NaN when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? Number.NaN : Number(line.slice(series.length + 1));
}

async function scrape(port: number): Promise<MatchLogMetrics> {
  const r = await fetch(`http://127.0.0.1:${port}/metrics`);
  if (r.status !== 200) throw new Error(`GET /metrics answered ${r.status}`);
  const text = await r.text();
  return {
    bytesWritten: sample(text, 'hitreg_match_log_bytes_total'),
    pendingBytes: sample(text, 'hitreg_match_log_pending_bytes'),
    unwrittenBytes: sample(text, 'hitreg_match_log_unwritten_bytes_total'),
    writeFailures: sample(text, 'hitreg_match_log_write_failures_total'),
    droppedRecords: sample(text, 'hitreg_match_log_dropped_records_total'),
  };
}

/** Runs the scenario (see the module's comment). */
export async function diskFullScenario(opts: DiskFullOptions = {}): Promise<DiskFullResult> {
  const sizeBytes = opts.sizeBytes ?? 1024 * 1024;
  const prefillBytes = opts.prefillBytes ?? 0;
  const players = opts.players ?? 16;
  const ticksWanted = opts.ticksAfterFull ?? 320;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const say = opts.log ?? (() => {});
  const dir = mountTmpfs(sizeBytes, 'hitreg-full-disk-');
  let server: GameServer | null = null;
  let load: LightLoad | null = null;
  const writerLines: string[] = [];
  const consoleError = console.error;
  try {
    if (prefillBytes > 0) writeFileSync(join(dir, 'filler'), new Uint8Array(prefillBytes));
    // The writer reports its failure and its close on console.error: kept with the result.
    console.error = (...args: unknown[]) => {
      const line = args.map(String).join(' ');
      if (line.startsWith('[match-log]')) {
        writerLines.push(line);
        say(line);
      } else consoleError(...args);
    };
    server = await createGameServer({
      port: 0, host: '127.0.0.1', matchLogDir: dir, logger: silentLogger(), log: () => {}, onHostile: () => {}, statusIntervalMs: 0,
      limits: { roomCreateBurst: 10_000 },
    });
    const g = server;
    load = await startLightLoad([g.url], 1, players, g.world, g.config.spawnPoints, g.rig.eyeHeight);
    const t0 = performance.now();
    load.start();
    say(`diskFull: ${players} players in, a ${sizeBytes}-byte tmpfs at ${dir} (${prefillBytes} bytes taken before)`);
    await waitFor(() => g.matchLogTotals().writeFailures > 0, 'the match log to outgrow the disk (a failed write)', timeoutMs);
    const secondsToFull = (performance.now() - t0) / 1000;
    const whileFull = await scrape(g.port);
    const fullTicks = g.stats.ticks;
    const fullShots = g.stats.shots;
    const fullAt = performance.now();
    say(`diskFull: the first failed write after ${secondsToFull.toFixed(1)} s; playing ${ticksWanted} more ticks`);
    await waitFor(() => g.stats.ticks >= fullTicks + ticksWanted, `${ticksWanted} room ticks after the disk filled`, timeoutMs);
    const ticksAfterFull = g.stats.ticks - fullTicks;
    const shotsAfterFull = g.stats.shots - fullShots;
    const ticksPerSecondAfterFull = ticksAfterFull / ((performance.now() - fullAt) / 1000);
    const lastWhileFull = await scrape(g.port);
    // The players leave; the empty room closes its log (its end record cannot be written either).
    await load.close();
    load = null;
    let afterClose: MatchLogMetrics | null = null;
    await waitFor(async () => {
      afterClose = await scrape(g.port);
      return g.rooms.size === 0 && afterClose.pendingBytes === 0 && afterClose.unwrittenBytes > 0;
    }, 'the room to close its log with bytes unwritten', timeoutMs);
    await g.close();
    server = null;
    const logs = readdirSync(dir).filter((f) => f.endsWith('.hrml'));
    if (logs.length !== 1) throw new Error(`expected one match log on the tmpfs, found ${logs.length}: ${logs.join(' ')}`);
    const path = join(dir, logs[0]!);
    if (opts.copyLogTo !== undefined) copyFileSync(path, opts.copyLogTo);
    const r = await auditMatchLog(path, { measures: false });
    return {
      sizeBytes, prefillBytes, players,
      unwrittenBytes: afterClose!.unwrittenBytes, auditSaysTruncated: !r.ends.complete, ends: r.ends,
      whileFull, lastWhileFull, afterClose: afterClose!,
      ticksAfterFull, ticksPerSecondAfterFull, shotsAfterFull, secondsToFull,
      fileBytes: statSync(path).size, shotsAudited: r.shots, mismatches: r.mismatches.length, auditFailed: r.failed,
      problems: r.problems.map((p) => `[${p.kind}] ${p.message}`), writerLines,
    };
  } finally {
    await load?.close();
    // The server puts back the console it found (ours) when it closes: ours goes after.
    await server?.close();
    console.error = consoleError;
    unmountTmpfs(dir);
  }
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (invokedDirectly) {
  const { values } = parseArgs({ options: { size: { type: 'string' }, prefill: { type: 'string' }, players: { type: 'string' }, 'ticks-after-full': { type: 'string' } } });
  const num = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v));
  diskFullScenario({
    sizeBytes: num(values.size), prefillBytes: num(values.prefill), players: num(values.players), ticksAfterFull: num(values['ticks-after-full']),
    log: (line) => void process.stderr.write(`${line}\n`),
  }).then((r) => {
    console.log(JSON.stringify(r));
    process.exit(0);
  }, (e: unknown) => {
    console.error(`diskFull: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(e instanceof TmpfsUnavailableError ? 2 : 1);
  });
}
