/**
 * The browser client in Debian's Chromium (playwright-core): a real game server serves the built
 * page (dist/web) and a real WebSocket client stands in the room as the target. The page joins,
 * loads the world and rig by content hash, moves with WASD (its predicted position and the
 * server's agree after reconciliation), aims at the target, fires with F, shows the predicted hit
 * at once and the server's confirmed verdict after, and with debug verdicts on draws the impact
 * view. With 4 it takes the shotgun (the HUD names it) and a pull sends its pellets through the
 * shared PredictingShooter: each pellet's tracer and hits drawn at once from the prediction, redrawn
 * from the verdict's pellets, which the server did not refuse and which match the prediction.
 * Screenshots go to dist/screenshots/ (web-play.png, web-debug.png).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { loadWorld } from '../server/level/gltf';
import { findSpawnPoints } from '../server/index';
import { HitZone } from '../shared/rig/rig';
import { WeaponId } from '../shared/weapons';
import { VerdictKind, VerdictReason } from '../shared/validate/verdict';
import { launchChromium } from './helpers/chromium';
import { startTestServer, TestPlayer, waitFor, type TestServer } from './helpers/server';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SHOTS = join(ROOT, 'dist', 'screenshots');

let ts: TestServer;
let browser: Browser;
let target: TestPlayer;

beforeAll(async () => {
  const world = await loadWorld();
  const spawns = findSpawnPoints(world, 16);
  // The target first (slot 0), the page a few metres away facing it (slot 1).
  const a = spawns[0]!, b = spawns.reduce((best, s) => {
    const d = (s.x - a.x) ** 2 + (s.z - a.z) ** 2, e = (best.x - a.x) ** 2 + (best.z - a.z) ** 2;
    return d > e && d < 64 && !world.anyHit(a.x, a.y + 1.4, a.z, s.x, s.y + 1.4, s.z) ? s : best;
  }, spawns[1]!);
  ts = await startTestServer({ level: world, spawnPoints: [a, b], debugVerdicts: true, maxPlayers: 4, respawnDelayMs: 60_000, maxHealth: 1000 });
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
  const t0 = performance.now();
  const page = await browser.newPage({ viewport: { width: 960, height: 600 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`http://127.0.0.1:${ts.port}/${query}`);
  await page.waitForFunction(`window.hitreg?.game?.view.snapshots > 10 && window.hitreg.net.clock.measured >= 3`, undefined, { timeout: 30_000 });
  expect(errors).toEqual([]);
  console.log(`page ready in ${Math.round(performance.now() - t0)} ms`);
  return page;
}

describe('web client in Chromium', () => {
  it('joins, moves with prediction, shoots the target: predicted hit at once, then the confirmed verdict', async () => {
    const page = await openPage('?debug=1&name=web');
    const welcome = await page.evaluate(`(() => { const w = window.hitreg.net.welcome; return { slot: w.slot, world: w.worldHash, rig: w.rigHash, debug: w.debug }; })()`) as { slot: number; world: string; rig: string; debug: boolean };
    expect(welcome).toEqual({ slot: 1, world: ts.server.world.hash, rig: ts.server.rig.hash, debug: true });

    // Move: hold W, then let the server catch up; prediction and server agree within a few cm.
    const before = await page.evaluate(`[window.hitreg.game.me.x, window.hitreg.game.me.z]`) as number[];
    await page.keyboard.down('KeyW');
    await page.waitForTimeout(400); // how long the key is held
    await page.keyboard.up('KeyW');
    // The server has stepped every input the page sent up to now and the body is at rest.
    const room = ts.server.rooms.values().next().value!;
    const seat = room.seats[1]!;
    const sentSeq = await page.evaluate(`window.hitreg.game.inputSeq`) as number;
    // (The page sends an input every tick, standing ones too.)
    await waitFor(() => seat.appliedInputSeq >= sentSeq + 8 && Math.hypot(seat.move.vx, seat.move.vz) < 1e-3, 'the server caught up, at rest');
    const after = await page.evaluate(`[window.hitreg.game.me.x, window.hitreg.game.me.z]`) as number[];
    expect(Math.hypot(after[0]! - before[0]!, after[1]! - before[1]!)).toBeGreaterThan(0.5);
    const server = seat.move;
    expect(Math.hypot(server.x - after[0]!, server.z - after[1]!)).toBeLessThan(0.05);

    // Aim at the target's upper torso as drawn, fire with F.
    expect(await page.evaluate(`window.hitreg.game.aimAt(0, ${HitZone.UPPER_TORSO}, performance.now())`)).toBe(true);
    // One tap of F: exactly one shot, however short the press.
    await page.keyboard.press('KeyF');
    await page.waitForFunction(`window.hitreg.game.shots.length > 0`, undefined, { timeout: 3000 });
    await page.waitForTimeout(300);
    expect(await page.evaluate(`window.hitreg.game.shots.length`)).toBe(1);
    // The prediction is made when the shot is sent (the marker shows it before any reply can arrive).
    const predicted = await page.evaluate(`window.hitreg.game.shots[0].predicted`) as Record<string, unknown>;
    expect(predicted).toMatchObject({ reason: 'OK_HIT', target: 0 });
    await page.waitForFunction(`window.hitreg.game.shots[0].verdict !== null`, undefined, { timeout: 3000 });
    const judged = await page.evaluate(`(() => { const s = window.hitreg.game.shots[0]; return { reason: s.verdict.reasonName, target: s.verdict.target, zone: s.verdict.zone, agreed: s.agreed, marker: document.getElementById('hitmarker').className, rewound: s.verdict.rewound.length }; })()`) as Record<string, unknown>;
    // Confirmed as predicted: same target and hit zone.
    expect(judged).toEqual({ reason: 'OK_HIT', target: 0, zone: predicted.zone, agreed: true, marker: 'confirmed', rewound: 1 });
    expect(target.damaged.length).toBeGreaterThan(0);
    // R reloads: the server starts it and the synced reload end time reaches the page.
    await page.keyboard.press('KeyR');
    await page.waitForFunction(`window.hitreg.game.reloadEndMs > 0`, undefined, { timeout: 3000 });
    // 2 takes the loadout's second weapon: the server equips it (the reload is cancelled), the page
    // waits out its draw time, and the next shot is fired and judged with it.
    const second = ts.server.config.validation.loadout[1]!;
    await page.keyboard.press('Digit2');
    await page.waitForFunction(`window.hitreg.game.equipped === ${second}`, undefined, { timeout: 3000 });
    await waitFor(() => room.match.player(room.seats[1]!.sessionId)!.weapons.equipped === second, 'the server equipped the second weapon');
    expect(room.match.player(room.seats[1]!.sessionId)!.weapons.equipped).toBe(second);
    await page.waitForFunction(`/pistol (drawing|\\d+)/.test(document.getElementById('health').textContent)`, undefined, { timeout: 3000 });
    const shotsBefore = await page.evaluate(`window.hitreg.game.shots.length`) as number;
    await page.waitForFunction(`window.hitreg.net.clock.serverNow(performance.now()) > window.hitreg.game.drawEndMs && window.hitreg.game.ammo > 0`, undefined, { timeout: 3000 });
    expect(await page.evaluate(`window.hitreg.game.aimAt(0, ${HitZone.UPPER_TORSO}, performance.now())`)).toBe(true);
    await page.keyboard.press('KeyF');
    await page.waitForFunction(`window.hitreg.game.shots.length > ${shotsBefore} && window.hitreg.game.shots.at(-1).verdict !== null`, undefined, { timeout: 3000 });
    const reason = await page.evaluate(`window.hitreg.game.shots.at(-1).verdict.reasonName`) as string;
    expect(reason).toMatch(/^OK_/);
    // The round came out of the second weapon's magazine.
    const magazine = ts.server.config.validation.weapons.find((w) => w.id === second)!.magazine;
    expect(room.match.player(room.seats[1]!.sessionId)!.weapons.ammo[second]).toBe(magazine - 1);

    // 4 takes the shotgun; a pull fires its 8 pellets.
    await page.keyboard.press('Digit4');
    await page.waitForFunction(`window.hitreg.game.equipped === ${WeaponId.SHOTGUN}`, undefined, { timeout: 3000 });
    await page.waitForFunction(`/shotgun (drawing|\\d+)/.test(document.getElementById('health').textContent) && />4 shotgun/.test(document.getElementById('loadout').textContent)`, undefined, { timeout: 3000 });
    await page.waitForFunction(`window.hitreg.net.clock.serverNow(performance.now()) > window.hitreg.game.drawEndMs`, undefined, { timeout: 3000 });
    const pullsBefore = await page.evaluate(`window.hitreg.game.shots.length`) as number;
    // Aim and fire in one evaluation (again each frame until the rules let the page fire), and keep
    // what the page drew right after it fired, before any reply could arrive.
    await page.waitForFunction(`(() => {
      const g = window.hitreg.game;
      if (!g.aimAt(0, ${HitZone.UPPER_TORSO}, performance.now())) return false;
      const s = g.fire(performance.now());
      if (s === null) return false;
      window.pull = { seq: s.seq, weapon: s.weapon, pellets: s.marks.pellets.length, hits: s.marks.hits.length, drawn: g.decor.counts(s.seq), judged: s.verdict !== null };
      return true;
    })()`, undefined, { timeout: 5000 });
    const fired = await page.evaluate(`window.pull`) as { seq: number; weapon: number; pellets: number; hits: number; drawn: { tracers: number; hits: number; holes: number }; judged: boolean } | null;
    expect(fired).not.toBeNull();
    expect(fired!).toMatchObject({ weapon: WeaponId.SHOTGUN, pellets: 8, judged: false });
    // The prediction's pellets are drawn at once: a tracer each, a dot on each hit, a hole where one
    // met the world (the target stands within 8 m, walls around: every pull meets something).
    expect(fired!.drawn.tracers).toBe(8);
    expect(fired!.drawn.hits).toBe(fired!.hits);
    expect(fired!.drawn.hits + fired!.drawn.holes).toBeGreaterThan(0);
    // The page sent the pellets: the server judged a pull of 8 and did not refuse it.
    await page.waitForFunction(`window.hitreg.game.shots.length > ${pullsBefore} && window.hitreg.game.shots.at(-1).verdict !== null`, undefined, { timeout: 3000 });
    const pull = await page.evaluate(`(() => {
      const g = window.hitreg.game, s = g.shots.at(-1);
      return { kind: s.verdict.kind, reason: s.verdict.reason, pellets: s.verdict.pellets?.length ?? 0, reasons: (s.verdict.pellets ?? []).map((p) => p.reason),
        impacts: s.verdict.impacts?.length ?? 0, redrawn: s.verdictMarks?.pellets.length ?? 0, agreed: s.agreed, drawn: g.decor.counts(s.seq), predictedHits: s.marks.hits.length,
        sameEnds: s.marks.pellets.filter((p, k) => { const q = s.verdictMarks?.pellets[k]; return q !== undefined && q.reason === p.reason && q.target === p.target; }).length };
    })()`) as { kind: number; reason: number; pellets: number; reasons: number[]; impacts: number; redrawn: number; agreed: boolean; drawn: { tracers: number; hits: number; holes: number }; predictedHits: number; sameEnds: number };
    expect(pull.kind).not.toBe(VerdictKind.REJECTED);
    expect([VerdictReason.OK_HIT, VerdictReason.OK_MISS]).toContain(pull.reason);
    expect(pull.pellets).toBe(8);
    expect(pull.reasons.every((r) => r === VerdictReason.OK_HIT || r === VerdictReason.OK_MISS)).toBe(true);
    // Redrawn from the verdict's pellets, which went where the page predicted them. The page poses
    // the idling target from the snapshots it received; on a loaded machine some never arrive, and
    // a pellet at a hitbox's edge can land otherwise than on the server's every tick: most pellets
    // must end as predicted (unloaded runs: all of them, and the pull agrees).
    expect(pull.redrawn).toBe(8);
    expect(pull.drawn.tracers).toBe(8);
    expect(pull.drawn.hits).toBe(pull.reasons.filter((r) => r === VerdictReason.OK_HIT).length);
    expect(pull.sameEnds, `pull agreed ${pull.agreed}`).toBeGreaterThanOrEqual(6);
    expect(pull.drawn.holes).toBe(pull.impacts);
    expect(pull.drawn.hits + pull.drawn.holes).toBeGreaterThan(0);
    if (pull.reason === VerdictReason.OK_HIT) expect(await page.textContent('#hitmarker')).toMatch(/\(\d\/8 pellets\)/);
    await page.waitForTimeout(100);
    await page.screenshot({ path: join(SHOTS, 'web-debug.png') });
    await page.close();
  });

  it('without debug: the page plays, a net graph reports rtt, tick rate and agreement', async () => {
    const page = await openPage('?name=web2');
    // The graph samples every 250 ms; on a loaded machine a sample can come short, so wait for one
    // that sees the server's rate.
    await page.waitForFunction(`(() => { const m = /tick (\\d+)\\/64 Hz/.exec(document.getElementById('netgraph').textContent); return m !== null && Number(m[1]) >= 48 && Number(m[1]) <= 80; })()`, undefined, { timeout: 10_000 });
    const text = await page.evaluate(`document.getElementById('netgraph').textContent`) as string;
    expect(text).toMatch(/rtt \d+ ms\s+interp 100 ms\s+tick \d+\/64 Hz/);
    expect(await page.evaluate(`window.hitreg.net.welcome.debug`)).toBe(false);
    await page.screenshot({ path: join(SHOTS, 'web-play.png') });
    await page.close();
  });
});
