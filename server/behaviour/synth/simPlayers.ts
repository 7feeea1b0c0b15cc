/**
 * Honest players from the simulator (client-sim/simulate.ts): bots of the one human model playing
 * the real server over the modelled TCP links, with cheaters in the room, audited like any match
 * log. Their events join the synthetic players' in the behaviour calibration (detect.ts), so the
 * thresholds describe honest play through a real room and a real network stack too, not only the
 * synthetic harness. The runs are real time: a 60 s run of 28 bots takes about 70 s of one machine.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { World } from '../../../shared/world/world';
import { runSimulation } from '../../../client-sim/simulate';
import { roomsLevel } from '../../level/rooms';
import { auditMatchLog, type AuditResult } from '../audit';
import { auditEvents } from '../events';
import type { BehaviourEvent, Calibration } from '../score';

/** One simulator run: the settings `npm run sim` takes. */
export interface SimRun {
  seed: number;
  bots: number;
  cheaters: number;
  seconds: number;
  rttMs: number;
  jitterMs: number;
  loss: number;
  /** Each bot's round trip drawn from rttMs +- rttSpreadMs. */
  rttSpreadMs?: number;
  /** Share of the bots that take a rocket or grenade launcher at middle range (`--launchers`; default the simulator's, 0.4). */
  launcherShare?: number;
  /** 'rooms': the walled level (server/level/rooms.ts), players spread over it (`--level rooms --spawns spread`); absent: the default level. */
  level?: 'rooms';
}

/**
 * The runs the shipped calibration adds: two at the simulator's usual conditions (100 ms, 20 ms
 * jitter, 1% loss) and two elsewhere (near and clean; far, jittery and lossy, round trips spread),
 * with the simulator's share of launcher fans (0.4), one at the usual conditions where every
 * bot is a launcher fan (switching to a rocket or grenade launcher at middle range and back), and
 * one on the walled level (close fights through doorways, fog of war withholding most of what is
 * behind cover) at round trips of 90 to 210 ms: 24 honest bots beside 8 cheaters each (two full
 * rooms). Other seeds are left for checking.
 */
export const SIM_CALIBRATION_RUNS: readonly SimRun[] = [
  { seed: 11, bots: 24, cheaters: 8, seconds: 60, rttMs: 100, jitterMs: 20, loss: 0.01 },
  { seed: 12, bots: 24, cheaters: 8, seconds: 60, rttMs: 100, jitterMs: 20, loss: 0.01 },
  { seed: 13, bots: 24, cheaters: 8, seconds: 60, rttMs: 40, jitterMs: 5, loss: 0.002 },
  { seed: 14, bots: 24, cheaters: 8, seconds: 60, rttMs: 160, jitterMs: 30, loss: 0.02, rttSpreadMs: 80 },
  { seed: 15, bots: 24, cheaters: 8, seconds: 60, rttMs: 100, jitterMs: 20, loss: 0.01, launcherShare: 1 },
  { seed: 16, bots: 24, cheaters: 8, seconds: 60, rttMs: 150, jitterMs: 20, loss: 0.01, rttSpreadMs: 60, level: 'rooms' },
];

/** A run as `npm run sim` arguments (for the calibration's source line and the docs). */
export function simRunText(r: SimRun): string {
  return `--bots ${r.bots} --cheaters ${r.cheaters} --seconds ${r.seconds} --rtt ${r.rttMs} --jitter ${r.jitterMs} --loss ${r.loss}${r.rttSpreadMs ? ` --rtt-spread ${r.rttSpreadMs}` : ''}${r.launcherShare !== undefined ? ` --launchers ${r.launcherShare}` : ''}${r.level === 'rooms' ? ' --level rooms --spawns spread' : ''} --seed ${r.seed}`;
}

/** A finished run's rooms, each audited: the audit and which of its slots were honest bots. */
export interface SimRoomAudit {
  audit: AuditResult;
  honestSlots: number[];
}

/**
 * Plays `run` on an in-process server writing its match logs under `dir` (removed after), and
 * audits each room's log with `calibration` (null: measures only, no score), calling `each` with
 * every room's audit before its log is removed. `world` is the default level's (a run on the
 * walled level builds its own).
 */
export async function playSimRun(run: SimRun, world: World, dir: string, each: (room: SimRoomAudit) => void, calibration: Calibration | null = null): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  try {
    const level = run.level === 'rooms' ? roomsLevel() : null;
    const played = level ?? world;
    const report = await runSimulation({
      bots: run.bots, cheaters: run.cheaters, seconds: run.seconds, rttMs: run.rttMs, jitterMs: run.jitterMs, loss: run.loss, rttSpreadMs: run.rttSpreadMs,
      launcherShare: run.launcherShare, seed: run.seed, audit: false,
      ...(level !== null ? { level, spawns: 'spread' as const, server: { matchLogDir: dir, level } } : { server: { matchLogDir: dir } }),
    });
    for (const room of report.rooms) {
      if (room.matchLog === null) continue;
      const audit = await auditMatchLog(room.matchLog, { world: played, workers: 1, calibration });
      each({ audit, honestSlots: room.slots.filter((s) => s.profile === 'honest').map((s) => s.slot) });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The honest bots' behaviour events of `run`, one list per honest bot that fired. */
export async function simHonestEvents(run: SimRun, world: World, dir: string): Promise<BehaviourEvent[][]> {
  const out: BehaviourEvent[][] = [];
  await playSimRun(run, world, join(dir, `sim-${run.seed}`), ({ audit, honestSlots }) => {
    const events = auditEvents(audit);
    for (const slot of honestSlots) {
      const ev = events.get(slot);
      if (ev !== undefined && ev.length > 0) out.push(ev);
    }
  });
  return out;
}
