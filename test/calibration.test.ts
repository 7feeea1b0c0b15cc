// The shipped behaviour calibration is a data file: it loads, it is what the writer writes, and a
// damaged or foreign file is refused with a reason.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { calibrationText, DEFAULT_CALIBRATION, DEFAULT_CALIBRATION_URL, parseCalibration } from '../server/behaviour/calibration';
import { MEASURES } from '../server/behaviour/score';

const text = readFileSync(DEFAULT_CALIBRATION_URL, 'utf8');

describe('behaviour calibration file', () => {
  it('loads with a finite threshold for each measure it calibrates (all named by the score), and the writer reproduces it byte for byte', () => {
    const names = new Set(MEASURES.map((m) => m.name));
    expect(Object.keys(DEFAULT_CALIBRATION.measures).length).toBeGreaterThanOrEqual(10);
    for (const [name, m] of Object.entries(DEFAULT_CALIBRATION.measures)) {
      expect(names.has(name), name).toBe(true);
      expect(Number.isFinite(m.threshold), name).toBe(true);
    }
    expect(DEFAULT_CALIBRATION.scoreThreshold).toBeGreaterThanOrEqual(2);
    expect(calibrationText(DEFAULT_CALIBRATION)).toBe(text);
    // Unknowns are stored as null and come back as NaN.
    expect(text.includes('null')).toBe(true);
    expect(Object.values(DEFAULT_CALIBRATION.measures).some((m) => Number.isNaN(m.tailMean))).toBe(true);
  });

  it('refuses another format, another version, a string for a number and a missing threshold', () => {
    const doc = JSON.parse(text);
    const edit = (f: (d: any) => void) => { const d = structuredClone(doc); f(d); return JSON.stringify(d); };
    expect(() => parseCalibration('{')).toThrow(/not JSON/);
    expect(() => parseCalibration(edit((d) => { d.format = 'other'; }))).toThrow(/format/);
    expect(() => parseCalibration(edit((d) => { d.version = 2; }))).toThrow(/version 2/);
    expect(() => parseCalibration(edit((d) => { d.calibration.measures.reaction.sd = '1'; }))).toThrow(/measures\.reaction\.sd/);
    expect(() => parseCalibration(edit((d) => { d.calibration.measures.reaction.threshold = null; }))).toThrow(/threshold is not finite/);
    expect(() => parseCalibration(edit((d) => { d.calibration.q = 2; }))).toThrow(/q 2/);
  });
});
