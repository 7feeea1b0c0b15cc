// `npm run detect` as a command (server/behaviour/synth/detectCli.ts): with --matches N --json its
// one line holds the held-out honest persons, their false-positive rate per player and, per
// inhuman profile, its strength, the matches it took to catch 90% of its persons and the share
// caught within five; arguments it cannot use are refused. A tiny run (short matches, few persons):
// the numbers themselves come from the full command.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { INHUMAN_PROFILES } from '../server/behaviour/synth/synthMatch';

const cli = fileURLToPath(new URL('../server/behaviour/synth/detectCli.ts', import.meta.url));

/** Runs the command to its end; its stdout, stderr and exit code. */
function run(args: string[]): Promise<{ out: string; err: string; code: number | null }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { err += d; });
    p.on('close', (code) => resolve({ out, err, code }));
  });
}

describe('npm run detect -- --matches N --json', () => {
  it('prints one JSON line with the per-player false-positive rate and, per profile, matches to 90% and the share within five', async () => {
    const r = await run(['--matches', '5', '--seconds', '8', '--persons', '16', '--calibration-cheaters', '0', '--per-profile', '1', '--json']);
    expect(r.code, r.err).toBe(0);
    const lines = r.out.trim().split('\n');
    expect(lines.length).toBe(1);
    const j = JSON.parse(lines[0]!);
    expect(j.honestPlayers).toBe(16);
    expect(j.falsePositiveRatePerPlayer).toBeGreaterThanOrEqual(0);
    expect(j.falsePositiveRatePerPlayer).toBeLessThanOrEqual(1);
    expect(j.falsePositiveByMatches).toHaveLength(5);
    expect(Object.keys(j.profiles).sort()).toEqual([...INHUMAN_PROFILES].sort());
    for (const [name, p] of Object.entries(j.profiles) as [string, { strength: number; matchesToDetect90: number | null; detectionRateAt5: number; byMatches: number[] }][]) {
      expect(p.strength, name).toBe(0.5);
      expect(p.matchesToDetect90 === null || (Number.isInteger(p.matchesToDetect90) && p.matchesToDetect90 >= 1 && p.matchesToDetect90 <= 5), name).toBe(true);
      expect(p.detectionRateAt5, name).toBe(p.byMatches[4]);
      // Flagged within k matches can only grow with k.
      for (let k = 1; k < 5; k++) expect(p.byMatches[k]!, name).toBeGreaterThanOrEqual(p.byMatches[k - 1]!);
      if (p.matchesToDetect90 !== null) expect(p.byMatches[p.matchesToDetect90 - 1]!, name).toBeGreaterThanOrEqual(0.9);
    }
    expect(j.thresholds).toHaveLength(5);
    expect(j.honestTopByMatches).toHaveLength(5);
    // No held-out honest person flagged within five matches has all its scores under the thresholds.
    if (j.falsePositiveRatePerPlayer === 0) j.honestTopByMatches.forEach((t: number, k: number) => expect(t).toBeLessThan(j.thresholds[k]));
    expect(j.matchesPlayed).toBe(5 * (1 + 2));
  }, 120_000);

  it('refuses --matches 0 and an --eval-matches (the per-strength evaluation matches, formerly --matches) without its number', () => {
    const bad = spawnSync(process.execPath, ['--import', 'tsx', cli, '--matches', '0'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--matches needs at least 1/);
    const noNumber = spawnSync(process.execPath, ['--import', 'tsx', cli, '--eval-matches'], { encoding: 'utf8' });
    expect(noNumber.status).toBe(2);
    expect(noNumber.stderr).toMatch(/--eval-matches needs a number/);
  });
});
