/**
 * `npm run detect -- [--seed N] [--seconds S] [--eval-seconds S] [--players N]
 *                    [--calibration-matches N] [--matches N] [--honest N]
 *                    [--strengths 1,0.75,0.5,0.25] [--default-strength S] [--html detect.html]
 *                    [--write-calibration | --shipped-calibration]`
 *
 * Runs the detection evaluation (detect.ts): calibrates the behaviour thresholds on honest
 * synthetic players of --seconds matches (90), then audits matches of --eval-seconds (300) with
 * honest players and every inhuman profile at each strength (--shipped-calibration: with the
 * audit's default thresholds instead of calibrating). Prints a table, the false-positive rate and
 * whether each profile meets the target at the default strength (and by how much it misses), and
 * ends with one JSON line. --html writes the audit report of one evaluation match at the default
 * strength with the detection plot on top; --write-calibration stores the thresholds as the audit's
 * defaults (server/behaviour/calibration.json).
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_LEVEL_PATH, loadWorld } from '../../level/gltf';
import { closeAuditWorkers, type AuditResult } from '../audit';
import { htmlFor } from '../cli';
import { runDetection, type DetectOptions } from './detect';
import { calibrationText, DEFAULT_CALIBRATION, DEFAULT_CALIBRATION_URL } from '../calibration';

const USAGE = 'usage: npm run detect -- [--seed N] [--seconds S] [--eval-seconds S] [--players N] [--calibration-matches N] [--matches N] [--honest N] [--strengths 1,0.75,0.5,0.25] [--default-strength S] [--html file] [--write-calibration | --shipped-calibration]';

async function main(argv: string[]): Promise<number> {
  const world = await loadWorld(DEFAULT_LEVEL_PATH);
  const o: DetectOptions = { world, levelPath: DEFAULT_LEVEL_PATH, dir: join(tmpdir(), `hitreg-detect-${process.pid}`) };
  let html: string | null = null;
  let write = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v)) throw new Error(`${a} needs a number. ${USAGE}`);
      return v;
    };
    if (a === '--seed') o.seed = num();
    else if (a === '--seconds') o.seconds = num();
    else if (a === '--eval-seconds') o.evalSeconds = num();
    else if (a === '--shipped-calibration') o.calibration = DEFAULT_CALIBRATION;
    else if (a === '--players') o.players = num();
    else if (a === '--calibration-matches') o.calibrationMatches = num();
    else if (a === '--matches') o.matchesPerStrength = num();
    else if (a === '--honest') o.honestPerMatch = num();
    else if (a === '--default-strength') o.defaultStrength = num();
    else if (a === '--strengths') {
      const list = (argv[++i] ?? '').split(',').map(Number);
      if (list.length === 0 || !list.every((s) => s >= 0 && s <= 1)) throw new Error(`--strengths takes numbers in [0, 1] separated by commas. ${USAGE}`);
      o.strengths = list;
    } else if (a === '--html') html = argv[++i] ?? null;
    else if (a === '--write-calibration') write = true;
    else throw new Error(`unknown option ${a}. ${USAGE}`);
  }
  if (write && o.calibration === DEFAULT_CALIBRATION) throw new Error(`--write-calibration calibrates: leave out --shipped-calibration. ${USAGE}`);
  let example: AuditResult | null = null;
  o.onProgress = (w) => { if (process.stderr.isTTY) process.stderr.write(`\r${w.padEnd(40)}`); };
  o.onAudit = (a, s) => { if (s === (o.defaultStrength ?? 0.5)) example = a; };
  const r = await runDetection(o);
  if (process.stderr.isTTY) process.stderr.write('\n');
  const strengths = Object.keys(r.profiles[0]?.byStrength ?? {});
  console.log(`detection: ${r.honest.players} held-out honest players, ${r.honest.flagged} flagged (${(100 * r.honest.rate).toFixed(1)}%); calibration: ${r.calibration.source}, score threshold ${r.calibration.scoreThreshold.toFixed(2)}; evaluation matches of ${r.evalSeconds} s`);
  console.log(`${'profile'.padEnd(15)}${strengths.map((s) => `s=${s}`.padStart(14)).join('')}   target ${(100 * r.target).toFixed(0)}% at s=${r.defaultStrength}`);
  for (const p of r.profiles) {
    console.log(`${p.profile.padEnd(15)}${strengths.map((s) => { const c = p.byStrength[s]!; return `${(100 * c.share).toFixed(0)}% (${c.flagged}/${c.players})`.padStart(14); }).join('')}   ${p.meetsTarget ? 'met' : `MISSED by ${(100 * p.shortBy).toFixed(0)} points`}`);
  }
  console.log(`elapsed ${(r.elapsedMs / 1000).toFixed(1)} s`);
  if (write) {
    writeFileSync(DEFAULT_CALIBRATION_URL, calibrationText(r.calibration));
    console.log('calibration written to server/behaviour/calibration.json');
  }
  if (html !== null && example !== null) {
    writeFileSync(html, htmlFor(example, r));
    console.log(`report written to ${html}`);
  }
  console.log(JSON.stringify(r));
  await closeAuditWorkers();
  return 0;
}

main(process.argv.slice(2)).then((c) => { process.exitCode = c; }, (e) => { console.error(`detect: ${(e as Error).message}`); process.exitCode = 2; });
