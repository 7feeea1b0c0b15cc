/**
 * The audit of many match logs at once, e.g. a directory that the processes of a cluster (or many
 * machines) write into: each log is audited whole (auditMatchLog) in one of `workers` pooled worker
 * threads, the logs spread over the threads as each frees up, every level loaded once; the outcome
 * is one summary (logs, shots, mismatches, problems by kind, flagged players with their log) plus
 * one line per log. A log that cannot be audited at all (not a match log, no header) is named in
 * the summary and makes it fail, as a mismatch or corruption does.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { World } from '../../shared/world/world';
import { loadWorld } from '../level/gltf';
import { auditMatchLog, ProblemKind, type AuditOptions, type AuditResult } from './audit';

export interface LogOutcome {
  path: string;
  /** Null when the log could not be audited. */
  result: AuditResult | null;
  error: string | null;
}

export interface ManyAuditSummary {
  logs: number;
  shots: number;
  ticks: number;
  mismatches: number;
  /** Logs with mismatches, corruption, a hash mismatch, or that could not be audited. */
  failedLogs: string[];
  unreadable: { path: string; error: string }[];
  /** Problems of every log by kind (no-end-record counts logs of processes that were killed). */
  problems: Record<string, number>;
  flagged: { log: string; player: number; reasons: string[] }[];
  workers: number;
  wallMs: number;
  /** Shots replayed per second of wall time, every worker together. */
  shotsPerSecond: number;
  failed: boolean;
}

export interface ManyAuditOptions extends Omit<AuditOptions, 'workers' | 'firstWorker' | 'inWorkers' | 'onProgress' | 'loadLevel' | 'world' | 'partition'> {
  /** Worker threads (default 1); each audits one log at a time. */
  workers?: number;
  /** Called as each log is done (results are not kept beyond this call unless the caller keeps them). */
  onLog?: (outcome: LogOutcome, done: number, total: number) => void;
}

/** Every *.hrml file under `dir` (sub-directories included), sorted by name (their names start with the time). */
export async function findMatchLogs(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.hrml')).map((e) => join(e.parentPath, e.name)).sort();
}

export async function auditMatchLogs(paths: readonly string[], options: ManyAuditOptions = {}): Promise<ManyAuditSummary> {
  const lanes = Math.max(1, Math.min(Math.floor(options.workers ?? 1), 64, paths.length || 1));
  const levels = new Map<string, Promise<World>>();
  const loadLevel = (path: string): Promise<World> => {
    let w = levels.get(path);
    if (w === undefined) levels.set(path, (w = loadWorld(path)));
    return w;
  };
  const summary: ManyAuditSummary = {
    logs: paths.length, shots: 0, ticks: 0, mismatches: 0, failedLogs: [], unreadable: [], problems: {}, flagged: [],
    workers: lanes, wallMs: 0, shotsPerSecond: 0, failed: false,
  };
  const t0 = performance.now();
  let next = 0;
  let done = 0;
  const lane = async (i: number): Promise<void> => {
    while (next < paths.length) {
      const path = paths[next++]!;
      let outcome: LogOutcome;
      try {
        const { workers: _w, onLog: _o, ...rest } = options;
        const r = await auditMatchLog(path, { ...rest, workers: 1, inWorkers: true, firstWorker: i, loadLevel });
        outcome = { path, result: r, error: null };
        summary.shots += r.shots;
        summary.ticks += r.ticks;
        summary.mismatches += r.mismatches.length;
        for (const p of r.problems) summary.problems[p.kind] = (summary.problems[p.kind] ?? 0) + 1;
        for (const f of r.flagged) summary.flagged.push({ log: path, player: f.player, reasons: f.reasons });
        if (r.failed) summary.failedLogs.push(path);
      } catch (e) {
        const error = (e as Error).message.split('\n', 1)[0]!;
        outcome = { path, result: null, error };
        summary.unreadable.push({ path, error });
        summary.failedLogs.push(path);
        summary.problems[ProblemKind.HEADER] = (summary.problems[ProblemKind.HEADER] ?? 0) + 1;
      }
      options.onLog?.(outcome, ++done, paths.length);
    }
  };
  await Promise.all(Array.from({ length: lanes }, (_, i) => lane(i)));
  summary.wallMs = performance.now() - t0;
  summary.shotsPerSecond = summary.shots / Math.max(summary.wallMs / 1000, 1e-3);
  summary.failedLogs.sort();
  summary.failed = summary.failedLogs.length > 0;
  return summary;
}
