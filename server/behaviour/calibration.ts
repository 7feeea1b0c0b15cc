/**
 * The behaviour calibration: what honest players' measures look like (score.ts reads it). The
 * audit's default is calibration.json, calibrated on honest synthetic players only and written by
 * `npm run detect -- --write-calibration`; it is data, loaded and checked here (format, version,
 * every field's type; JSON has no NaN, so an unknown number is stored as null).
 */
import { readFileSync } from 'node:fs';

export const CALIBRATION_FORMAT = 'hitreg-behaviour-calibration';
export const CALIBRATION_VERSION = 1;

export interface MeasureCalibration {
  /** Event measures: the honest q-tail value (offending events lie beyond it). Player measures: mean + 3 sd. */
  threshold: number;
  /** Event measures: honest quantiles at 0, 0.5%, ..., 100%, and the mean and variance of the honest rank. */
  quantiles: number[];
  /** Event measures: mean and variance of an honest event's rank. Player measures: honest players' mean and standard deviation of the statistic (of its log for a logFloor measure). */
  mean: number;
  sd: number;
  /**
   * Event measures: the spread of honest players' mean ranks beyond what their event counts explain
   * (players differ: one aims more steadily, another fights at longer range); added to the
   * variance of a player's mean rank.
   */
  between: number;
  /** Event measures: the same three for the share of a player's events in the honest q-tail. */
  tailMean: number;
  tailSd: number;
  tailBetween: number;
  /** Honest events (or players) it came from. */
  events: number;
}

export interface Calibration {
  /** Honest players and matches it came from, and how (for the report). */
  source: string;
  honestPlayers: number;
  /** The honest tail beyond which an event is listed as offending (0.1). */
  q: number;
  measures: Record<string, MeasureCalibration>;
  scoreThreshold: number;
}

/** A measure's fields, in the order the file keeps them. */
const MEASURE_FIELDS = ['threshold', 'quantiles', 'mean', 'sd', 'between', 'tailMean', 'tailSd', 'tailBetween', 'events'] as const;

/** A number, or null for NaN (what the writer stores for an unknown). */
function num(v: unknown, where: string): number {
  if (v === null) return NaN;
  if (typeof v !== 'number') throw new Error(`calibration: ${where} is ${JSON.stringify(v)}, not a number or null`);
  return v;
}

/** Parses and checks a calibration file's text; throws naming the first thing wrong. */
export function parseCalibration(text: string, source = 'calibration'): Calibration {
  let doc: { format?: unknown; version?: unknown; calibration?: Record<string, unknown> };
  try { doc = JSON.parse(text); } catch (e) { throw new Error(`${source}: not JSON (${(e as Error).message})`); }
  if (doc.format !== CALIBRATION_FORMAT) throw new Error(`${source}: format ${JSON.stringify(doc.format)}, expected "${CALIBRATION_FORMAT}"`);
  if (doc.version !== CALIBRATION_VERSION) throw new Error(`${source}: version ${JSON.stringify(doc.version)}, this release reads ${CALIBRATION_VERSION}: recalibrate with npm run detect -- --write-calibration`);
  const c = doc.calibration;
  if (typeof c !== 'object' || c === null) throw new Error(`${source}: no "calibration" object`);
  if (typeof c.source !== 'string') throw new Error(`${source}: "source" is not a string`);
  const measuresIn = c.measures as Record<string, Record<string, unknown>> | undefined;
  if (typeof measuresIn !== 'object' || measuresIn === null || Object.keys(measuresIn).length === 0) throw new Error(`${source}: no measures`);
  const measures: Record<string, MeasureCalibration> = {};
  for (const [name, m] of Object.entries(measuresIn)) {
    if (!Array.isArray(m.quantiles)) throw new Error(`${source}: measures.${name}.quantiles is not an array`);
    const out = {} as MeasureCalibration;
    for (const k of MEASURE_FIELDS) {
      if (k !== 'quantiles') out[k] = num(m[k], `measures.${name}.${k}`);
      else out.quantiles = (m.quantiles as unknown[]).map((q, i) => num(q, `measures.${name}.quantiles[${i}]`));
    }
    if (!Number.isFinite(out.threshold)) throw new Error(`${source}: measures.${name}.threshold is not finite`);
    measures[name] = out;
  }
  const cal: Calibration = {
    source: c.source, honestPlayers: num(c.honestPlayers, 'honestPlayers'), q: num(c.q, 'q'), measures, scoreThreshold: num(c.scoreThreshold, 'scoreThreshold'),
  };
  if (!(cal.q > 0 && cal.q < 1)) throw new Error(`${source}: q ${cal.q} is not in (0, 1)`);
  if (!Number.isFinite(cal.scoreThreshold)) throw new Error(`${source}: scoreThreshold is not finite`);
  return cal;
}

/** A calibration as file text: numbers to 7 significant digits, NaN as null, quantile tables on one line. */
export function calibrationText(cal: Calibration): string {
  const doc = { format: CALIBRATION_FORMAT, version: CALIBRATION_VERSION, calibration: cal };
  return `${JSON.stringify(doc, (_k, v) => (typeof v === 'number' ? (Number.isFinite(v) ? Number(v.toPrecision(7)) : null) : v), 2)
    .replace(/\[\s*([-0-9.e+,\s]+?)\s*\]/g, (_m, body: string) => `[${body.split(',').map((x) => x.trim()).join(', ')}]`)}\n`;
}

/** Where the shipped calibration lives. */
export const DEFAULT_CALIBRATION_URL = new URL('./calibration.json', import.meta.url);

/** Reads and checks a calibration file. */
export function loadCalibration(path: string | URL): Calibration {
  return parseCalibration(readFileSync(path, 'utf8'), String(path));
}

/** The behaviour thresholds the audit uses by default. */
export const DEFAULT_CALIBRATION: Calibration = loadCalibration(DEFAULT_CALIBRATION_URL);
