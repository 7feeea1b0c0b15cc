/**
 * The audit command line:
 *
 *   npm run audit -- <log.hrml> [--json] [--html report.html] [--workers N] [--level level.glb]
 *                    [--rig rig.json|character.glb] [--threshold name=value ...] [--verdicts-only]
 *   npm run audit -- <directory> [--json] [--workers N] [...]
 *                    [--replay-url URL]
 *   ... --store [file.sqlite | postgres://...] [--store-incomplete]
 *
 * Replays the match log, prints what it found (problems with the log, every verdict mismatch with
 * its shot, the per-player table and the flags), writes the HTML report when asked, and with
 * --json ends with one JSON line: {shots, mismatches, flagged, shotsPerSecond, ...}. A progress bar
 * goes to stderr on a terminal. Exit code 0: clean; 1: mismatches, corruption or a hash mismatch;
 * 2: not usable (bad arguments, not a match log, a report path that cannot be written).
 *
 * A directory (the logs of many processes or machines, sub-directories included) is audited log by
 * log over the worker threads (server/behaviour/many.ts, default one per core): one line per log, then
 * one summary; exit 1 when any log fails or cannot be audited, 2 when the directory holds no log.
 *
 * --store records every audited log in the evidence store (server/evidence/cliStore.ts: a bare
 * --store is DATABASE_URL, else ./evidence.sqlite); a store that cannot be opened or written exits 2.
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs as parseArgv } from 'node:util';
import { SingleBar, Presets } from 'cli-progress';
import { LogFormatError } from '../../shared/matchlog/frame';
import { ShotCol, SHOT_COLUMNS } from '../../shared/audit/replay';
import { auditMatchLog, ProblemKind, type AuditResult } from './audit';
import { flightLines, fogLine } from '../audit/fog';
import { DEFAULT_THRESHOLDS, type FlagThresholds } from './flags';
import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { auditMatchLogs, findMatchLogs, type LogOutcome, type ManyAuditSummary } from './many';
import { renderHtmlReport, type ReportShot } from './report';
import type { DetectionSummary } from './synth/detectReport';
import { rigFromEnv } from '../rig/rigFile';
import { StoreRecorder, withStoreDefault } from '../evidence/cliStore';
import { hidePassword } from '../evidence/db';

export interface CliArgs {
  log: string;
  json: boolean;
  html: string | null;
  workers: number;
  /** --workers given (a directory otherwise uses one worker per core). */
  workersGiven: boolean;
  level: string | undefined;
  /** The server's RIG when it was not the mannequin (a rig file or the character it was built from). */
  rig: string | undefined;
  thresholds: Partial<FlagThresholds>;
  verdictsOnly: boolean;
  /** The match-log viewer the HTML report links shots to (e.g. http://localhost:2567/replay.html). */
  replayUrl: string | undefined;
  /** The evidence store to record every audited log in (--store), null for none. */
  store: string | null;
  /** Record logs that end early too (--store-incomplete). */
  storeIncomplete: boolean;
}

const USAGE = 'usage: npm run audit -- <log.hrml | directory> [--json] [--html report.html] [--workers N] [--level level.glb] [--rig rig.json|character.glb] [--threshold name=value ...] [--verdicts-only] [--replay-url http://host:port/replay.html] [--store [file.sqlite | postgres://...]] [--store-incomplete]';

/** The audit's arguments (node:util parseArgs); throws an Error whose message ends with the usage. */
export function parseArgs(argv: string[]): CliArgs {
  let parsed;
  try {
    parsed = parseArgv({
      args: withStoreDefault(argv),
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: 'boolean' },
        'verdicts-only': { type: 'boolean' },
        'replay-url': { type: 'string' },
        html: { type: 'string' },
        level: { type: 'string' },
        rig: { type: 'string' },
        workers: { type: 'string' },
        threshold: { type: 'string', multiple: true },
        store: { type: 'string' },
        'store-incomplete': { type: 'boolean' },
      },
    });
  } catch (e) {
    const msg = (e as Error).message;
    const unknown = /Unknown option '([^']+)'/.exec(msg);
    if (unknown) throw new Error(`unknown option ${unknown[1]}. ${USAGE}`);
    const needs = /Option '(?:-\w, )?(--[\w-]+)[^']*' argument missing/.exec(msg);
    if (needs) throw new Error(`${needs[1]} needs a value. ${USAGE}`);
    throw new Error(`${msg.split('\n', 1)[0]}. ${USAGE}`);
  }
  const v = parsed.values;
  const out: CliArgs = { log: '', json: v.json === true, html: v.html ?? null, workers: 1, workersGiven: v.workers !== undefined, level: v.level, rig: v.rig, thresholds: {}, verdictsOnly: v['verdicts-only'] === true, replayUrl: v['replay-url'], store: v.store ?? null, storeIncomplete: v['store-incomplete'] === true };
  if (out.storeIncomplete && out.store === null) throw new Error(`--store-incomplete goes with --store. ${USAGE}`);
  if (out.replayUrl !== undefined && !/^https?:\/\/[^\s"<>]+$/.test(out.replayUrl)) throw new Error(`--replay-url takes an http(s) address, e.g. http://localhost:2567/replay.html. ${USAGE}`);
  if (v.workers !== undefined) {
    const n = Number(v.workers);
    if (!(Number.isInteger(n) && n >= 1 && n <= 64)) throw new Error(`--workers takes an integer 1..64. ${USAGE}`);
    out.workers = n;
  }
  for (const t of v.threshold ?? []) {
    const [name, value] = t.split('=');
    if (!name || !(name in DEFAULT_THRESHOLDS) || value === undefined || value === '' || !Number.isFinite(Number(value))) {
      throw new Error(`--threshold name=value with a number; names: ${Object.keys(DEFAULT_THRESHOLDS).join(', ')}`);
    }
    (out.thresholds as Record<string, number>)[name] = Number(value);
  }
  const [log, second] = parsed.positionals;
  if (log === undefined) throw new Error(`no log given. ${USAGE}`);
  if (second !== undefined) throw new Error(`one log at a time (got ${log} and ${second}). ${USAGE}`);
  out.log = log;
  return out;
}

/** The report's shots from the result rows. */
export function reportShots(r: AuditResult): ReportShot[] {
  const shots: ReportShot[] = [];
  for (let i = 0; i < r.shots; i++) {
    const o = i * SHOT_COLUMNS;
    const c = (k: number) => r.rows[o + k]!;
    shots.push({
      index: c(ShotCol.INDEX), shooter: c(ShotCol.SHOOTER), seq: c(ShotCol.SEQ), receivedMs: c(ShotCol.RECEIVED_MS), kind: c(ShotCol.KIND),
      reason: c(ShotCol.REASON), zone: c(ShotCol.ZONE), target: c(ShotCol.TARGET), rewindDepthMs: c(ShotCol.REWIND_DEPTH_MS),
      sx: c(ShotCol.SX), sy: c(ShotCol.SY), sz: c(ShotCol.SZ), ex: c(ShotCol.EX), ey: c(ShotCol.EY), ez: c(ShotCol.EZ),
      px: c(ShotCol.PX), py: c(ShotCol.PY), pz: c(ShotCol.PZ), holed: c(ShotCol.HOLED) === 1,
    });
  }
  return shots;
}

export function htmlFor(r: AuditResult, detection?: DetectionSummary, replayUrl?: string): string {
  const h = r.header ?? {};
  const tris = r.world.triangleCorners();
  return renderHtmlReport({
    detection,
    logPath: r.logPath,
    header: h,
    summary: {
      log: r.logPath, room: String(h.roomId ?? ''), started: String(h.startedAtIso ?? ''), 'tick rate': Number(h.tickRate ?? 0),
      'measured ticks/s': Number.isFinite(r.ticksPerSecond) ? Number(r.ticksPerSecond.toFixed(2)) : 'n/a',
      'world hash': String(h.worldHash ?? ''), 'rig hash': String(h.rigHash ?? ''), ticks: r.ticks, shots: r.shots,
      'verdict mismatches': r.mismatches.length, 'flagged players': r.flagged.map((f) => f.player).join(', ') || 'none',
      'replay shots/s': Math.round(r.shotsPerSecond), workers: r.workers,
      'fog of war': fogLine(r.fog).replace(/^fog of war:? ?/, ''),
    },
    problems: r.problems.map((p) => p.message),
    ends: r.ends.complete ? null : `${r.ends.why} at byte ${r.ends.atByte} of ${r.ends.fileBytes}: the log ${r.ends.detail}`,
    players: r.players,
    shots: reportShots(r),
    mismatches: r.mismatches,
    rewindWindowMs: Number((h.validation as { rewindWindowMs?: number } | undefined)?.rewindWindowMs ?? 250),
    triangles: tris,
    triangleCount: r.world.triangleCount,
    ...(replayUrl !== undefined ? { replayUrl } : {}),
  });
}

/** Human summary lines. */
export function summaryLines(r: AuditResult): string[] {
  const lines: string[] = [];
  const nominal = Number((r.header ?? {}).tickRate ?? Number.NaN);
  lines.push(`${r.logPath}: ${r.ticks} ticks (${Number.isFinite(r.ticksPerSecond) ? r.ticksPerSecond.toFixed(1) : '-'} ticks/s measured, ${nominal} nominal), ${r.shots} shots replayed with ${r.workers} worker(s) at ${Math.round(r.shotsPerSecond)} shots/s`);
  lines.push(endLine(r));
  for (const p of r.problems) lines.push(`PROBLEM [${p.kind}] ${p.message}`);
  if (r.mismatches.length === 0) lines.push('verdicts: all replayed bit for bit');
  else {
    lines.push(`verdicts: ${r.mismatches.length} MISMATCHES`);
    for (const m of r.mismatches.slice(0, 50)) {
      lines.push(`  shot #${m.index} at byte ${m.offset}, player ${m.shooter} seq ${m.seq}: ${m.fields.map((f) => `${f.field} recorded ${f.recorded} replayed ${f.replayed}`).join('; ')}`);
    }
    if (r.mismatches.length > 50) lines.push(`  ... ${r.mismatches.length - 50} more (see --json / --html)`);
  }
  lines.push('player  shots  hits  miss  rej  head%  react(ms)  flags');
  for (const p of r.players) {
    const rejections = Object.entries(p.byReason).filter(([k]) => k !== 'OK_HIT' && k !== 'OK_MISS').map(([k, n]) => `${k}:${n}`).join(' ');
    lines.push(`${String(p.player).padStart(6)} ${String(p.shots).padStart(6)} ${String(p.hits).padStart(5)} ${String(p.misses).padStart(5)} ${String(p.rejected).padStart(4)} ${(p.hits ? (100 * p.headshots) / p.hits : 0).toFixed(0).padStart(6)} ${Number.isFinite(p.medianReactionMs) ? p.medianReactionMs.toFixed(0).padStart(10) : '         -'}  ${p.flags.map((f) => f.rule).join(',') || '-'}${rejections ? `  (${rejections})` : ''}`);
  }
  for (const f of r.flagged) for (const reason of f.reasons) lines.push(`FLAG player ${f.player}: ${reason}`);
  lines.push(...unavailableLines(r));
  lines.push(fogLine(r.fog));
  const flights = flightLines(r.fog);
  lines.push(...flights.slice(0, 50));
  if (flights.length > 50) lines.push(`  ... ${flights.length - 50} more flights (see --json)`);
  return lines;
}

/** Where and why the log ends: one line, "ENDS EARLY" when the end record is missing. */
export function endLine(r: AuditResult): string {
  const e = r.ends;
  return e.complete ? `log ends: ${e.detail}` : `log ENDS EARLY (${e.why}) at byte ${e.atByte} of ${e.fileBytes}: it ${e.detail}`;
}

/** Which behaviour measures the log could not give, by what it lacks, and for which players. */
export function unavailableLines(r: AuditResult): string[] {
  const out: string[] = [];
  for (const needs of ['view', 'inputs'] as const) {
    const players = r.players.filter((p) => p.unavailable.some((u) => u.needs === needs)).map((p) => p.player);
    if (players.length === 0) continue;
    const measures = [...new Set(r.players.flatMap((p) => p.unavailable.filter((u) => u.needs === needs).map((u) => u.measure)))];
    out.push(`not measured (the log has no ${needs === 'view' ? 'view' : 'input counts'} for player${players.length > 1 ? 's' : ''} ${players.join(' ')}): ${measures.join(', ')}`);
  }
  return out;
}

/** The --json line's object. */
export function jsonSummary(r: AuditResult): Record<string, unknown> {
  return {
    shots: r.shots,
    mismatches: r.mismatches.length,
    flagged: r.flagged,
    shotsPerSecond: Math.round(r.shotsPerSecond),
    workers: r.workers,
    ticks: r.ticks,
    ticksPerSecond: Number.isFinite(r.ticksPerSecond) ? r.ticksPerSecond : null,
    tickRate: (r.header ?? {}).tickRate ?? null,
    truncated: r.frames.truncated,
    truncatedAt: r.frames.truncated ? r.frames.truncatedAt : null,
    ends: { ...r.ends, lastTimeMs: Number.isFinite(r.ends.lastTimeMs) ? r.ends.lastTimeMs : null, cut: r.ends.cut && { bytes: r.ends.cut.bytes, promised: Number.isFinite(r.ends.cut.promised) ? r.ends.cut.promised : null } },
    problems: r.problems,
    fog: {
      mode: r.fog.mode, viewers: r.fog.viewers, withheldSpans: r.fog.withheld.length, flightsRecorded: r.fog.flightsRecorded, endsRecorded: r.fog.endsRecorded, flights: r.fog.flights.length,
      flightList: r.fog.flights.slice(0, 1000).map((x) => ({ ...x, endMs: Number.isFinite(x.endMs) ? x.endMs : null })), unknownFlightSends: r.fog.unknownFlightSends,
    },
    mismatchList: r.mismatches.slice(0, 100),
    unavailable: Object.fromEntries(r.players.filter((p) => p.unavailable.length > 0).map((p) => [p.player, p.unavailable.map((u) => u.measure)])),
    failed: r.failed,
  };
}

/** One line for one log of a directory audit. */
export function logLine(o: LogOutcome): string {
  if (o.result === null) return `${o.path}: CANNOT AUDIT: ${o.error}`;
  const r = o.result;
  const kinds = [...new Set(r.problems.map((p) => p.kind))];
  return `${o.path}: ${r.shots} shots, ${r.ticks} ticks, ${r.mismatches.length} mismatches${kinds.length ? `, problems ${kinds.join(' ')}` : ''}${r.ends.complete ? '' : `, ends early (${r.ends.why} at byte ${r.ends.atByte})`}${r.flagged.length ? `, flagged players ${r.flagged.map((f) => f.player).join(' ')}` : ''}${r.failed ? '  FAILED' : ''}`;
}

/** The summary lines of a directory audit. */
export function manySummaryLines(dir: string, m: ManyAuditSummary): string[] {
  const problems = Object.entries(m.problems).map(([k, n]) => `${k}:${n}`).join(' ');
  const lines = [
    `${dir}: ${m.logs} logs, ${m.shots} shots, ${m.ticks} ticks replayed with ${m.workers} worker(s) in ${(m.wallMs / 1000).toFixed(1)} s (${Math.round(m.shotsPerSecond)} shots/s)`,
    m.mismatches === 0 ? 'verdicts: all replayed bit for bit' : `verdicts: ${m.mismatches} MISMATCHES`,
  ];
  if (problems) {
    const notes = [
      m.problems[ProblemKind.NO_END] ? `${ProblemKind.NO_END}: the process stopped without closing the log, e.g. killed` : '',
      m.problems[ProblemKind.UNWRITTEN] ? `${ProblemKind.UNWRITTEN}: the writer could not write a log's last records, e.g. a full disk; its note says how many and why` : '',
    ].filter((n) => n !== '');
    lines.push(`problems: ${problems}${notes.length ? ` (${notes.join('; ')})` : ''}`);
  }
  for (const f of m.flagged) lines.push(`FLAG ${f.log} player ${f.player}: ${f.reasons.join('; ')}`);
  lines.push(m.failed ? `FAILED: ${m.failedLogs.length} log(s): ${m.failedLogs.slice(0, 20).join(' ')}${m.failedLogs.length > 20 ? ' ...' : ''}` : 'clean');
  return lines;
}

/** The evidence store of --store (null without it; 'failed' when it cannot be opened, said on stderr). */
async function openStore(args: CliArgs): Promise<StoreRecorder | null | 'failed'> {
  if (args.store === null) return null;
  try {
    return await StoreRecorder.open(args.store, args.storeIncomplete);
  } catch (e) {
    console.error(`audit: cannot open the evidence store ${hidePassword(args.store)}: ${(e as Error).message.split('\n', 1)[0]}`);
    return 'failed';
  }
}

/** Prints how the recording went; false when a write failed. */
async function finishStore(store: StoreRecorder): Promise<boolean> {
  for (const line of await store.finish()) console.log(line);
  return store.tally.errors.length === 0;
}

async function mainDirectory(args: CliArgs): Promise<number> {
  if (args.html) {
    console.error(`audit: --html writes the report of one log; give a log file, not the directory ${args.log}`);
    return 2;
  }
  const logs = await findMatchLogs(args.log);
  if (logs.length === 0) {
    console.error(`audit: ${args.log} holds no match log (*.hrml)`);
    return 2;
  }
  const workers = args.workersGiven ? args.workers : Math.min(availableParallelism(), logs.length);
  const store = await openStore(args);
  if (store === 'failed') return 2;
  const m = await auditMatchLogs(logs, {
    workers, levelPath: args.level, thresholds: args.thresholds, measures: args.verdictsOnly ? false : undefined,
    onLog: (o) => {
      console.log(logLine(o));
      if (o.result !== null) store?.add(o.result);
    },
  });
  for (const line of manySummaryLines(args.log, m)) console.log(line);
  if (store && !(await finishStore(store))) return 2;
  if (args.json) {
    console.log(JSON.stringify({
      logs: m.logs, shots: m.shots, ticks: m.ticks, mismatches: m.mismatches, failedLogs: m.failedLogs, unreadable: m.unreadable,
      problems: m.problems, flagged: m.flagged, workers: m.workers, wallMs: Math.round(m.wallMs), shotsPerSecond: Math.round(m.shotsPerSecond), failed: m.failed,
    }));
  }
  return m.failed ? 1 : 0;
}

export async function main(argv: string[]): Promise<number> {
  let args: CliArgs;
  try {
    args = parseArgs(argv);
  } catch (e) {
    console.error((e as Error).message);
    return 2;
  }
  if (await stat(args.log).then((st) => st.isDirectory(), () => false)) {
    try {
      return await mainDirectory(args);
    } catch (e) {
      console.error(`audit: cannot audit ${args.log}: ${(e as Error).message.split('\n', 1)[0]}`);
      return 2;
    }
  }
  const bar = process.stderr.isTTY ? new SingleBar({ format: 'replay [{bar}] {percentage}% {value}/{total} shots', stream: process.stderr }, Presets.shades_classic) : null;
  let started = false;
  let result: AuditResult;
  try {
    result = await auditMatchLog(args.log, {
      ...(args.rig ? { rig: await rigFromEnv({ RIG: args.rig }) } : {}),
      workers: args.workers, levelPath: args.level, thresholds: args.thresholds, measures: args.verdictsOnly ? false : undefined,
      // With a progress bar, even one shard replays in a worker thread so this thread can draw it.
      inWorkers: bar !== null,
      onProgress: (done, total) => {
        if (!bar) return;
        if (!started) { bar.start(total, 0); started = true; }
        bar.update(done);
      },
    });
  } catch (e) {
    bar?.stop();
    const err = e as Error & { code?: string };
    if (err.code === 'ENOENT' || err.code === 'EISDIR') {
      console.error(`audit: ${args.log} is not a file or directory: give a match log or a directory of them (rooms write them to ${process.env.MATCH_LOG_DIR ?? 'matches/'}, *.hrml)`);
      return 2;
    }
    console.error(`audit: ${err instanceof LogFormatError ? '' : 'cannot audit: '}${err.message}`);
    return 2;
  }
  bar?.stop();
  for (const line of summaryLines(result)) console.log(line);
  const store = await openStore(args);
  if (store === 'failed') return 2;
  if (store) {
    store.add(result);
    if (!(await finishStore(store))) return 2;
  }
  if (args.html) {
    try {
      await writeFile(args.html, htmlFor(result, undefined, args.replayUrl));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      console.error(`audit: cannot write the report to ${args.html} (${code ?? (e as Error).message}): give --html a path in a writable directory`);
      return 2;
    }
    console.log(`report written to ${args.html}`);
  }
  if (args.json) console.log(JSON.stringify(jsonSummary(result)));
  return result.failed ? 1 : 0;
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (invokedDirectly) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e: unknown) => {
    console.error(`audit: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 2;
  });
}
