/**
 * The match-log viewer: a real room writes a match log (hits, a miss, hostile payloads), then
 * - in Node, web/src/replayLog.ts reads every tick and shot of it and re-judges every shot from the
 *   scene it rebuilds out of the log: each verdict equals the recorded one bit for bit, and a hit's
 *   target is among the rewound poses;
 * - in Chromium, /replay.html opened with `?shot=<slot>:<seq>` (the audit report's link) and the
 *   log file selects that shot, draws it with the rewound hitboxes and says the verdict judged again
 *   in the page is the same; the audit report's link for that shot (htmlFor with a viewer address)
 *   is the address it was opened with. Screenshot: dist/screenshots/web-replay.png.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { loadWorld } from '../server/level/gltf';
import { findSpawnPoints } from '../server/index';
import { HitZone } from '../shared/rig/rig';
import { WeaponId } from '../shared/weapons';
import { VerdictKind, reasonName } from '../shared/validate/verdict';
import { MatchLogView } from '../web/src/replayLog';
import { launchChromium } from './helpers/chromium';
import { auditMatchLog, closeAuditWorkers } from '../server/behaviour/audit';
import { htmlFor } from '../server/behaviour/cli';
import { joinPair, roomClosed, shootAtZone, startTestServer, type TestServer } from './helpers/server';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'replay-view-'));
let ts: TestServer;
let logPath: string;
let recorded: string[] = [];

beforeAll(async () => {
  const world = await loadWorld();
  const spawns = findSpawnPoints(world, 16);
  ts = await startTestServer({ level: world, spawnPoints: [spawns[0]!, spawns[4]!], matchLogDir: dir, maxHealth: 1000, validation: { claimToleranceMs: 150 } });
  const [a, b] = await joinPair(ts.url);
  const roomId = a.room.roomId;
  await a.snapshotsPass(32); // more than 30 ticks in the log
  recorded.push(reasonName((await shootAtZone(a, ts, b.slot, 1, HitZone.UPPER_TORSO)).reason));
  await a.untilFireReady();
  recorded.push(reasonName((await shootAtZone(a, ts, b.slot, 2, HitZone.HEAD)).reason));
  recorded.push(reasonName((await shootAtZone(b, ts, a.slot, 1, HitZone.PELVIS)).reason));
  const before = a.verdicts.length;
  a.room.sendBytes('shot', new Uint8Array(20));
  a.sendShot(a.shot({ seq: 2, weapon: WeaponId.RIFLE, renderTimeMs: a.serverNow() - 100, sx: 0, sy: 1.6, sz: 0, ex: 0, ey: 1.6, ez: 10 }));
  await a.until(() => a.verdicts.length === before + 2, 3000, 'hostile verdicts');
  recorded.push(...a.verdicts.slice(before).map((v) => reasonName(v.reason)));
  const closed = roomClosed(ts, roomId);
  await a.leave();
  await b.leave();
  await closed;
  const files = readdirSync(dir).filter((f) => f.endsWith('.hrml'));
  expect(files).toHaveLength(1);
  logPath = join(dir, files[0]!);
});

afterAll(async () => {
  await ts?.close();
  await closeAuditWorkers();
  rmSync(dir, { recursive: true, force: true });
});

describe('match log viewer', () => {
  it('reads every tick and shot, and every shot judged again from the log equals the recorded verdict', async () => {
    const log = MatchLogView.parse(new Uint8Array(readFileSync(logPath)));
    expect(log.header.worldHash).toBe(ts.server.world.hash);
    expect(log.ticks).toBeGreaterThan(30);
    expect(log.shots.map((s) => reasonName(s.verdict.reason))).toEqual(recorded);
    expect(recorded.slice(0, 3)).toEqual(['OK_HIT', 'OK_HIT', 'OK_HIT']);
    for (const s of log.shots) {
      const again = log.rejudge(s.index, ts.server.world, ts.server.rig);
      expect(again.mismatches, `shot ${s.index}`).toEqual([]);
      if (s.verdict.kind === VerdictKind.HIT) {
        const p = again.rewound.get(s.verdict.target)!;
        expect(p).toBeDefined();
        // The pose the room rewound to for this shot: its hitbox is where the verdict says.
        expect(Math.hypot(p.x - s.verdict.x, p.z - s.verdict.z)).toBeLessThan(1.5);
      }
    }
    // Scrubbing: both players have a pose at the tick of the first shot, nobody at a tick past the end.
    const pose = (await import('../shared/lagcomp/pose')).createPlayerPose();
    expect(log.poseAt(pose, log.shots[0]!.tickIndex, 0) && log.poseAt(pose, log.shots[0]!.tickIndex, 1)).toBe(true);
    expect(log.poseAt(pose, log.ticks, 0)).toBe(false);
    expect(log.find(0, 2)?.index).toBe(1);
  });

  it('in Chromium: opened with ?shot=0:2 and the log, it shows that shot with its rewound hitboxes and the same verdict', async () => {
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1100, height: 640 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      // The audit report's link for this shot.
      const result = await auditMatchLog(logPath, { world: ts.server.world });
      const html = htmlFor(result, undefined, `http://127.0.0.1:${ts.port}/replay.html`);
      const href = /href="([^"]*shot=0:2[^"]*)"/.exec(html)?.[1]?.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)));
      expect(href).toBeDefined();
      await page.goto(href!);
      expect(await page.textContent('#drop')).toContain(`open ${logPath.split('/').pop()} to see player 0's shot seq 2`);
      await page.setInputFiles('#file', logPath);
      await page.waitForFunction(`window.replay?.selected === 1`, undefined, { timeout: 10_000 });
      const detail = await page.textContent('#detail');
      expect(detail).toContain('player 0 seq 2');
      expect(detail).toContain('OK_HIT');
      expect(detail).toContain('head');
      expect(detail).toContain('the same verdict, bit for bit');
      expect(await page.locator('.shot').count()).toBe(recorded.length);
      await page.waitForTimeout(200);
      await page.screenshot({ path: join(ROOT, 'dist', 'screenshots', 'web-replay.png') });
      expect(errors).toEqual([]);
    } finally {
      await browser?.close();
    }
  });
});
