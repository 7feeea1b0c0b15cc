/**
 * The match-log viewer: a real room writes a match log (hits, a miss, hostile payloads, a switch to
 * the shotgun and a pull of 8 pellets), then
 * - in Node, web/src/replayLog.ts reads every tick and shot of it and re-judges every shot from the
 *   scene it rebuilds out of the log: each verdict equals the recorded one bit for bit, and a hit's
 *   target is among the rewound poses;
 * - in Chromium, /replay.html opened with `?shot=<slot>:<seq>` (the audit report's link) and the
 *   log file selects that shot, draws it with the rewound hitboxes and says the verdict judged again
 *   in the page is the same; the audit report's link for that shot (htmlFor with a viewer address)
 *   is the address it was opened with; the pull selected shows each pellet and its hits;
 * - what the viewer draws for a shot (loggedShotMarks, then ShotDecor): the pull's 8 pellets, each
 *   where the verdict reply the shooter received says it stopped, with the same hits; and a
 *   wall-bang verdict built in memory: the tracer solid to the wall and dashed through and behind
 *   it, the entry and exit holes (the exit facing out of the wall), the hit behind it.
 * Screenshot: dist/screenshots/web-replay.png.
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
import { WeaponId, weaponById } from '../shared/weapons';
import { VerdictKind, VerdictReason, createShooterState, createVerdict, reasonName } from '../shared/validate/verdict';
import { predictPellets } from '../shared/validate/spread';
import { ShotAction, SHOT_MAX_BYTES, encodeShot, shotBytes } from '../shared/protocol/shot';
import type { VerdictReply } from '../shared/protocol/messages';
import { verdictReply } from '../server/match/outcome';
import { MatchLogView, loggedShotMarks, type LoggedShot } from '../web/src/replayLog';
import { marksOfReply, marksOfVerdict, pelletsHit } from '../web/src/shotMarks';
import { ShotDecor } from '../web/src/shotDecor';
import { launchChromium } from './helpers/chromium';
import { auditMatchLog, closeAuditWorkers } from '../server/behaviour/audit';
import { htmlFor } from '../server/behaviour/cli';
import { joinPair, roomClosed, shootAtZone, startTestServer, zoneCenter, type TestPlayer, type TestServer } from './helpers/server';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'replay-view-'));
let ts: TestServer;
let logPath: string;
let recorded: string[] = [];
/** The shooter's verdict reply for the shotgun pull. */
let pullReply: VerdictReply;
const PULL_SEQ = 4;

/**
 * `shooter` pulls the shotgun's trigger at `target`'s upper torso as it renders it now: a 30 m aim
 * from its eye and the pellets its welcome's spread seed gives this seq (what a predicting client sends).
 */
async function pullAt(shooter: TestPlayer, target: number, seq: number): Promise<VerdictReply> {
  const room = ts.server.rooms.get(shooter.room.roomId)!;
  const rules = shooter.welcome!.validation;
  const rt = await shooter.renderNow(100);
  const [cx, cy, cz] = zoneCenter(room.match.scene.rewinder, ts.server.rig, shooter.renderPose(target, rt)!, HitZone.UPPER_TORSO);
  const me = shooter.snapshots.at(-1)!.poses.get(shooter.slot)!;
  const sx = me.x, sy = me.y + ts.server.rig.eyeHeight, sz = me.z;
  const dx = cx - sx, dy = cy - sy, dz = cz - sz, l = Math.sqrt(dx * dx + dy * dy + dz * dz);
  const m = shooter.shot({ seq, weapon: WeaponId.SHOTGUN, claimedTarget: target, renderTimeMs: rt, sx, sy, sz, ex: sx + (dx / l) * 30, ey: sy + (dy / l) * 30, ez: sz + (dz / l) * 30 });
  // The pattern is the pull's: the server's count of the pulls this shooter fired (the shotgun has no spray).
  const state = room.match.player(shooter.room.sessionId)!.weapons;
  m.pelletCount = predictPellets(m.pellets, rules.spreadSeed ?? 0, state, weaponById(rules.weapons, WeaponId.SHOTGUN)!, m.timeMs, m.sx, m.sy, m.sz, m.ex, m.ey, m.ez);
  shooter.room.sendBytes('shot', encodeShot(new Uint8Array(SHOT_MAX_BYTES), m).slice(0, shotBytes(m.pelletCount)));
  return shooter.verdictFor(seq);
}

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
  // The shotgun: a switch, its draw time, a pull.
  recorded.push(reasonName((await a.act(ShotAction.SWITCH, WeaponId.SHOTGUN, 3)).reason));
  await a.untilDrawn(WeaponId.SHOTGUN);
  pullReply = await pullAt(a, b.slot, PULL_SEQ);
  recorded.push(reasonName(pullReply.reason));
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
    expect(log.ends).toMatchObject({ complete: true, why: 'closed' });
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

  it('draws the pull: 8 pellets where the verdict reply says they stopped, the same hits, whether the log keeps pellets or not', () => {
    const log = MatchLogView.parse(new Uint8Array(readFileSync(logPath)));
    const pull = log.find(0, PULL_SEQ)!;
    expect(pull).toBeDefined();
    expect(pull.verdict.kind).not.toBe(VerdictKind.REJECTED);
    expect(pullReply.pellets).toHaveLength(8);
    const again = log.rejudge(pull.index, ts.server.world, ts.server.rig);
    expect(again.mismatches).toEqual([]);
    const plan = loggedShotMarks(pull, again.verdict)!;
    // A log that keeps each pellet's result draws from it; an older one from the shot judged again.
    expect(plan.from).toBe(pull.verdict.pellets.count > 0 ? 'log' : 'rejudged');
    const m = plan.marks;
    expect(m.pellets).toHaveLength(8);
    // A second source: the reply the shooter got, built by the server from the verdict it applied.
    const fromReply = marksOfReply(pullReply, m.sx, m.sy, m.sz, m)!;
    for (let k = 0; k < 8; k++) {
      const p = m.pellets[k]!, q = fromReply.pellets[k]!;
      expect([p.reason, p.target, p.walls], `pellet ${k}`).toEqual([q.reason, q.target, q.walls]);
      expect(Math.hypot(p.x - q.x, p.y - q.y, p.z - q.z), `pellet ${k}`).toBeLessThan(1e-9);
    }
    expect(m.hits.map((h) => h.pellet)).toEqual(fromReply.hits.map((h) => h.pellet));
    expect(m.hits.length).toBe(pelletsHit(m));
    expect(m.holes.length).toBe(pullReply.impacts?.length ?? 0);
    // The reply does not name an impact's pellet: it is found on the pellet's segment.
    expect(fromReply.holes.map((o) => o.pellet)).toEqual(m.holes.map((o) => o.pellet));
    if (pull.verdict.kind === VerdictKind.HIT) expect(m.hits.reduce((d, h) => d + h.damage, 0)).toBeCloseTo(pull.verdict.damage, 9);
    // Drawn: a tracer per pellet, a dot per hit, a hole per impact.
    const decor = new ShotDecor(Number.POSITIVE_INFINITY);
    decor.show(pull.index, m, 0xffffff, 0);
    expect(decor.counts(pull.index)).toEqual({ tracers: 8, hits: m.hits.length, holes: m.holes.length, exits: 0 });
    // A single segment keeps one tracer (the first rifle hit), as before pellets.
    const single = loggedShotMarks(log.shots[0]!, null)!;
    expect(single.marks.pellets).toHaveLength(1);
    expect(single.marks.hits).toHaveLength(1);
  });

  it('a wall-bang verdict built in memory: the tracer goes on behind the wall, entry and exit holes, the hit behind', () => {
    // A sniper round from (0, 1.6, 0) along +z through a wall 0.2 m thick at z 5, hitting player 1 at z 9.
    const v = createVerdict();
    v.kind = VerdictKind.HIT; v.reason = VerdictReason.OK_HIT; v.target = 1; v.zone = HitZone.UPPER_TORSO; v.damage = 30;
    v.x = 0; v.y = 1.6; v.z = 9; v.t = 0.09; v.worldHit = true;
    const p = v.pellets;
    p.count = 1; p.reason[0] = VerdictReason.OK_HIT; p.target[0] = 1; p.walls[0] = 1;
    p.ex[0] = 0; p.ey[0] = 1.6; p.ez[0] = 100; p.stopT[0] = 1; p.px[0] = 0; p.py[0] = 1.6; p.pz[0] = 100;
    const h = v.hits;
    h.count = 1; h.pellet[0] = 0; h.target[0] = 1; h.zone[0] = HitZone.UPPER_TORSO; h.reason[0] = VerdictReason.OK_HIT; h.walls[0] = 1;
    h.x[0] = 0; h.y[0] = 1.6; h.z[0] = 9; h.damage[0] = 30;
    const im = v.impacts;
    im.count = 2;
    for (const [i, z, exit] of [[0, 5, 0], [1, 5.2, 1]] as const) {
      im.pellet[i] = 0; im.surface[i] = 0; im.exit[i] = exit; im.x[i] = 0; im.y[i] = 1.6; im.z[i] = z; im.t[i] = z / 100;
      // Impacts keep the face's normal toward the pellet's start.
      im.nx[i] = 0; im.ny[i] = 0; im.nz[i] = -1;
    }
    const shot: LoggedShot = { index: 0, offset: 0, frame: 0, shooter: 0, tickIndex: 0, seq: 1, action: ShotAction.FIRE, segment: Float64Array.of(0, 1.6, 0, 0, 1.6, 100), verdict: v };
    const plan = loggedShotMarks(shot, null)!;
    expect(plan.from).toBe('log');
    const m = plan.marks;
    expect(m.pellets).toEqual([{ x: 0, y: 1.6, z: 100, reason: VerdictReason.OK_HIT, target: 1, walls: 1 }]);
    expect(m.holes.map((o) => [o.z, o.exit, o.nz])).toEqual([[5, false, -1], [5.2, true, 1]]);
    expect(m.hits).toEqual([{ pellet: 0, target: 1, zone: HitZone.UPPER_TORSO, x: 0, y: 1.6, z: 9, damage: 30 }]);
    // Drawn: solid to the entry hole, dashed through the wall and on behind it; both holes, one an exit.
    const decor = new ShotDecor(Number.POSITIVE_INFINITY);
    decor.show(7, m, 0xffffff, 0);
    expect(decor.counts(7)).toEqual({ tracers: 2, hits: 1, holes: 2, exits: 1 });
    // The page reads the same from the server's reply for it.
    const r = marksOfReply(verdictReply(v), 0, 1.6, 0, m)!;
    expect(r.pellets).toEqual(m.pellets);
    expect(r.holes).toEqual(m.holes);
    expect(r.hits).toEqual(m.hits);
    // Two pellets: the first through a sheet (an entry hole only) and on, the second stopped by a
    // wall; the reply's impacts go to the pellet whose segment they lie on.
    p.count = 2; p.walls[0] = 1; p.walls[1] = 0; p.reason[1] = VerdictReason.OK_MISS; p.target[1] = -1;
    p.px[1] = 1; p.py[1] = 1.6; p.pz[1] = 20;
    im.count = 2;
    im.pellet[1] = 1; im.exit[1] = 0; im.x[1] = 1; im.y[1] = 1.6; im.z[1] = 20;
    const two = marksOfVerdict(v, 0, 1.6, 0, 0, 1.6, 100);
    expect(two.holes.map((o) => o.pellet)).toEqual([0, 1]);
    expect(marksOfReply(verdictReply(v), 0, 1.6, 0, two)!.holes).toEqual(two.holes);
    // An older log's verdict keeps no pellets: the single segment, cut at its hit.
    v.pellets.count = 0; v.hits.count = 0; v.impacts.count = 0;
    const old = loggedShotMarks(shot, null)!;
    expect(old.from).toBe('segment');
    expect(old.marks.pellets).toEqual([{ x: 0, y: 1.6, z: 9, reason: VerdictReason.OK_HIT, target: 1, walls: 0 }]);
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
      // The pull: each pellet listed with its hits, a tracer each drawn.
      const pull = MatchLogView.parse(new Uint8Array(readFileSync(logPath))).find(0, PULL_SEQ)!;
      await page.evaluate(`window.replay.select(${pull.index})`);
      const pullDetail = (await page.textContent('#detail'))!;
      const hit = (pullReply.pellets ?? []).filter((p) => p.reason === VerdictReason.OK_HIT).length;
      expect(pullDetail).toContain(`player 0 seq ${PULL_SEQ}`);
      expect(pullDetail).toContain(`8 pellets, ${hit} hit, 0 walls passed`);
      expect(pullDetail.split('\n').filter((l) => /^ {2}\d: OK_/.test(l))).toHaveLength(8);
      expect(pullDetail).toContain('the same verdict, bit for bit');
      expect(await page.evaluate(`window.replay.drawn()`)).toMatchObject({ tracers: 8, hits: hit });
      await page.evaluate(`window.replay.select(1)`);
      await page.waitForTimeout(200);
      await page.screenshot({ path: join(ROOT, 'dist', 'screenshots', 'web-replay.png') });
      expect(errors).toEqual([]);
    } finally {
      await browser?.close();
    }
  });
});
