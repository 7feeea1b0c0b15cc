/**
 * The browser page (dist/web in Debian's Chromium) while an enemy walks out from behind the test
 * level's wall and back, twice: the page at spawn A, the enemy (a real WebSocket client) behind
 * the wall at spawn C. After each frame drawn, the page's figure of the enemy stands in the scene
 * only while the page's newest state has the enemy or the render time is within its received tail:
 * one absent from it (withheld by the arena's fog of war) is drawn to the end of what was received,
 * then off the scene, no figure left where it was last seen, and a fresh one stands when it is
 * back. With fog on it goes (its tail drawn) and comes back at least twice; without fog it is drawn throughout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { walkPastWallAndBack } from './helpers/fogWalk';
import { launchChromium } from './helpers/chromium';
import { buildTestWorld, startTestServer, TestPlayer, TEST_SPAWNS, type TestServer } from './helpers/server';

let ts: TestServer;
let browser: Browser;

beforeAll(async () => {
  ts = await startTestServer({ level: buildTestWorld(), spawnPoints: TEST_SPAWNS, maxPlayers: 4 });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await ts?.close();
});

/** What the page holds of slot `s` at a frame: in its newest state, its received tail at the render time, figure in the scene, shown. */
interface Frame { present: boolean; tail: boolean; figure: boolean; shown: boolean }

/** Draws a frame now and says what the page holds of slot `s`. */
async function frame(page: Page, s: number): Promise<Frame> {
  return await page.evaluate(`(() => {
    const g = window.hitreg.game;
    const now = performance.now();
    g.draw(now);
    const f = g.figures[${s}];
    const present = g.view.present(${s});
    return { present, tail: !present && g.view.holdsAt(${s}, g.renderTime(now)), figure: f !== null && f !== undefined && f.group.parent === g.scene, shown: f !== null && f !== undefined && f.group.visible };
  })()`) as Frame;
}

describe('the page and an enemy that comes and goes', () => {
  it('stands its figure in the scene only while its newest state has the enemy, or its received tail is drawn', async () => {
    const page = await browser.newPage({ viewport: { width: 640, height: 400 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`http://127.0.0.1:${ts.port}/?name=web`);
    await page.waitForFunction(`window.hitreg?.game?.view.snapshots > 10 && window.hitreg.net.clock.measured >= 3`, undefined, { timeout: 30_000 });
    const roomId = await page.evaluate(`window.hitreg.net.room.roomId`) as string;
    const b = await TestPlayer.join(ts.url, roomId, { name: 'b', interpDelayMs: 100 });
    const c = await TestPlayer.join(ts.url, roomId, { name: 'c', interpDelayMs: 100 });
    for (const p of [b, c]) await p.until(() => p.pings >= 2 && p.slot >= 0 && p.snapshots.length >= 4, 5000, 'pings and state');
    expect(c.slot).toBe(2); // spawn C, behind the wall from the page at A
    const room = ts.server.rooms.get(roomId)!;
    const fog = ((room as unknown as { fog?: unknown }).fog ?? null) !== null; // the arena's FogFilter, when it has one and it is on
    const seen: Frame[] = [];
    let walking = true;
    const watch = (async () => {
      while (walking) seen.push(await frame(page, c.slot));
    })();
    const cx = () => room.match.scene.histories[2]!.sweepX;
    const comebacks = (): number => {
      let n = 0;
      for (let i = 1; i < seen.length; i++) if (seen[i]!.shown && !seen[i - 1]!.figure) n++;
      return n;
    };
    // With fog the walk repeats until the page has drawn a tail and seen the enemy come back twice:
    // on a loaded machine frames are sparse and a tail lasts about the interpolation delay.
    const enough = (): boolean => !fog || (comebacks() >= 2 && seen.some((f) => f.shown && f.tail));
    for (let walks = 0; walks < 6 && (walks === 0 || !enough()); walks++) {
      await walkPastWallAndBack(c, cx, () => c.snapshotsPass(20), () => c.snapshotsPass(40));
    }
    walking = false;
    await watch;
    expect(errors).toEqual([]);
    expect(seen.filter((f) => f.figure && !f.present && !f.tail)).toEqual([]); // never a figure of an absent enemy past its tail
    expect(seen.filter((f) => f.shown).length).toBeGreaterThan(10);
    if (fog) expect([comebacks() >= 2, seen.some((f) => f.shown && f.tail)]).toEqual([true, true]);
    else expect(seen.every((f) => f.present)).toBe(true);
    await b.leave();
    await c.leave();
    await page.close();
  });
});
