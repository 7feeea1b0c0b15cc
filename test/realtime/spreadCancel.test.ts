// Spread cancelling against the real room: a spreadCancel cheater at full strength beside honest
// bots (half of them shotgunners) plays until 16 of its shotgun pulls have their verdicts (the
// flag needs 12; a loaded machine gave 18 in 150 s of play). Its pulls
// are honest pattern pulls: every one accepted, none SPREAD_MISMATCH, the framed pellets' centroid
// on its aim point. The audit of the match log then flags it: the centroid's lean from the aim
// goes with the target's offset (pattern.ts; honest players' z about N(0, 1)), and no honest player
// carries the spread-cancel flag.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSimulation } from '../../client-sim/simulate';
import { Intent, type ShotLog } from '../../client-sim/bot';
import { auditMatchLog, closeAuditWorkers } from '../../server/behaviour/audit';
import { DEFAULT_THRESHOLDS, FlagRule } from '../../server/behaviour/flags';
import { VerdictKind, VerdictReason } from '../../shared/validate/verdict';

const dir = mkdtempSync(join(tmpdir(), 'spread-cancel-'));
afterAll(async () => {
  await closeAuditWorkers();
  rmSync(dir, { recursive: true, force: true });
});

const PULLS = 16;
const cancelled = (l: readonly ShotLog[]) => l.filter((s) => s.profile === 'spreadCancel' && s.intent === Intent.INHUMAN);

describe('spread cancelling in a simulated match', () => {
  it('is accepted pull by pull, and the audit flags it while no honest player is flagged', async () => {
    const logs: ShotLog[] = [];
    const report = await runSimulation({
      bots: 6, profiles: ['spreadCancel:1'], seconds: 4, seed: 31, rttMs: 60, jitterMs: 10, loss: 0, audit: false,
      until: (l) => cancelled(l).filter((s) => s.verdict !== null).length >= PULLS, maxSeconds: 300,
      // Tough players: fights last, so the cheater's pulls come quickly.
      server: { matchLogDir: dir, maxHealth: 1000 },
      onShots: (l) => logs.push(...l),
    });
    const pulls = cancelled(logs).filter((s) => s.verdict !== null);
    expect(pulls.length).toBeGreaterThanOrEqual(PULLS);
    for (const s of pulls) {
      expect(s.verdict!.kind, s.verdict!.reasonName).not.toBe(VerdictKind.REJECTED);
      expect(s.verdict!.reason).not.toBe(VerdictReason.SPREAD_MISMATCH);
    }
    expect(report.byProfile.spreadCancel!.stats.meanCentroidOffTargetM).toBeLessThan(1e-6);

    const file = readdirSync(dir).find((f) => f.endsWith('.hrml'))!;
    const r = await auditMatchLog(join(dir, file), { calibration: null });
    expect(r.mismatches).toEqual([]);
    const slot = pulls[0]!.slot;
    const honest = new Set(logs.filter((s) => s.profile === 'honest').map((s) => s.slot));
    const why = JSON.stringify(r.players.map((p) => ({ p: p.player, honest: honest.has(p.player), pulls: p.patternPulls, r: p.patternCorrelation, z: p.patternZ, flags: p.flags.map((f) => f.rule) })));
    const cheater = r.players.find((p) => p.player === slot)!;
    expect(cheater.patternPulls, why).toBeGreaterThanOrEqual(DEFAULT_THRESHOLDS.minPatternPulls);
    expect(cheater.patternZ, why).toBeGreaterThan(DEFAULT_THRESHOLDS.maxPatternZ);
    expect(cheater.flags.map((f) => f.rule), why).toContain(FlagRule.SPREAD_CANCEL);
    for (const p of r.players) if (honest.has(p.player)) expect(p.flags.map((f) => f.rule), why).not.toContain(FlagRule.SPREAD_CANCEL);
  }, 420_000);
});
