/**
 * The cross-match calibration (crossMatch.ts reads it): per measure the honest spread split into
 * the player's part, the match's part and the events' own noise, and the score threshold for 1, 2,
 * ... k matches. It is data, written by `npm run detect -- --matches N --write-calibration`, and
 * loaded and checked here like the per-match calibration (calibration.ts): format, version, every
 * field's type, NaN stored as null.
 */
import { readFileSync } from 'node:fs';

export const CROSS_CALIBRATION_FORMAT = 'hitreg-behaviour-cross-calibration';
export const CROSS_CALIBRATION_VERSION = 1;

/**
 * One measure's honest spread. Event measures: the mean and spread of one event's honest rank
 * (`mean`, `sd`), the spread of a match's mean rank beyond its events' noise that changes from match
 * to match (`matchSd`) and that stays with the player (`playerSd`); the same for the share of
 * events in the honest tail (`tailMean`, `tailMatchSd`, `tailPlayerSd`). Player measures: the mean
 * of the statistic (on its calibrated scale), its spread from match to match for one player
 * (`matchSd`) and between players (`playerSd`); `sd` and the tail fields are NaN.
 */
export interface CrossMeasure {
  mean: number;
  sd: number;
  matchSd: number;
  playerSd: number;
  tailMean: number;
  tailMatchSd: number;
  tailPlayerSd: number;
  /** Honest players that gave the measure something in two or more matches. */
  players: number;
}

export interface CrossMatchCalibration {
  /** What it came from (for the report). */
  source: string;
  /** The per-match calibration the matches' results must be scored with (its source line). */
  behaviourSource: string;
  honestPlayers: number;
  /** The share of honest players flagged at any of their first k matches it is set for, and the share it was fitted to on its own players. */
  fpTarget: number;
  fitShare: number;
  measures: Record<string, CrossMeasure>;
  /** The score threshold for 1, 2, ... matches; the last one holds past them (the horizon: the latest this many matches are scored). */
  thresholds: number[];
}

const MEASURE_FIELDS = ['mean', 'sd', 'matchSd', 'playerSd', 'tailMean', 'tailMatchSd', 'tailPlayerSd', 'players'] as const;

function num(v: unknown, where: string): number {
  if (v === null) return NaN;
  if (typeof v !== 'number') throw new Error(`cross calibration: ${where} is ${JSON.stringify(v)}, not a number or null`);
  return v;
}

/** Parses and checks a cross-match calibration file's text; throws naming the first thing wrong. */
export function parseCrossCalibration(text: string, source = 'cross calibration'): CrossMatchCalibration {
  let doc: { format?: unknown; version?: unknown; calibration?: Record<string, unknown> };
  try { doc = JSON.parse(text); } catch (e) { throw new Error(`${source}: not JSON (${(e as Error).message})`); }
  if (doc.format !== CROSS_CALIBRATION_FORMAT) throw new Error(`${source}: format ${JSON.stringify(doc.format)}, expected "${CROSS_CALIBRATION_FORMAT}"`);
  if (doc.version !== CROSS_CALIBRATION_VERSION) throw new Error(`${source}: version ${JSON.stringify(doc.version)}, this release reads ${CROSS_CALIBRATION_VERSION}`);
  const c = doc.calibration;
  if (typeof c !== 'object' || c === null) throw new Error(`${source}: no "calibration" object`);
  for (const k of ['source', 'behaviourSource'] as const) if (typeof c[k] !== 'string') throw new Error(`${source}: "${k}" is not a string`);
  const measuresIn = c.measures as Record<string, Record<string, unknown>> | undefined;
  if (typeof measuresIn !== 'object' || measuresIn === null || Object.keys(measuresIn).length === 0) throw new Error(`${source}: no measures`);
  const measures: Record<string, CrossMeasure> = {};
  for (const [name, m] of Object.entries(measuresIn)) {
    const out = {} as CrossMeasure;
    for (const k of MEASURE_FIELDS) out[k] = num(m[k], `measures.${name}.${k}`);
    for (const k of ['mean', 'matchSd', 'playerSd'] as const) if (!Number.isFinite(out[k])) throw new Error(`${source}: measures.${name}.${k} is not finite`);
    measures[name] = out;
  }
  if (!Array.isArray(c.thresholds) || c.thresholds.length === 0) throw new Error(`${source}: no thresholds`);
  const thresholds = (c.thresholds as unknown[]).map((t, i) => num(t, `thresholds[${i}]`));
  if (!thresholds.every((t) => t >= 0)) throw new Error(`${source}: a threshold is not a number >= 0`);
  const cal: CrossMatchCalibration = {
    source: c.source as string, behaviourSource: c.behaviourSource as string, honestPlayers: num(c.honestPlayers, 'honestPlayers'),
    fpTarget: num(c.fpTarget, 'fpTarget'), fitShare: num(c.fitShare, 'fitShare'), measures, thresholds,
  };
  if (!(cal.fpTarget > 0 && cal.fpTarget < 1)) throw new Error(`${source}: fpTarget ${cal.fpTarget} is not in (0, 1)`);
  return cal;
}

/** A cross-match calibration as file text: numbers to 7 significant digits, NaN as null. */
export function crossCalibrationText(cal: CrossMatchCalibration): string {
  const doc = { format: CROSS_CALIBRATION_FORMAT, version: CROSS_CALIBRATION_VERSION, calibration: cal };
  return `${JSON.stringify(doc, (_k, v) => (typeof v === 'number' ? (Number.isFinite(v) ? Number(v.toPrecision(7)) : null) : v), 2)
    .replace(/\[\s*([-0-9.e+,\s]+?)\s*\]/g, (_m, body: string) => `[${body.split(',').map((x) => x.trim()).join(', ')}]`)}\n`;
}

/** The calibration with every number to 7 significant digits (what the file keeps, so a run and the file agree). */
export function roundCrossCalibration(cal: CrossMatchCalibration): CrossMatchCalibration {
  return parseCrossCalibration(crossCalibrationText(cal));
}

/** Where the shipped cross-match calibration lives. */
export const DEFAULT_CROSS_CALIBRATION_URL = new URL('./crossCalibration.json', import.meta.url);

/** Reads and checks a cross-match calibration file. */
export function loadCrossCalibration(path: string | URL): CrossMatchCalibration {
  return parseCrossCalibration(readFileSync(path, 'utf8'), String(path));
}
