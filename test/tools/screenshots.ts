/**
 * `npm run screenshots`: the README's pictures taken again from the current build. The npm script
 * builds dist/ first when a source is newer; this file starts a game server on a free port with the
 * default level (debug verdicts on, match logs in a temporary directory), stands one target player in
 * it, and drives Debian's Chromium (playwright-core) through three views:
 *   web/screenshots/web-play.png    the page playing: a shotgun pull at the target, its pellets'
 *                                   tracers and hits, the loadout and net graph top right
 *   web/screenshots/web-debug.png   the impact view (?debug=1) after a few shots at the target
 *   web/screenshots/web-replay.png  the match-log viewer on that match's log, the pull selected
 * Each step waits on the page's own state (window.hitreg, window.replay), never on a fixed delay
 * alone. Exits 1 with the reason when a step fails.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { loadWorld } from '../../server/level/gltf';
import { findSpawnPoints } from '../../server/index';
import { HitZone } from '../../shared/rig/rig';
import { VerdictKind } from '../../shared/validate/verdict';
import { WeaponId } from '../../shared/weapons';
import { MatchLogView } from '../../web/src/replayLog';
import { launchChromium } from '../helpers/chromium';
import { startTestServer, TestPlayer, type TestServer } from '../helpers/server';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT = join(ROOT, 'web', 'screenshots');
const SHOTS_FIRED = 4;

type Spawn = ReturnType<typeof findSpawnPoints>[number];

/** Two spawn points a few metres apart with a clear line of sight at chest height: the target's and the pages'. */
async function scene(): Promise<{ world: Awaited<ReturnType<typeof loadWorld>>; spawns: Spawn[] }> {
  const world = await loadWorld();
  const all = findSpawnPoints(world, 16);
  const a = all[0]!;
  const b = all.reduce((best, s) => {
    const d = (s.x - a.x) ** 2 + (s.z - a.z) ** 2, e = (best.x - a.x) ** 2 + (best.z - a.z) ** 2;
    return d > e && d < 64 && !world.anyHit(a.x, a.y + 1.4, a.z, s.x, s.y + 1.4, s.z) ? s : best;
  }, all[1]!);
  return { world, spawns: [a, b] };
}

/** Leaves the room from the page (a consented leave frees the seat at once) and waits until the room has let the seat go. */
async function leave(page: Page, ts: TestServer): Promise<void> {
  const slot = await page.evaluate(`window.hitreg.net.welcome.slot`) as number;
  await page.evaluate(`window.hitreg.net.room.leave()`);
  await page.close();
  const room = ts.server.rooms.values().next().value!;
  const deadline = Date.now() + 30_000;
  while (room.seats[slot] !== null) {
    if (Date.now() > deadline) throw new Error(`seat ${slot} still taken after the page left`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function openGame(browser: Browser, port: number, query: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 960, height: 600 } });
  page.on('pageerror', (e) => { throw new Error(`the page threw: ${String(e)}`); });
  await page.goto(`http://127.0.0.1:${port}/${query}`);
  await page.waitForFunction(`window.hitreg?.game?.view.snapshots > 10 && window.hitreg.net.clock.measured >= 3`, undefined, { timeout: 30_000 });
  return page;
}

/** Turns the page's view to the target's upper torso (slot 0) as drawn now. */
async function aim(page: Page): Promise<void> {
  const ok = await page.evaluate(`window.hitreg.game.aimAt(0, ${HitZone.UPPER_TORSO}, performance.now())`);
  if (ok !== true) throw new Error('the page does not see the target to aim at');
}

async function play(browser: Browser, ts: TestServer): Promise<void> {
  const page = await openGame(browser, ts.port, '?name=web');
  // The shotgun (key 4), drawn, then one pull at the target once the verdict is in.
  await page.keyboard.press('Digit4');
  await page.waitForFunction(`window.hitreg.game.equipped === ${WeaponId.SHOTGUN} && window.hitreg.net.clock.serverNow(performance.now()) > window.hitreg.game.drawEndMs`, undefined, { timeout: 15_000 });
  // The net graph samples every 250 ms: wait for a sample that has seen the server's tick rate.
  await page.waitForFunction(`/tick \\d+\\/\\d+ Hz/.test(document.getElementById('netgraph').textContent)`, undefined, { timeout: 30_000 });
  await page.waitForFunction(`(() => { const g = window.hitreg.game; return g.aimAt(0, ${HitZone.UPPER_TORSO}, performance.now()) && g.fire(performance.now()) !== null; })()`, undefined, { timeout: 15_000 });
  await page.waitForFunction(`window.hitreg.game.shots.at(-1).verdict !== null`, undefined, { timeout: 15_000 });
  await page.waitForTimeout(150);
  await page.screenshot({ path: join(OUT, 'web-play.png') });
  await leave(page, ts);
}

async function debug(browser: Browser, ts: TestServer): Promise<void> {
  const page = await openGame(browser, ts.port, '?debug=1&name=web');
  for (let i = 1; i <= SHOTS_FIRED; i++) {
    // Aim and pull the trigger on every frame until the page fires (it holds fire until its
    // weapon's fire clock allows), then wait for the server's verdict on that shot.
    await page.waitForFunction(`(() => { const g = window.hitreg.game; return g.aimAt(0, ${HitZone.UPPER_TORSO}, performance.now()) && g.fire(performance.now()) !== null; })()`, undefined, { timeout: 15_000 });
    await page.waitForFunction(`window.hitreg.game.shots.length >= ${i} && window.hitreg.game.shots[${i - 1}].verdict !== null`, undefined, { timeout: 15_000 });
  }
  // A refused shot shows red in the picture: say so, so that whoever runs this can take it again.
  const reasons = await page.evaluate(`window.hitreg.game.shots.map((s) => s.verdict.reasonName + (s.agreed ? '' : ' (prediction corrected)'))`) as string[];
  console.log(`impact view: the server's verdicts: ${reasons.join(', ')}`);
  await page.waitForTimeout(200);
  await page.screenshot({ path: join(OUT, 'web-debug.png') });
  await leave(page, ts);
}

async function replay(browser: Browser, ts: TestServer, logPath: string): Promise<void> {
  const log = MatchLogView.parse(new Uint8Array(readFileSync(logPath)));
  const hit = log.shots.find((s) => s.verdict.kind === VerdictKind.HIT && s.verdict.weapon === WeaponId.SHOTGUN) ?? log.shots.find((s) => s.verdict.kind === VerdictKind.HIT);
  if (hit === undefined) throw new Error(`no hit in ${logPath}`);
  const page = await browser.newPage({ viewport: { width: 1100, height: 640 } });
  page.on('pageerror', (e) => { throw new Error(`the viewer threw: ${String(e)}`); });
  await page.goto(`http://127.0.0.1:${ts.port}/replay.html?shot=${hit.shooter}:${hit.seq}`);
  await page.setInputFiles('#file', logPath);
  await page.waitForFunction(`window.replay?.selected === ${hit.index}`, undefined, { timeout: 30_000 });
  const detail = (await page.textContent('#detail')) ?? '';
  if (!detail.includes('the same verdict, bit for bit')) throw new Error(`the viewer did not confirm the verdict: ${detail}`);
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, 'web-replay.png') });
  await page.close();
}

/** Runs one view's steps; a failure says which view it was. */
async function step(name: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (e) {
    throw new Error(`${name}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
  }
  console.log(`${name}: done`);
}

async function main(): Promise<void> {
  const logs = mkdtempSync(join(tmpdir(), 'hitreg-screenshots-'));
  const { world, spawns } = await scene();
  // Slot 0 (the target) at the first spawn point; the pages, one after the other, at the second.
  const ts = await startTestServer({ level: world, spawnPoints: spawns, debugVerdicts: true, maxPlayers: 4, respawnDelayMs: 60_000, maxHealth: 1000, matchLogDir: logs });
  let browser: Browser | undefined;
  try {
    mkdirSync(OUT, { recursive: true });
    const target = await TestPlayer.create(ts.url, { name: 'target', interpDelayMs: 100 });
    browser = await launchChromium();
    await step('play view', () => play(browser!, ts));
    await step('impact view', () => debug(browser!, ts));
    await target.leave();
    // The room is disposed once empty: its match log then has its end record.
    const deadline = Date.now() + 30_000;
    while (ts.server.rooms.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const file = readdirSync(logs).find((f) => f.endsWith('.hrml'));
    if (file === undefined) throw new Error('the room wrote no match log');
    await step('match-log viewer', () => replay(browser!, ts, join(logs, file)));
    console.log(`wrote ${['web-play.png', 'web-debug.png', 'web-replay.png'].map((f) => join('web', 'screenshots', f)).join(', ')}`);
  } finally {
    await browser?.close();
    await ts.close();
    rmSync(logs, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(`screenshots: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
