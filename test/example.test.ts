/**
 * examples/team-room, run as a newcomer would (`npm run example`): its own package installed with
 * hitreg by path, a two-team Colyseus room on hitreg/server, four soldiers over real WebSockets
 * predicting with hitreg, the log audited with hitreg/audit. Its one JSON line must show every kind
 * of verdict it fires for (a rocket's and a grenade's launch among them, each exploded and re-flown by the audit), every prediction agreeing, no ghost hit and a log that replays exactly.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('examples/team-room', () => {
  it('npm run example: hits, misses, a friendly-fire shot, one at a player who left, a rocket and a grenade, audited clean', () => {
    const r = spawnSync('npm', ['run', '--silent', 'example'], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });
    if (r.status !== 0) throw new Error(`npm run example exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
    const last = r.stdout.trim().split('\n').pop()!;
    const out = JSON.parse(last) as {
      shots: number; verdicts: Record<string, number>; predictedAgree: number; auditMismatches: number; ghostHits: number;
      projectiles: { launched: number; exploded: number }; auditFlights: number;
    };
    console.log(last);
    expect(out.ghostHits).toBe(0);
    expect(out.auditMismatches).toBe(0);
    expect(out.shots).toBeGreaterThanOrEqual(10);
    expect(out.verdicts.OK_HIT).toBeGreaterThanOrEqual(4);
    expect(out.verdicts.OK_MISS).toBeGreaterThanOrEqual(3);
    expect(out.verdicts.OK_FRIENDLY).toBe(1);
    expect(out.verdicts.MALFORMED).toBe(1);
    // A rocket and a grenade: launched, flown by the match, exploded, re-flown by the audit.
    expect(out.verdicts.OK_LAUNCH).toBe(2);
    expect(out.projectiles).toEqual({ launched: 2, exploded: 2 });
    expect(out.auditFlights).toBe(2);
    // The soldiers stand still: every prediction is the verdict.
    expect(out.predictedAgree).toBe(1);
  }, 200_000);
});
