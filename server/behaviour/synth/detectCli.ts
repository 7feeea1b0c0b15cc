/**
 * `npm run detect -- [--seed N] [--seconds S] [--eval-seconds S] [--players N]
 *                    [--calibration-matches N] [--eval-matches N] [--honest N] [--sim-runs N]
 *                    [--strengths 1,0.75,0.5,0.25] [--default-strength S] [--html detect.html]
 *                    [--write-calibration | --shipped-calibration] [--json]`
 * `npm run detect -- --matches N [--seed N] [--seconds S] [--players N] [--persons N]
 *                    [--calibration-cheaters N] [--per-profile N] [--default-strength S]
 *                    [--write-calibration | --shipped-calibration] [--json]`
 *
 * Without --matches: the detection evaluation of one match (detect.ts): calibrates the behaviour
 * thresholds on honest synthetic players of --seconds matches (90), with the honest bots of
 * --sim-runs simulator runs (simPlayers.ts; default all of them with --write-calibration, else
 * none), then audits matches of --eval-seconds (300), --eval-matches (10) per strength, with honest
 * players and every inhuman profile (--shipped-calibration: with the audit's default thresholds
 * instead of calibrating). Prints a table, the false-positive rate and whether each profile meets
 * the target at the default strength; --html writes the audit report of one evaluation match with
 * the detection plot on top; --write-calibration stores the thresholds as the audit's defaults
 * (server/behaviour/calibration.json).
 *
 * With --matches N: detection across matches (detectCross.ts): persons play N matches each; the
 * cross-match thresholds are fitted on --persons (256) honest persons of one seed and evaluated on
 * as many others and --per-profile (32) persons of each inhuman profile at the default strength,
 * of other seeds (--shipped-calibration: the shipped cross-match calibration instead of fitting;
 * --write-calibration stores the fitted one as server/behaviour/crossCalibration.json).
 *
 * Either way the last line is the result as one JSON object; --json prints only that line.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_LEVEL_PATH, loadWorld } from '../../level/gltf';
import { closeAuditWorkers, type AuditResult } from '../audit';
import { htmlFor } from '../cli';
import { runDetection, type DetectionResult, type DetectOptions } from './detect';
import { runCrossDetection, type CrossDetectOptions, type CrossDetectResult } from './detectCross';
import { SIM_CALIBRATION_RUNS } from './simPlayers';
import { calibrationText, DEFAULT_CALIBRATION, DEFAULT_CALIBRATION_URL } from '../calibration';
import { crossCalibrationText, DEFAULT_CROSS_CALIBRATION_URL, loadCrossCalibration } from '../crossCalibration';

const USAGE = 'usage: npm run detect -- [--seed N] [--seconds S] [--eval-seconds S] [--players N] [--calibration-matches N] [--eval-matches N] [--honest N] [--sim-runs N] [--strengths 1,0.75,0.5,0.25] [--default-strength S] [--html file] [--write-calibration | --shipped-calibration] [--json]; npm run detect -- --labels [--store file|url] [--write-calibration] [--json]\n'
  + '       npm run detect -- --matches N [--seed N] [--seconds S] [--players N] [--persons N] [--calibration-cheaters N] [--per-profile N] [--default-strength S] [--write-calibration | --shipped-calibration] [--json]';

interface Args { one: DetectOptions; cross: CrossDetectOptions | null; html: string | null; write: boolean; shipped: boolean; json: boolean; simRuns: number | null }

function parse(argv: string[], one: DetectOptions): Args {
  const a: Args = { one, cross: null, html: null, write: false, shipped: false, json: false, simRuns: null };
  const cross: Partial<CrossDetectOptions> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v)) throw new Error(`${arg} needs a number. ${USAGE}`);
      return v;
    };
    if (arg === '--seed') one.seed = cross.seed = num();
    else if (arg === '--seconds') one.seconds = cross.seconds = num();
    else if (arg === '--players') one.players = cross.players = num();
    else if (arg === '--default-strength') one.defaultStrength = cross.strength = num();
    else if (arg === '--eval-seconds') one.evalSeconds = num();
    else if (arg === '--calibration-matches') one.calibrationMatches = num();
    else if (arg === '--eval-matches') one.matchesPerStrength = num();
    else if (arg === '--honest') one.honestPerMatch = num();
    else if (arg === '--sim-runs') a.simRuns = num();
    else if (arg === '--matches') cross.matches = num();
    else if (arg === '--persons') cross.honest = num();
    else if (arg === '--calibration-cheaters') cross.calibrationCheaters = num();
    else if (arg === '--per-profile') cross.perProfile = num();
    else if (arg === '--strengths') {
      const list = (argv[++i] ?? '').split(',').map(Number);
      if (list.length === 0 || !list.every((s) => s >= 0 && s <= 1)) throw new Error(`--strengths takes numbers in [0, 1] separated by commas. ${USAGE}`);
      one.strengths = list;
    } else if (arg === '--html') a.html = argv[++i] ?? null;
    else if (arg === '--write-calibration') a.write = true;
    else if (arg === '--shipped-calibration') a.shipped = true;
    else if (arg === '--json') a.json = true;
    else throw new Error(`unknown option ${arg}. ${USAGE}`);
  }
  if (a.write && a.shipped) throw new Error(`--write-calibration calibrates: leave out --shipped-calibration. ${USAGE}`);
  if (cross.matches !== undefined) {
    if (!(cross.matches >= 1)) throw new Error(`--matches needs at least 1. ${USAGE}`);
    a.cross = { ...one, ...cross } as CrossDetectOptions;
  }
  return a;
}

const pct = (x: number) => `${(100 * x).toFixed(0)}%`;

function printOne(r: DetectionResult): void {
  const strengths = Object.keys(r.profiles[0]?.byStrength ?? {});
  console.log(`detection: ${r.honest.players} held-out honest players, ${r.honest.flagged} flagged (${(100 * r.honest.rate).toFixed(1)}%); calibration: ${r.calibration.source}, score threshold ${r.calibration.scoreThreshold.toFixed(2)}; evaluation matches of ${r.evalSeconds} s`);
  console.log(`${'profile'.padEnd(15)}${strengths.map((s) => `s=${s}`.padStart(14)).join('')}   target ${pct(r.target)} at s=${r.defaultStrength}`);
  for (const p of r.profiles) {
    console.log(`${p.profile.padEnd(15)}${strengths.map((s) => { const c = p.byStrength[s]!; return `${pct(c.share)} (${c.flagged}/${c.players})`.padStart(14); }).join('')}   ${p.meetsTarget ? 'met' : `MISSED by ${(100 * p.shortBy).toFixed(0)} points`}`);
  }
  console.log(`elapsed ${(r.elapsedMs / 1000).toFixed(1)} s`);
}

/** The cross-match run's JSON line: what a reader of the command wants first, then the thresholds. */
function crossJson(r: CrossDetectResult): object {
  const profiles: Record<string, object> = {};
  for (const [k, p] of Object.entries(r.profiles)) profiles[k] = { strength: p.strength, matchesToDetect90: p.matchesToDetect90, detectionRateAt5: p.detectionRateAt5, persons: p.persons, byMatches: p.byMatches };
  return {
    honestPlayers: r.honestPlayers, falsePositiveRatePerPlayer: r.falsePositiveRatePerPlayer, profiles,
    falsePositiveByMatches: r.falsePositiveByMatches, honestTopByMatches: r.honestTopByMatches.map((x) => Math.floor(x * 100) / 100), matches: r.matches, seconds: r.seconds, players: r.players, seed: r.seed,
    calibrationHonestPlayers: r.calibration.honestPlayers, calibrationHonestFlagged: r.calibrationHonestFlagged, thresholds: r.calibration.thresholds,
    matchesPlayed: r.matchesPlayed, elapsedS: Math.round(r.elapsedMs / 100) / 10,
  };
}

function printCross(r: CrossDetectResult): void {
  console.log(`detection across matches: ${r.honestPlayers} held-out honest persons x ${r.matches} matches of ${r.seconds} s, ${pct(r.falsePositiveRatePerPlayer)} flagged within ${r.matches} (${r.falsePositiveByMatches.map(pct).join(', ')} within 1..${r.matches})`);
  console.log(`calibration: ${r.calibration.source}; thresholds ${r.calibration.thresholds.map((t) => t.toFixed(2)).join(', ')}; highest held-out honest scores ${r.honestTopByMatches.map((t) => t.toFixed(2)).join(', ')}`);
  console.log(`${'profile'.padEnd(15)}${r.falsePositiveByMatches.map((_, k) => `k=${k + 1}`.padStart(7)).join('')}   matches to ${pct(r.target)}`);
  for (const [name, p] of Object.entries(r.profiles)) console.log(`${name.padEnd(15)}${p.byMatches.map((s) => pct(s).padStart(7)).join('')}   ${p.matchesToDetect90 ?? `more than ${r.matches}`}`);
  console.log(`${r.matchesPlayed} matches, elapsed ${(r.elapsedMs / 1000).toFixed(1)} s`);
}

/**
 * `--labels [--store file|url] [--write-calibration] [--json]`: the reviewers' labels in the evidence
 * store back into the score across matches (server/evidence/labels.ts): the labelled players scored,
 * the thresholds a clean player passes raised above it, what changed; --write-calibration stores it.
 */
async function labels(argv: string[]): Promise<number> {
  let target: string | undefined;
  let write = false, json = false;
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i]!;
    if (x === '--labels') continue;
    if (x === '--store') target = argv[++i];
    else if (x === '--write-calibration') write = true;
    else if (x === '--json') json = true;
    else throw new Error(`${x} does not go with --labels: npm run detect -- --labels [--store file|url] [--write-calibration] [--json]`);
  }
  const { EvidenceStore } = await import('../../evidence/store');
  const { recalibrateFromLabels } = await import('../../evidence/labels');
  const store = await EvidenceStore.open(target);
  try {
    const r = await recalibrateFromLabels(store, loadCrossCalibration(DEFAULT_CROSS_CALIBRATION_URL));
    const { calibration, ...report } = r;
    if (!json) {
      console.log(`labels: ${r.labelled.clean} clean, ${r.labelled.cheater} cheater, ${r.labelled.unsure} unsure; scored ${r.before.length}`);
      console.log(`clean players flagged: ${r.cleanFlagged.before} before, ${r.cleanFlagged.after} after; cheaters flagged: ${r.cheatersFlagged.before} before, ${r.cheatersFlagged.after} after`);
      for (const x of r.raised) console.log(`threshold for ${x.matches} match(es): ${x.from.toFixed(3)} -> ${x.to.toFixed(3)} (clean player ${x.by})`);
      if (r.raised.length === 0) console.log('no threshold changed');
      if (r.missed.length > 0) console.log(`cheaters the score misses: ${r.missed.join(', ')}`);
    }
    if (write && r.raised.length > 0) {
      writeFileSync(DEFAULT_CROSS_CALIBRATION_URL, crossCalibrationText(calibration));
      if (!json) console.log('cross-match calibration written to server/behaviour/crossCalibration.json');
    }
    console.log(JSON.stringify(report));
    return 0;
  } finally {
    await store.close();
  }
}

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--labels')) return labels(argv);
  const world = await loadWorld(DEFAULT_LEVEL_PATH);
  const dir = join(tmpdir(), `hitreg-detect-${process.pid}`);
  const a = parse(argv, { world, levelPath: DEFAULT_LEVEL_PATH, dir });
  const onProgress = (w: string) => { if (process.stderr.isTTY) process.stderr.write(`\r${w.padEnd(50)}`); };
  if (a.cross !== null) {
    const o: CrossDetectOptions = { ...a.cross, world, levelPath: DEFAULT_LEVEL_PATH, dir, onProgress };
    if (a.shipped) o.crossCalibration = loadCrossCalibration(DEFAULT_CROSS_CALIBRATION_URL);
    const r = await runCrossDetection(o);
    if (process.stderr.isTTY) process.stderr.write('\n');
    if (!a.json) printCross(r);
    if (a.write) {
      writeFileSync(DEFAULT_CROSS_CALIBRATION_URL, crossCalibrationText(r.calibration));
      if (!a.json) console.log('cross-match calibration written to server/behaviour/crossCalibration.json');
    }
    console.log(JSON.stringify(crossJson(r)));
    await closeAuditWorkers();
    return 0;
  }
  const o = a.one;
  if (a.shipped) o.calibration = DEFAULT_CALIBRATION;
  o.simRuns = SIM_CALIBRATION_RUNS.slice(0, a.simRuns ?? (a.write ? SIM_CALIBRATION_RUNS.length : 0));
  let example: AuditResult | null = null;
  o.onProgress = onProgress;
  o.onAudit = (au, s) => { if (s === (o.defaultStrength ?? 0.5)) example = au; };
  const r = await runDetection(o);
  if (process.stderr.isTTY) process.stderr.write('\n');
  if (!a.json) printOne(r);
  if (a.write) {
    writeFileSync(DEFAULT_CALIBRATION_URL, calibrationText(r.calibration));
    if (!a.json) console.log('calibration written to server/behaviour/calibration.json');
  }
  if (a.html !== null && example !== null) {
    writeFileSync(a.html, htmlFor(example, r));
    if (!a.json) console.log(`report written to ${a.html}`);
  }
  console.log(JSON.stringify(r));
  await closeAuditWorkers();
  return 0;
}

main(process.argv.slice(2)).then((c) => { process.exitCode = c; }, (e) => { console.error(`detect: ${(e as Error).message}`); process.exitCode = 2; });
