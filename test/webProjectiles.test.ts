/**
 * Rockets and grenades in the browser page, in Debian's Chromium (playwright-core): a real game
 * server (its default loadout: keys 6 and 7 are the rocket and the grenade) serves the built page
 * (dist/web), and a real WebSocket client stands in the room as the target. The page and the target
 * stand at two spawn points under the open sky. The page fires a rocket up (it flies its whole life
 * and expires) and a grenade at the target (it blows up): each is predicted with the shared
 * LaunchPredictor and drawn at once, the server's synced copy is hidden while the prediction flies,
 * and the server's end (Msg.PROJECTILE for the page's slot and seq) is drawn when the render time
 * reaches it (the grenade's blast). The target's own rocket reaches the page as a synced
 * projectile, drawn from its snapshots, and its end reaches both. What the page drew is read from
 * `window.hitreg.game.projectiles` (web/src/projectiles.ts). Screenshot: dist/screenshots/web-projectiles.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { loadWorld } from '../server/level/gltf';
import { findSpawnPoints } from '../server/index';
import { MANNEQUIN_RIG } from '../server/rig/mannequin';
import { HitZone } from '../shared/rig/rig';
import { WeaponId } from '../shared/weapons';
import { VerdictKind } from '../shared/validate/verdict';
import { ShotAction } from '../shared/protocol/shot';
import { FlightEventKind } from '../shared/projectile/flight';
import { launchChromium } from './helpers/chromium';
import { startTestServer, TestPlayer, waitFor, type TestServer } from './helpers/server';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SHOTS = join(ROOT, 'dist', 'screenshots');

/** The page's rocket goes up at this pitch (yaw 0), radians. */
const UP_PITCH = 1.55;

let ts: TestServer;
let browser: Browser;
let target: TestPlayer;

beforeAll(async () => {
  const world = await loadWorld();
  // Two spawn points in sight of each other under the open sky: 100 m clear along the page's
  // rocket (five parallel rays 0.35 m apart: a rocket is a sphere of 0.3 m), the farthest such pair.
  const [ux, uy, uz] = [0, Math.sin(UP_PITCH), Math.cos(UP_PITCH)];
  const clear = (x: number, y: number, z: number) => [[0, 0], [0.35, 0], [-0.35, 0], [0, 0.35], [0, -0.35]]
    .every(([ox, oz]) => !world.anyHit(x + ox!, y, z + oz!, x + ox! + 100 * ux, y + 100 * uy, z + oz! + 100 * uz));
  const open = findSpawnPoints(world, 16).filter((s) => clear(s.x, s.y + MANNEQUIN_RIG.eyeHeight, s.z));
  let pair: [typeof open[number], typeof open[number]] | null = null;
  const apart = (p: { x: number; z: number }, q: { x: number; z: number }) => Math.hypot(p.x - q.x, p.z - q.z);
  for (const p of open) for (const q of open) {
    if (world.anyHit(p.x, p.y + 1.4, p.z, q.x, q.y + 1.4, q.z)) continue;
    if (pair === null || apart(p, q) > apart(pair[0], pair[1])) pair = [p, q];
  }
  if (pair === null) throw new Error('the level has no two spawn points under the open sky in sight of each other');
  ts = await startTestServer({ level: world, spawnPoints: pair, maxPlayers: 4, respawnDelayMs: 60_000, maxHealth: 1000 });
  target = await TestPlayer.create(ts.url, { name: 'target', interpDelayMs: 100 });
  browser = await launchChromium();
  mkdirSync(SHOTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await target?.leave();
  await ts?.close();
});

async function openPage(query: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 960, height: 600 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`http://127.0.0.1:${ts.port}/${query}`);
  await page.waitForFunction(`window.hitreg?.game?.view.snapshots > 10 && window.hitreg.net.clock.measured >= 3`, undefined, { timeout: 30_000 });
  expect(errors).toEqual([]);
  return page;
}

describe('rockets and grenades in the page', () => {
  it('6 and 7 take them; a launch is drawn at once from its prediction, synced ones are drawn, each end shows', async () => {
    const page = await openPage('?name=web-launcher');
    try {
      await launches(page);
    } finally {
      await page.close();
    }
  });
});

/**
 * The page (slot 1) fires a rocket up and a grenade at the target (slot 0) while the target fires a
 * rocket straight up too: what the page draws of each, and the ends it hears of.
 */
async function launches(page: Page): Promise<void> {
  const slot = await page.evaluate(`window.hitreg.game.slot`) as number;
  expect(slot).toBe(1);
  const room = ts.server.rooms.values().next().value!;
  // The server's default loadout is DEFAULT_LOADOUT, then the rocket and the grenade: keys 6 and 7.
  expect(ts.server.config.validation.loadout.slice(5)).toEqual([WeaponId.ROCKET, WeaponId.GRENADE]);
  // The target's rocket, straight up (it flies while the page fires its own; checked last).
  const seat = room.seats[0]!;
  expect((await target.act(ShotAction.SWITCH, WeaponId.ROCKET, 1)).reasonName).toMatch(/^OK_/);
  await target.untilDrawn(WeaponId.ROCKET);
  const eye = [seat.move.x, seat.move.y + ts.server.rig.eyeHeight, seat.move.z] as const;
  const renderTimeMs = await target.renderNow(100);
  const fired0 = await target.shoot({ seq: 2, weapon: WeaponId.ROCKET, claimedTarget: -1, renderTimeMs, sx: eye[0], sy: eye[1], sz: eye[2], ex: eye[0], ey: eye[1] + 20, ez: eye[2] });
  expect(fired0.reasonName).toBe('OK_LAUNCH');

  // The page's rocket goes up (nearly straight: a long flight, it expires), its grenade at the target (it blows up).
  const aims = { [WeaponId.ROCKET]: `(g.yaw = 0, g.pitch = ${UP_PITCH}, true)`, [WeaponId.GRENADE]: `g.aimAt(0, ${HitZone.UPPER_TORSO}, performance.now())` };
  for (const [key, weapon] of [['Digit6', WeaponId.ROCKET], ['Digit7', WeaponId.GRENADE]] as const) {
    await page.keyboard.press(key);
    await page.waitForFunction(`window.hitreg.game.equipped === ${weapon}`, undefined, { timeout: 3000 });
    await waitFor(() => room.match.player(room.seats[slot]!.sessionId)!.weapons.equipped === weapon, `the server equipped weapon ${weapon}`);
    await page.waitForFunction(`window.hitreg.net.clock.serverNow(performance.now()) > window.hitreg.game.drawEndMs && window.hitreg.game.ammo > 0`, undefined, { timeout: 3000 });
    const explosionsBefore = await page.evaluate(`window.hitreg.game.projectiles.stats.explosions`) as number;
    // Aim and fire (again each frame until the rules let the page fire); keep what was drawn right
    // after, before any reply could arrive.
    await page.waitForFunction(`(() => {
      const g = window.hitreg.game;
      if (!${aims[weapon]}) return false;
      const s = g.fire(performance.now());
      if (s === null) return false;
      window.launch = { seq: s.seq, weapon: s.weapon, kind: s.predicted.kind, predicted: g.projectiles.stats.predicted, tracers: g.decor.counts(s.seq).tracers, judged: s.verdict !== null };
      return true;
    })()`, undefined, { timeout: 5000 });
    const fired = await page.evaluate(`window.launch`) as { seq: number; weapon: number; kind: number; predicted: number; tracers: number; judged: boolean };
    // Predicted as a launch and drawn at once as a projectile (no tracer).
    expect(fired).toMatchObject({ weapon, kind: VerdictKind.LAUNCH, tracers: 0, judged: false });
    expect(fired.predicted).toBeGreaterThan(0);
    // The server launched it too.
    await page.waitForFunction(`window.hitreg.game.shots.find((s) => s.seq === ${fired.seq})?.verdict != null`, undefined, { timeout: 3000 });
    const verdict = await page.evaluate(`(() => { const v = window.hitreg.game.shots.find((s) => s.seq === ${fired.seq}).verdict; return { reason: v.reasonName, projectile: v.projectile, rewindTimeMs: v.rewindTimeMs }; })()`) as { reason: string; projectile: number; rewindTimeMs: number };
    expect(verdict.reason).toBe('OK_LAUNCH');
    expect(verdict.projectile).toBeGreaterThanOrEqual(0);
    // The server's end arrives (PROJECTILE, for this slot and seq) and is drawn once the render time reaches it.
    await page.waitForFunction(`window.hitreg.game.projectiles.ends.some((v) => v.end.shooter === ${slot} && v.end.seq === ${fired.seq} && v.shownAt >= 0)`, undefined, { timeout: 10_000 });
    const seen = await page.evaluate(`(() => {
      const p = window.hitreg.game.projectiles, l = p.launches.get(${fired.seq});
      const v = p.ends.find((v) => v.end.shooter === ${slot} && v.end.seq === ${fired.seq});
      return { end: v.end, predictedEnd: l.predictedEnd, serverEnd: l.serverEnd !== null, hidden: p.hiddenOwn.includes(${fired.seq}), explosions: p.stats.explosions, predicted: p.stats.predicted };
    })()`) as { end: { id: number; weapon: number; kind: number; exploded: boolean; timeMs: number }; predictedEnd: { kind: number } | null; serverEnd: boolean; hidden: boolean; explosions: number; predicted: number };
    const flightMs = seen.end.timeMs - verdict.rewindTimeMs;
    console.log(`${weapon === WeaponId.ROCKET ? 'rocket' : 'grenade'}: server end kind ${seen.end.kind}${seen.end.exploded ? ' exploded' : ''} after ${flightMs.toFixed(0)} ms, predicted end ${seen.predictedEnd?.kind ?? 'none (the server end came first)'}, own synced copy hidden ${seen.hidden}`);
    expect(seen.end).toMatchObject({ id: verdict.projectile, weapon });
    expect(seen.serverEnd).toBe(true);
    // The prediction stopped: at its own end, or dropped at the server's.
    expect(seen.predicted).toBe(0);
    // Where the prediction reached its end, it ended as the server's did (the target stands still).
    if (seen.predictedEnd !== null) expect(seen.predictedEnd.kind).toBe(seen.end.kind);
    if (weapon === WeaponId.ROCKET) {
      // Up into the open: it expires (no blast) after its 5 s; all that time the page drew its
      // prediction and hid the server's copy of it.
      expect(seen.end).toMatchObject({ kind: FlightEventKind.EXPIRED, exploded: false });
      expect(seen.hidden).toBe(true);
    } else {
      // The grenade blows up, on the target or at its fuse, and the page drew the blast.
      expect(seen.end.exploded).toBe(true);
      expect(seen.explosions).toBe(explosionsBefore + 1);
      await page.screenshot({ path: join(SHOTS, 'web-projectiles.png') });
    }
  }

  // The target's rocket: synced to the page, drawn from its snapshots, its end seen by the page and by the target.
  await page.waitForFunction(`window.hitreg.game.projectiles.drawnSynced.includes('0:2') && window.hitreg.game.projectiles.ends.some((v) => v.end.shooter === 0 && v.end.seq === 2 && v.shownAt >= 0)`, undefined, { timeout: 10_000 });
  await target.until(() => target.projectileEnds.some((e) => e.shooter === 0 && e.seq === 2), 5000, 'the end of the target\'s rocket');
}
