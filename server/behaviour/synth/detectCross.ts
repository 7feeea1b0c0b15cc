/**
 * Detection across matches as numbers: synthetic persons (each with its own make-up, the same in
 * every match it plays: SynthMatchOptions.persons) play N independent matches each, shuffled into
 * new rooms every round, and every match is audited with the per-match calibration. The cross-match
 * calibration (crossCalibrate.ts) is fitted on the honest persons of one set of seeds (beside
 * cheaters of random profiles and strengths, as honest players meet them); the evaluation runs on
 * other persons and other match seeds: the share of its honest persons flagged at any of their
 * first N matches, and per inhuman profile at one strength the share of its persons flagged within
 * k matches for k = 1 ... N. `npm run detect -- --matches N` (detectCli.ts) prints it.
 */
import { rmSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { World } from '../../../shared/world/world';
import { mulberry32 } from '../../../shared/util/prng';
import { auditMatchLog, type AuditResult } from '../audit';
import { DEFAULT_CALIBRATION, type Calibration } from '../calibration';
import { scoreAcrossMatches, type MatchEvidence } from '../crossMatch';
import { fitCrossMatch, scoresByMatches } from '../crossCalibrate';
import { roundCrossCalibration, type CrossMatchCalibration } from '../crossCalibration';
import { Behaviour, INHUMAN_PROFILES, synthesizeMatch, type CheatKind } from './synthMatch';

export interface CrossDetectOptions {
  world: World;
  levelPath: string;
  /** Scratch folder for the match logs (removed at the end). */
  dir: string;
  /** Seeds the calibration's persons and matches; the evaluation's come from seed + 1 (default 1). */
  seed?: number;
  /** Matches each person plays (default 5), players per match (16), seconds per match (90). */
  matches?: number;
  players?: number;
  seconds?: number;
  /** Honest persons in the calibration and, as many again, in the evaluation (default 256). */
  honest?: number;
  /** Cheaters of random profiles and strengths beside the calibration's honest persons (default 64). */
  calibrationCheaters?: number;
  /** Persons per inhuman profile in the evaluation (default 32), at `strength` (0.5). */
  perProfile?: number;
  strength?: number;
  /** The share of a profile's persons to catch (0.9) and the per-player false-positive rate (0.01). */
  target?: number;
  fpTarget?: number;
  /** The per-match calibration every match is scored with (default the shipped one). */
  calibration?: Calibration;
  /** Use this cross-match calibration instead of fitting one (the evaluation still runs). */
  crossCalibration?: CrossMatchCalibration;
  onProgress?: (what: string) => void;
}

export interface CrossProfileDetection {
  strength: number;
  persons: number;
  /** Matches needed until `target` of its persons were flagged (null: not within the matches played). */
  matchesToDetect90: number | null;
  /** The share flagged within 5 matches (null when fewer were played). */
  detectionRateAt5: number | null;
  /** The share flagged within k matches, k = 1 ... N. */
  byMatches: number[];
}

export interface CrossDetectResult {
  seed: number;
  matches: number;
  seconds: number;
  players: number;
  calibration: CrossMatchCalibration;
  /** Held-out honest persons, and the share flagged at any of their first N matches (and within k). */
  honestPlayers: number;
  falsePositiveRatePerPlayer: number;
  falsePositiveByMatches: number[];
  /** The highest held-out honest score over their first k matches, k = 1 ... N (against the thresholds). */
  honestTopByMatches: number[];
  /** The calibration's own honest persons flagged within N matches by the fitted thresholds. */
  calibrationHonestFlagged: number;
  target: number;
  profiles: Record<string, CrossProfileDetection>;
  /** Synthetic matches played and audited, and how long it all took. */
  matchesPlayed: number;
  elapsedMs: number;
}

/** A person: its make-up's seed and what it plays. */
interface Person { seed: number; kind: CheatKind; strength: number; results: MatchEvidence[] }

/** A 32-bit hash of a few integers (seeds of persons and matches). */
function hash(...xs: number[]): number {
  let h = 0x811c9dc5;
  for (const x of xs) h = Math.imul(h ^ (x >>> 0), 0x01000193) ^ (h >>> 15);
  return h >>> 0;
}

/** The persons of one phase, honest first. */
function persons(seed: number, phase: number, honest: number, cheaters: { kind: CheatKind; strength: number }[]): Person[] {
  const list: Person[] = [];
  for (let i = 0; i < honest; i++) list.push({ seed: hash(seed, phase, i), kind: Behaviour.HONEST, strength: 0, results: [] });
  cheaters.forEach((c, i) => list.push({ seed: hash(seed, phase, honest + i), ...c, results: [] }));
  return list;
}

/**
 * Every person plays `matches` matches: each round the persons are shuffled into rooms of
 * `players`, each room a synthetic match of its own seed, audited with `cal`; each person's result
 * (its behaviour and flags) is kept in play order. Audits run in worker threads while the next
 * match is synthesized.
 */
async function playRounds(o: CrossDetectOptions, seed: number, phase: number, people: Person[], cal: Calibration, progress: (w: string) => void): Promise<number> {
  const per = o.players ?? 16, rounds = o.matches ?? 5, seconds = o.seconds ?? 90;
  const rand = mulberry32(hash(seed, phase, 0x5eed));
  let played = 0;
  let pending: Promise<void> = Promise.resolve();
  const groups = Math.ceil(people.length / per);
  for (let r = 0; r < rounds; r++) {
    const order = people.slice();
    for (let i = order.length - 1; i > 0; i--) { const j = Math.floor(rand() * (i + 1)); [order[i], order[j]] = [order[j]!, order[i]!]; }
    for (let g = 0; g < groups; g++) {
      const room = order.slice(g * per, (g + 1) * per);
      const path = join(o.dir, `p${phase}-r${r}-g${g}.hrml`);
      progress(`${phase === 0 ? 'calibration' : 'evaluation'} round ${r + 1}/${rounds} match ${g + 1}/${groups}`);
      const cheats: Record<number, CheatKind> = {}, strengths: Record<number, number> = {}, personSeeds: Record<number, number> = {};
      room.forEach((p, s) => { cheats[s] = p.kind; strengths[s] = p.strength; personSeeds[s] = p.seed; });
      rmSync(path, { force: true });
      await synthesizeMatch({ world: o.world, levelPath: o.levelPath, path, seed: hash(seed, phase, r, g), players: room.length, durationS: seconds, cheats, strengths, persons: personSeeds });
      await pending;
      pending = auditMatchLog(path, { world: o.world, calibration: cal, workers: 2 }).then((a) => { keep(a, room, `p${phase}-r${r}-g${g}`); rmSync(path, { force: true }); });
      played++;
    }
  }
  await pending;
  return played;
}

/** Each person's result of one audited match. */
function keep(a: AuditResult, room: Person[], match: string): void {
  room.forEach((p, slot) => {
    const pr = a.players.find((x) => x.player === slot);
    p.results.push({ match, behaviour: pr?.behaviour ?? null, flags: pr?.flags ?? [] });
  });
}

/** The share of `people` flagged within k matches, k = 1 ... n: a person is flagged at the first k whose score reaches its threshold. */
function flaggedWithin(people: readonly Person[], cal: CrossMatchCalibration, n: number): number[] {
  const first = people.map((p) => {
    const scored = p.results.filter((m) => m.behaviour !== null);
    for (let k = 1; k <= Math.min(n, scored.length); k++) if (scoreAcrossMatches(scored.slice(0, k), cal).flagged) return k;
    return Infinity;
  });
  const out: number[] = [];
  for (let k = 1; k <= n; k++) out.push(people.length > 0 ? first.filter((f) => f <= k).length / people.length : 0);
  return out;
}

export async function runCrossDetection(o: CrossDetectOptions): Promise<CrossDetectResult> {
  const t0 = performance.now();
  const seed = o.seed ?? 1, n = o.matches ?? 5, honest = o.honest ?? 256, strength = o.strength ?? 0.5, target = o.target ?? 0.9;
  const cal = o.calibration ?? DEFAULT_CALIBRATION;
  const progress = o.onProgress ?? (() => {});
  rmSync(o.dir, { recursive: true, force: true });
  mkdirSync(o.dir, { recursive: true });
  let played = 0;
  // 1. Calibration: honest persons beside cheaters of random profiles and strengths (seed).
  let cross = o.crossCalibration;
  let calibrationHonestFlagged = 0;
  if (cross === undefined) {
    const draw = mulberry32(hash(seed, 0xca1));
    const strengths = [1, 0.75, 0.5, 0.25];
    const cheaters = Array.from({ length: o.calibrationCheaters ?? 64 }, () => ({ kind: INHUMAN_PROFILES[Math.floor(draw() * INHUMAN_PROFILES.length)]! as CheatKind, strength: strengths[Math.floor(draw() * strengths.length)]! }));
    const people = persons(seed, 0, honest, cheaters);
    played += await playRounds(o, seed, 0, people, cal, progress);
    const honestPeople = people.filter((p) => p.kind === Behaviour.HONEST);
    cross = roundCrossCalibration(fitCrossMatch(honestPeople.map((p) => p.results), cal, {
      source: `${honestPeople.length} honest synthetic persons x ${n} matches of ${o.players ?? 16} players x ${o.seconds ?? 90} s beside ${cheaters.length} cheaters of random profiles and strengths, seed ${seed}`,
      horizon: n, fpTarget: o.fpTarget ?? 0.01,
    }));
    const within = flaggedWithin(honestPeople, cross, n);
    calibrationHonestFlagged = Math.round(within[n - 1]! * honestPeople.length);
  }
  // 2. Evaluation: other persons and matches (seed + 1), every profile at `strength`.
  const perProfile = o.perProfile ?? 32;
  const cheaters = INHUMAN_PROFILES.flatMap((kind) => Array.from({ length: perProfile }, () => ({ kind: kind as CheatKind, strength })));
  const people = persons(seed + 1, 1, honest, cheaters);
  played += await playRounds(o, seed + 1, 1, people, cal, progress);
  rmSync(o.dir, { recursive: true, force: true });
  const honestPeople = people.filter((p) => p.kind === Behaviour.HONEST);
  const fp = flaggedWithin(honestPeople, cross, n);
  const top = scoresByMatches(honestPeople.map((p) => p.results), cross, n);
  const honestTopByMatches = Array.from({ length: n }, (_, k) => Math.max(0, ...top.map((s) => s[k]!).filter((x) => x === x)));
  const profiles: Record<string, CrossProfileDetection> = {};
  for (const kind of INHUMAN_PROFILES) {
    const these = people.filter((p) => p.kind === kind);
    const byMatches = flaggedWithin(these, cross, n);
    const k = byMatches.findIndex((s) => s >= target);
    profiles[kind] = { strength, persons: these.length, matchesToDetect90: k >= 0 ? k + 1 : null, detectionRateAt5: n >= 5 ? byMatches[4]! : null, byMatches };
  }
  return {
    seed, matches: n, seconds: o.seconds ?? 90, players: o.players ?? 16, calibration: cross, honestPlayers: honestPeople.length,
    falsePositiveRatePerPlayer: fp[n - 1]!, falsePositiveByMatches: fp, honestTopByMatches, calibrationHonestFlagged, target, profiles, matchesPlayed: played,
    elapsedMs: performance.now() - t0,
  };
}
