/**
 * The review page in Chromium, on a real game server (`evidence` and `monitor` options) over a
 * SQLite store filled by `npm run audit -- --store` from three synthetic logs
 * (test/helpers/reviewStore.ts): signed in as the monitor's user, the page lists the players in the
 * order of their score across matches (server/evidence/cross.ts, computed here from the store) with
 * that score and its threshold; the top player opened shows that score, its matches and offending
 * shots; an offending shot's link opens the replay viewer on that log (served by the review routes)
 * with that shot selected, a shot of that player (the log read again in Node says which seq), judged
 * again to the same verdict; the reviewer labels the player a cheater with a note, and the label is
 * in the store with the reviewer's name and the server's time, and on the page. A player id that
 * looks like HTML is shown as text. Screenshot: dist/screenshots/web-review.png.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { EvidenceStore } from '../server/evidence/store';
import { crossOfMatches, rankByCrossMatch } from '../server/evidence/cross';
import { DEFAULT_CROSS_CALIBRATION_URL, loadCrossCalibration } from '../server/behaviour/crossCalibration';
import { MatchLogView } from '../web/src/replayLog';
import { launchChromium } from './helpers/chromium';
import { startReviewFixture, type ReviewFixture } from './helpers/reviewServer';
import type { TestServer } from './helpers/server';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PASSWORD = 'review-page-secret-42';
const ALICE = { playerId: 'alice', verified: false };
let fixture: ReviewFixture;
let ts: TestServer;
let store: EvidenceStore;

beforeAll(async () => {
  fixture = await startReviewFixture('review-page-', PASSWORD);
  ({ ts, store } = fixture);
});

afterAll(async () => {
  await fixture?.close();
});

describe('review page in Chromium', () => {
  it('ranks, opens a player, follows an offending shot into the viewer, and labels the player a cheater', async () => {
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, httpCredentials: { username: 'admin', password: PASSWORD } });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
      await page.goto(`http://127.0.0.1:${ts.port}/review/`);
      await page.waitForSelector('tr.player');

      // The ranking across matches, in its order, with each player's score, threshold and flag.
      const cal = loadCrossCalibration(DEFAULT_CROSS_CALIBRATION_URL);
      const ranked = await rankByCrossMatch(store, cal);
      const rows = await page.$$eval('tr.player', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
      const fixed = (x: number | null) => (x === null ? '-' : x.toFixed(2));
      expect(rows.map((r) => r.slice(1, 7))).toEqual(ranked.map((p) => [p.playerId, p.verified ? 'verified' : 'self-named', `${p.scoredMatches}/${p.matches}`,
        fixed(p.score), fixed(p.threshold), p.flagged ? 'flagged' : 'no']));
      // The order itself, from each player's matches scored here: flagged first, then by score minus threshold.
      const direct = await Promise.all(ranked.map(async (p) => crossOfMatches(await store.playerMatches(p), cal)));
      for (let i = 1; i < direct.length; i++) {
        const [a, b] = [direct[i - 1]!, direct[i]!];
        expect(Number(a.flagged) > Number(b.flagged) || (a.flagged === b.flagged && a.score - a.threshold >= b.score - b.threshold)).toBe(true);
      }
      expect(ranked[0]).toMatchObject({ ...ALICE, matches: 3, flaggedMatches: 2, flagged: true });
      expect(ranked.filter((p) => p.flagged).length).toBeLessThan(ranked.length);
      expect(await page.textContent('#source')).toContain('by the score across each player');
      // An id that looks like HTML is text.
      expect(rows.some((r) => r[1] === '<img>')).toBe(true);
      expect(await page.locator('#players img').count()).toBe(0);

      // The top player opened: its matches and offending shots.
      const top = page.locator('tr.player').first();
      await top.locator('button.open').click();
      await page.waitForSelector('tr.match');
      expect(await page.textContent('p.cross')).toMatch(new RegExp(`^across 3 matches: score ${direct[0]!.score.toFixed(2)}, threshold ${direct[0]!.threshold.toFixed(2)}: flagged;`));
      const matches = await store.playerMatches(ALICE);
      expect(await page.locator('tr.match').count()).toBe(matches.length);
      const offending = await store.offendingShots(ALICE);
      expect(await page.locator('li.offending').count()).toBe(new Set(offending.map((o) => `${o.logId}:${o.shot}`)).size);

      // Its first offending shot's link: the viewer on that log, that shot selected and judged again.
      const link = page.locator('a.replay').first();
      const shot = Number(await link.getAttribute('data-shot'));
      const first = offending.find((o) => o.shot === shot)!;
      expect(await link.getAttribute('href')).toBe(`replay.html?log=${encodeURIComponent(`review/log/${first.logId}.hrml`)}&index=${shot}`);
      const logged = MatchLogView.parse(new Uint8Array(readFileSync((await store.matchPath(first.logId))!))).shots[shot]!;
      expect(logged.shooter).toBe(first.slot);
      const [viewer] = await Promise.all([context.waitForEvent('page'), link.click()]);
      viewer.on('pageerror', (e) => errors.push(`viewer: ${String(e)}`));
      await viewer.waitForFunction(`window.replay?.selected === ${shot}`, undefined, { timeout: 30_000 });
      const detail = (await viewer.textContent('#detail'))!;
      expect(detail).toContain(`shot ${shot}: player ${first.slot} seq ${logged.seq}`);
      expect(detail).toContain('the same verdict, bit for bit');
      expect(await viewer.textContent('#info')).toContain(`${first.logId}.hrml`);
      await viewer.close();

      // The label: cheater, with a note and the reviewer's name.
      await page.fill('#reviewer', 'Rita Reviewer');
      const form = page.locator('form.label');
      await form.locator('input[value=cheater]').check();
      await form.locator('textarea[name=note]').fill('snaps to heads through smoke');
      const before = new Date().toISOString();
      await form.locator('button[type=submit]').click();
      // Locators wait in Playwright's own world: the page's CSP forbids evaluating strings in its own.
      await page.locator('#status', { hasText: /^labelled/ }).waitFor();
      const after = new Date().toISOString();
      const labels = await store.labels(ALICE);
      expect(labels.map((l) => [l.label, l.reviewer, l.note])).toEqual([['cheater', 'Rita Reviewer', 'snaps to heads through smoke']]);
      expect(labels[0]!.at >= before && labels[0]!.at <= after).toBe(true);
      await page.waitForSelector('li.past-label');
      expect(await page.textContent('li.past-label')).toBe(`${labels[0]!.at} cheater by Rita Reviewer: snaps to heads through smoke`);
      expect(await top.locator('td.label').textContent()).toBe('cheater');

      // The HTML-looking id opens too (its id travels percent-encoded).
      await page.locator('tr.player[data-player="<img>"] button.open').click();
      await page.locator('td.detail h2', { hasText: /^<img> \(self-named\)/ }).waitFor();
      expect(await page.locator('#players img').count()).toBe(0);

      mkdirSync(join(ROOT, 'dist', 'screenshots'), { recursive: true });
      await page.screenshot({ path: join(ROOT, 'dist', 'screenshots', 'web-review.png'), fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await browser?.close();
    }
  });
});
