/**
 * Reviewers' labels back into the score across matches (server/evidence/labels.ts, `npm run detect
 * -- --labels`): players of real synthetic matches in a SQLite store, one labelled clean and one
 * cheater. Against a calibration whose thresholds flag everyone, the clean player raises the
 * threshold for its number of matches just above its score and is no longer flagged; the score of
 * each player equals the cross-match score of its audits computed directly; thresholds never fall.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorld, DEFAULT_LEVEL_PATH } from '../server/level/gltf';
import { synthesizeMatch } from '../server/behaviour/synth/synthMatch';
import { Behaviour } from '../client-sim/human/profiles';
import { auditMatchLog, closeAuditWorkers, type AuditResult } from '../server/behaviour/audit';
import { evidenceFromAudit } from '../server/evidence/evidence';
import { EvidenceStore } from '../server/evidence/store';
import { recalibrateFromLabels, LABEL_MARGIN } from '../server/evidence/labels';
import { scoreAcrossMatches } from '../server/behaviour/crossMatch';
import { DEFAULT_CROSS_CALIBRATION_URL, loadCrossCalibration } from '../server/behaviour/crossCalibration';
import { readFileSync } from 'node:fs';

const dir = mkdtempSync(join(tmpdir(), 'evidence-labels-'));
const IDS = [
  { slot: 0, playerId: 'honest-a', verified: true },
  { slot: 1, playerId: 'aimbot-b', verified: true },
  { slot: 2, playerId: 'honest-c', verified: true },
];
const audits: AuditResult[] = [];
let store: EvidenceStore;

beforeAll(async () => {
  const world = await loadWorld();
  store = await EvidenceStore.open(join(dir, 'evidence.sqlite'));
  for (const seed of [3, 4]) {
    const path = join(dir, `m${seed}.hrml`);
    await synthesizeMatch({ world, levelPath: DEFAULT_LEVEL_PATH, path, seed, players: 3, durationS: 30, cheats: { 1: Behaviour.SILENT_AIM }, strength: 1, identities: IDS });
    const a = await auditMatchLog(path);
    audits.push(a);
    await store.record(evidenceFromAudit(a, new Uint8Array(readFileSync(path))));
  }
});

afterAll(async () => {
  await store?.close();
  await closeAuditWorkers();
  rmSync(dir, { recursive: true, force: true });
});

describe('labels recalibrate the score across matches', () => {
  it('a clean player the score flags raises its threshold just above it; scores equal the direct computation; thresholds never fall', async () => {
    const shipped = loadCrossCalibration(DEFAULT_CROSS_CALIBRATION_URL);
    const low = { ...shipped, thresholds: shipped.thresholds.map(() => -1) };
    await store.addLabel({ playerId: 'honest-a', verified: true, label: 'clean', reviewer: 'rev1' });
    await store.addLabel({ playerId: 'aimbot-b', verified: true, label: 'unsure', reviewer: 'rev1' });
    await store.addLabel({ playerId: 'aimbot-b', verified: true, label: 'cheater', reviewer: 'rev2' });
    const r = await recalibrateFromLabels(store, low);
    expect(r.labelled).toEqual({ clean: 1, cheater: 1, unsure: 0 });
    // Each score equals the cross-match score of the player's audits, computed without the store.
    for (const s of r.before) {
      const slot = IDS.find((i) => i.playerId === s.playerId)!.slot;
      const direct = scoreAcrossMatches(audits.map((a, k) => {
        const p = a.players.find((x) => x.player === slot)!;
        return { match: String(k), behaviour: p.behaviour === null ? null : { score: p.behaviour.score, measures: p.behaviour.measures }, flags: p.flags };
      }), low);
      expect(s.score).toBeCloseTo(direct.score, 9);
      expect(s.matches).toBe(2);
    }
    const clean = r.before.find((s) => s.playerId === 'honest-a')!;
    expect(clean.flagged).toBe(true);
    expect(r.raised).toEqual([{ matches: 2, from: -1, to: clean.score + LABEL_MARGIN, by: 'honest-a' }]);
    expect(r.cleanFlagged).toEqual({ before: 1, after: 0 });
    expect(r.thresholdsAfter.every((t, k) => t >= r.thresholdsBefore[k]!)).toBe(true);
    const cheater = r.after.find((s) => s.playerId === 'aimbot-b')!;
    expect(cheater.flagged).toBe(cheater.score > clean.score + LABEL_MARGIN);
    expect(r.missed).toEqual(cheater.flagged ? [] : ['aimbot-b']);
    // With the shipped thresholds a clean player under them changes nothing.
    const again = await recalibrateFromLabels(store, shipped);
    if (!again.before.find((s) => s.playerId === 'honest-a')!.flagged) expect(again.raised).toEqual([]);
  });
});
