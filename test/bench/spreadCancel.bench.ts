/**
 * The spread-cancel measure on simulated matches: honest bots (half of them shotgunners) beside
 * spreadCancel cheaters, a seeded match against a server in this process writing its match log,
 * which the audit then reads. Prints one JSON line per player with shotgun pulls: who it was
 * (honest or profile:strength), its pattern pulls, the across and up correlations of the
 * centroid's lean with the target's offset from the aim, their z-score (server/behaviour/pattern.ts),
 * the share of pulls whose centroid sat nearer the target than the aim, and its flags.
 * Run: `npx tsx test/bench/spreadCancel.bench.ts [bots] [seconds] [seed] [profile:strength ...]`
 * (default 12 90 1 spreadCancel:1 spreadCancel:0.5).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSimulation } from '../../client-sim/simulate';
import type { ShotLog } from '../../client-sim/bot';
import { auditMatchLog, closeAuditWorkers } from '../../server/behaviour/audit';

const [bots = '12', seconds = '90', seed = '1', ...named] = process.argv.slice(2);
const profiles = named.length > 0 ? named : ['spreadCancel:1', 'spreadCancel:0.5'];
const dir = mkdtempSync(join(tmpdir(), 'spread-cancel-'));
const who = new Map<number, string>();
await runSimulation({
  bots: Number(bots), seconds: Number(seconds), seed: Number(seed), rttMs: 60, jitterMs: 10, loss: 0, profiles,
  server: { matchLogDir: dir }, audit: false,
  onShots: (logs: readonly ShotLog[]) => {
    for (const s of logs) who.set(s.slot, s.profile === 'honest' ? 'honest' : `${s.profile}:${s.strength}`);
  },
});
const file = join(dir, readdirSync(dir).find((f) => f.endsWith('.hrml'))!);
const r = await auditMatchLog(file, { calibration: null });
const round = (x: number) => Math.round(1000 * x) / 1000;
for (const p of r.players) {
  if (p.patternPulls === 0) continue;
  console.log(JSON.stringify({
    bench: 'spreadCancel', seed: Number(seed), seconds: Number(seconds), slot: p.player, who: who.get(p.player) ?? '?', shots: p.shots, rejected: p.rejected,
    pulls: p.patternPulls, r: p.patternCorrelation.map(round), z: round(p.patternZ), nearer: round(p.patternNearer), flags: p.flags.map((f) => f.rule),
  }));
}
console.log(JSON.stringify({ bench: 'spreadCancel', seed: Number(seed), mismatches: r.mismatches.length, problems: r.problems.length }));
await closeAuditWorkers();
rmSync(dir, { recursive: true, force: true });
