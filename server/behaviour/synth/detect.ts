/**
 * Detection as numbers: seeded synthetic matches (synthMatch.ts) calibrate the behaviour
 * thresholds on honest players only -- one match in four all honest, the others drawn like the
 * evaluation's, with cheaters of random profiles and strengths beside the honest players (whose
 * events alone are used: an honest player whose opponents cheat fights differently, dies sooner,
 * re-engages more often) -- then further matches (other seeds, five minutes long by default) with
 * honest players and every rule-abiding inhuman profile at several strengths are audited with those
 * thresholds. Honest simulator bots (simPlayers.ts) may join the calibration's honest players. The result
 * is the false-positive rate on the held-out honest players and, per profile and strength, the share
 * of cheating players flagged. `npm run detect` (detectCli.ts) prints it as JSON and draws it.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { World } from '../../../shared/world/world';
import { auditMatchLog, type AuditResult } from '../audit';
import { calibrate, roundCalibration, scorePlayer, type BehaviourEvent, type Calibration } from '../score';
import { auditEvents } from '../events';
import { Behaviour, INHUMAN_PROFILES, synthesizeMatch, type CheatKind } from './synthMatch';
import { mulberry32 } from '../../../shared/util/prng';
import { simHonestEvents, simRunText, type SimRun } from './simPlayers';

export interface DetectOptions {
  world: World;
  levelPath: string;
  /** Scratch folder for the match logs (emptied first, removed at the end unless keepLogs). */
  dir: string;
  seed?: number;
  /** Players per match, and seconds per calibration match. */
  players?: number;
  seconds?: number;
  /**
   * Seconds per evaluation match (default 300, a usual deathmatch). The thresholds are calibrated on
   * the shorter `seconds` matches: a score is a tail probability under honest play whatever the
   * number of events behind it, so the same thresholds hold for longer matches, where a subtle cheat
   * has fired more of the shots that show it.
   */
  evalSeconds?: number;
  /** Matches for the calibration (three in four with cheaters beside the honest players). */
  calibrationMatches?: number;
  /** Evaluation matches per strength, each with `honestPerMatch` honest players and the rest cheating. */
  matchesPerStrength?: number;
  honestPerMatch?: number;
  strengths?: readonly number[];
  /** The strength the target is stated at. */
  defaultStrength?: number;
  /** The share of cheaters to catch at the default strength. */
  target?: number;
  /** Use this calibration instead of making one (the evaluation still runs). */
  calibration?: Calibration;
  /**
   * Simulator runs whose honest bots join the calibration's honest players (simPlayers.ts: the real
   * server over the modelled TCP links; real time, about 70 s each). Default none.
   */
  simRuns?: readonly SimRun[];
  keepLogs?: boolean;
  onProgress?: (what: string) => void;
  /** Called with each evaluation match's audit (the CLI keeps one for its HTML report). */
  onAudit?: (audit: AuditResult, strength: number, cheats: Record<number, CheatKind>) => void;
}

export interface ProfileDetection {
  profile: string;
  /** By strength (as a string key: "1", "0.75", ...): flagged / players. */
  byStrength: Record<string, { flagged: number; players: number; share: number }>;
  /** At the default strength: whether the target was met and by how much it was missed (0 when met). */
  meetsTarget: boolean;
  shortBy: number;
}

export interface DetectionResult {
  seed: number;
  players: number;
  seconds: number;
  evalSeconds: number;
  calibration: Calibration;
  /** Held-out honest players of the evaluation matches. */
  honest: { players: number; flagged: number; rate: number };
  /** Honest players of the calibration matches flagged by the final thresholds (0 by construction). */
  calibrationHonestFlagged: number;
  defaultStrength: number;
  target: number;
  profiles: ProfileDetection[];
  elapsedMs: number;
}

async function playMatch(o: DetectOptions, path: string, seed: number, seconds: number, cheats: Record<number, CheatKind>, strength: number, strengths?: Record<number, number>): Promise<void> {
  rmSync(path, { force: true });
  await synthesizeMatch({ world: o.world, levelPath: o.levelPath, path, seed, players: o.players ?? 16, durationS: seconds, cheats, strength, strengths });
}

/** Honest and cheating slots interleaved, `honest` of `players` honest; `pick` names each cheater's profile. */
function lineUp(players: number, honest: number, pick: () => CheatKind): Record<number, CheatKind> {
  const cheats: Record<number, CheatKind> = {};
  for (let i = 0; i < players; i++) {
    const cheating = Math.floor(((i + 1) * (players - honest)) / players) > Math.floor((i * (players - honest)) / players);
    cheats[i] = cheating ? pick() : Behaviour.HONEST;
  }
  return cheats;
}

export async function runDetection(o: DetectOptions): Promise<DetectionResult> {
  const t0 = performance.now();
  const seed = o.seed ?? 1;
  const players = o.players ?? 16;
  const seconds = o.seconds ?? 90;
  const evalSeconds = o.evalSeconds ?? 300;
  const strengths = o.strengths ?? [1, 0.75, 0.5, 0.25];
  const honestPerMatch = Math.min(players, o.honestPerMatch ?? 6);
  const defaultStrength = o.defaultStrength ?? 0.5;
  const target = o.target ?? 0.9;
  rmSync(o.dir, { recursive: true, force: true });
  mkdirSync(o.dir, { recursive: true });
  const path = join(o.dir, 'match.hrml');
  const progress = o.onProgress ?? (() => {});

  // 1. Calibration: honest-only matches.
  let cal = o.calibration;
  const calibrationHonest: BehaviourEvent[][] = [];
  if (cal === undefined) {
    // Simulator runs first, on a machine not yet busy with anything else of this run (they are real time).
    const sims = o.simRuns ?? [];
    let simPlayers = 0;
    for (const [i, run] of sims.entries()) {
      progress(`simulator run ${i + 1}/${sims.length}`);
      const ev = await simHonestEvents(run, o.world, o.dir);
      simPlayers += ev.length;
      calibrationHonest.push(...ev);
    }
    const n = o.calibrationMatches ?? 40;
    const draw = mulberry32((seed * 2654435761) >>> 0);
    for (let c = 0; c < n; c++) {
      progress(`calibration match ${c + 1}/${n}`);
      const cheats = c % 4 !== 0 ? lineUp(players, honestPerMatch, () => INHUMAN_PROFILES[Math.floor(draw() * INHUMAN_PROFILES.length)]!) : {};
      const slotStrengths: Record<number, number> = {};
      for (const k of Object.keys(cheats)) slotStrengths[Number(k)] = strengths[Math.floor(draw() * strengths.length)]!;
      await playMatch(o, path, seed * 7919 + c, seconds, cheats, 0, slotStrengths);
      const a = await auditMatchLog(path, { world: o.world });
      for (const [p, ev] of auditEvents(a)) if ((cheats[p] ?? Behaviour.HONEST) === Behaviour.HONEST) calibrationHonest.push(ev);
    }
    const simText = sims.length > 0 ? ` and ${simPlayers} honest simulator bots of ${sims.length} runs (npm run sim -- ${sims.map(simRunText).join('; ')})` : '';
    const groups = calibrationHonest.map((_, i) => (i < simPlayers ? 1 : 0));
    cal = roundCalibration(calibrate(calibrationHonest, `${calibrationHonest.length - simPlayers} honest players in ${n} synthetic matches of ${players} players x ${seconds} s (three in four with ${players - honestPerMatch} cheaters), seed ${seed}${simText}`, 0.1, 0, groups));
  }

  // 2. Evaluation: honest players and every profile at each strength, with the calibration above.
  const honest = { players: 0, flagged: 0, rate: 0 };
  const table = new Map<string, Map<number, { flagged: number; players: number }>>();
  for (const p of INHUMAN_PROFILES) table.set(p, new Map(strengths.map((s) => [s, { flagged: 0, players: 0 }])));
  let slotTurn = 0;
  const perStrength = o.matchesPerStrength ?? 10;
  for (const s of strengths) {
    for (let m = 0; m < perStrength; m++) {
      progress(`strength ${s} match ${m + 1}/${perStrength}`);
      // Profiles rotate so each gets the same number of players.
      const cheats = lineUp(players, honestPerMatch, () => INHUMAN_PROFILES[slotTurn++ % INHUMAN_PROFILES.length]!);
      await playMatch(o, path, seed * 104729 + Math.round(s * 1000) * 31 + m, evalSeconds, cheats, s);
      const a = await auditMatchLog(path, { world: o.world, calibration: cal });
      o.onAudit?.(a, s, cheats);
      for (const pr of a.players) {
        const kind = cheats[pr.player] ?? Behaviour.HONEST;
        const flagged = pr.behaviour?.flagged === true;
        if (kind === Behaviour.HONEST) {
          honest.players++;
          if (flagged) honest.flagged++;
        } else {
          const cell = table.get(kind)!.get(s)!;
          cell.players++;
          if (flagged) cell.flagged++;
        }
      }
    }
  }
  honest.rate = honest.players > 0 ? honest.flagged / honest.players : 0;
  if (!o.keepLogs) rmSync(o.dir, { recursive: true, force: true });
  const profiles: ProfileDetection[] = INHUMAN_PROFILES.map((profile) => {
    const byStrength: ProfileDetection['byStrength'] = {};
    for (const [s, c] of table.get(profile)!) byStrength[String(s)] = { ...c, share: c.players > 0 ? c.flagged / c.players : 0 };
    const at = byStrength[String(defaultStrength)];
    const share = at?.share ?? 0;
    return { profile, byStrength, meetsTarget: at !== undefined && share >= target, shortBy: Math.max(0, target - share) };
  });
  let calibrationHonestFlagged = 0;
  for (const ev of calibrationHonest) if (scorePlayer(ev, cal).flagged) calibrationHonestFlagged++;
  return {
    seed, players, seconds, evalSeconds, calibration: cal, honest, calibrationHonestFlagged, defaultStrength, target, profiles,
    elapsedMs: performance.now() - t0,
  };
}
