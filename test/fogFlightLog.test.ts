/**
 * Projectile sends in the match log: an arena room with fog of war on and real WebSocket clients on
 * the test level (a wall 6 m wide and 3 m high across z = -4 between A (0,0,0) and C (0,0,-8); B
 * (0,0,8) in the open) writes its log; C, withheld from A and B behind the wall, fires a rocket into
 * the floor far behind the wall and one past the wall's end toward A's side, and B, in A's sight,
 * fires one. The audit (server/audit/fog.ts) rebuilds from the fog flights records who was sent
 * which flight from which tick, and that is what the clients received: each client holds a flight's
 * state exactly when the audit says it was sent it, first in the patch of the tick it says; from the
 * fog ends records, who was told each end is who received it (with the struck player withheld
 * exactly when the record says); the replay viewer (web/src/replayLog.ts) draws each flight for each
 * viewer from that tick on, and its end for those told; in Chromium, /replay.html draws C's rocket
 * into the floor and its end with no viewer chosen and as C was sent, not as A was sent.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from './helpers/chromium';
import { fireRocket } from './helpers/fireRocket';
import { buildTestWorld, joinSpawned, roomClosed, startTestServer, TestPlayer, TEST_SPAWNS, type TestServer } from './helpers/server';
import { WeaponId } from '../shared/weapons';
import { auditMatchLog } from '../server/behaviour/audit';
import { summaryLines } from '../server/behaviour/cli';
import { MatchLogView } from '../web/src/replayLog';
import { END_STRUCK_MASKED, END_VICTIMS_MASKED } from '../shared/matchlog/fogEndRecord';
import type { ProjectileEndReply } from '../shared/index';

const INTERP = 100;
const world = buildTestWorld();
const dir = mkdtempSync(join(tmpdir(), 'hitreg-fogflightlog-'));
let ts: TestServer;
/** The room's log, and C's rocket into the floor far behind the wall (never sent to A). */
let logPath = '';
let hiddenRocket = -1;


describe('fog of war: projectile sends in the match log', () => {
  beforeAll(async () => {
    ts = await startTestServer({ level: world, spawnPoints: TEST_SPAWNS, loadout: [WeaponId.RIFLE, WeaponId.ROCKET], maxPlayers: 4, matchLogDir: dir });
  });
  afterAll(async () => {
    await ts?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the audit\'s who was sent which flight from which tick is what each client received, and what the replay viewer draws', async () => {
    const players = await joinSpawned(ts.url, 3, INTERP);
    const [a, b, c] = players as [TestPlayer, TestPlayer, TestPlayer];
    const room = ts.server.rooms.get(a.room.roomId)!;
    expect(room.fog!.isSent(0, 2)).toBe(false);
    const closed = roomClosed(ts, a.room.roomId);
    const eye = ts.server.rig.eyeHeight;
    const shots: [TestPlayer, number][] = [];
    shots.push([c, await fireRocket(ts, c, INTERP, 0, 0, -42)]);
    await c.until(() => c.projectileEnds.some((e) => e.id === shots[0]![1]), 5000, 'the first rocket\'s end');
    // The launcher reloads: a second player takes the next one, then C again after its reload.
    shots.push([b, await fireRocket(ts, b, INTERP, 6, 0, -2)]);
    await b.until(() => b.projectileEnds.some((e) => e.id === shots[1]![1]), 8000, 'B\'s rocket\'s end');
    await c.untilFireReady();
    const past = await c.shoot({ seq: 3, weapon: WeaponId.ROCKET, claimedTarget: -1, renderTimeMs: await c.renderNow(INTERP), sx: 0, sy: eye, sz: -8, ex: 12, ey: eye - 0.5, ez: -2 });
    expect(past.reasonName).toBe('OK_LAUNCH');
    shots.push([c, past.projectile!]);
    await c.until(() => c.projectileEnds.some((e) => e.id === past.projectile), 8000, 'the rocket past the wall\'s end');
    for (const p of players) await p.snapshotsPass(5);
    for (const p of players) await p.leave();
    await closed;

    const files = readdirSync(dir).filter((f) => f.endsWith('.hrml'));
    expect(files.length).toBe(1);
    const path = join(dir, files[0]!);
    logPath = path;
    hiddenRocket = shots[0]![1];
    const r = await auditMatchLog(path, { world, calibration: null });
    expect(r.problems).toEqual([]);
    expect([r.fog.mode, r.fog.flightsRecorded, r.fog.endsRecorded, r.fog.badRecords, r.fog.unknownFlightSends]).toEqual(['on', true, true, 0, 0]);
    expect(r.fog.flights.map((f) => f.id)).toEqual(shots.map((s) => s[1]));
    // The audit's text report: the fog line, then a line per flight.
    const lines = summaryLines(r);
    const at = lines.findIndex((l) => l.startsWith('fog of war on'));
    console.log(`[fog flights] audit report:\n${lines.slice(at).join('\n')}`);
    expect(lines.slice(at + 1).map((l) => /^ {2}flight (\d+) /.exec(l)?.[1])).toEqual(shots.map((s) => String(s[1])));
    const log = MatchLogView.parse(new Uint8Array(readFileSync(path)));
    for (const f of r.fog.flights) {
      // Who received it, and from the patch of which tick (the state's serverTimeMs).
      const received = players.filter((p) => p.projectileStates.has(f.id)).map((p) => ({ viewer: p.slot, fromMs: p.projectileFirstMs.get(f.id)! }));
      expect(f.sent.slice().sort((x, y) => x.viewer - y.viewer), `flight ${f.id}`).toEqual(received);
      expect(f.neverSent, `flight ${f.id}`).toEqual(players.filter((p) => !p.projectileStates.has(f.id)).map((p) => p.slot));
      // The replay viewer draws it for a viewer from the tick of its send on, for no one never sent it.
      for (const p of players) {
        const drawn = [];
        for (let i = 0; i < log.ticks; i++) if (log.flightsAt(p.slot, i).some((x) => x.id === f.id)) drawn.push(log.tickTimes[i]!);
        const send = f.sent.find((s) => s.viewer === p.slot);
        expect(drawn[0], `flight ${f.id} for viewer ${p.slot}`).toBe(send?.fromMs);
      }
      // Who was told its end, and whether the struck player was withheld: what each client received.
      const told = players.filter((p) => p.projectileEnds.some((e) => e.id === f.id)).map((p) => p.slot);
      expect(f.endTold.map((t) => t.viewer).sort((x, y) => x - y), `end of flight ${f.id}`).toEqual(told);
      const lf = log.flights.find((x) => x.id === f.id)!;
      // The shooter is told the whole end: the others' copies against it.
      const endOf = (slot: number): ProjectileEndReply => players.find((p) => p.slot === slot)!.projectileEnds.find((e) => e.id === f.id)!;
      const whole = endOf(f.shooter);
      for (const t of f.endTold) {
        const got = endOf(t.viewer);
        expect(got.player, `struck player of flight ${f.id} told to ${t.viewer}`).toBe((t.flags & END_STRUCK_MASKED) !== 0 ? -1 : whole.player);
        expect(got.victims.length < whole.victims.length, `victims of flight ${f.id} told to ${t.viewer}`).toBe((t.flags & END_VICTIMS_MASKED) !== 0);
        expect(lf.endTold.get(t.viewer)).toBe(t.flags);
      }
      for (const p of players) expect(log.endsAt(p.slot, lf.endTick).includes(lf), `end of flight ${f.id} drawn for ${p.slot}`).toBe(told.includes(p.slot));
    }
    const byId = new Map(r.fog.flights.map((f) => [f.id, f]));
    // The shooter is sent its own at once; A never C's rocket into the floor far behind the wall, but
    // the one past the wall's end; B's own flight reaches A, who sees B.
    for (const [p, id] of shots) {
      const sent = byId.get(id)!.sent;
      expect(sent.find((s) => s.viewer === p.slot)!.fromMs).toBe(Math.min(...sent.map((s) => s.fromMs)));
    }
    expect(byId.get(shots[0]![1])!.neverSent).toContain(0);
    expect(byId.get(shots[0]![1])!.endTold.map((t) => t.viewer)).not.toContain(0);
    expect(byId.get(shots[0]![1])!.endTold.map((t) => t.viewer)).toContain(2);
    expect(byId.get(shots[2]![1])!.sent.map((s) => s.viewer)).toContain(0);
    expect(byId.get(shots[1]![1])!.sent.map((s) => s.viewer)).toContain(0);
    const va = r.fog.viewers.find((v) => v.slot === 0)!;
    expect([va.flightsSent, va.othersFlightsSent, va.othersFlightsNeverSent]).toEqual([2, 2, 1]);
  });

  it('in Chromium: the replay viewer draws the rocket withheld from A, and its end, with no viewer chosen and as its shooter C was sent, not as A was sent', async () => {
    expect(logPath).not.toBe('');
    const log = MatchLogView.parse(new Uint8Array(readFileSync(logPath)));
    const has = (viewer: number, i: number): boolean => log.flightsAt(viewer, i).some((f) => f.id === hiddenRocket);
    let tick = -1;
    for (let i = 0; i < log.ticks && tick < 0; i++) if (has(-1, i) && has(2, i) && !has(0, i)) tick = i;
    expect(tick).toBeGreaterThanOrEqual(0);
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 800, height: 500 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`http://127.0.0.1:${ts.port}/replay.html`);
      await page.setInputFiles('#file', logPath);
      await page.waitForFunction('window.replay !== undefined', undefined, { timeout: 10_000 });
      const drawnAs = async (viewer: number): Promise<number[]> => {
        await page.evaluate(`(() => { document.getElementById('scrub').value = '${tick}'; document.getElementById('fogViewer').value = '${viewer}'; })()`);
        // Two animation frames: the next one draws the tick for that viewer.
        await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
        return (await page.evaluate('window.replay.flightsDrawn()')) as number[];
      };
      expect(await drawnAs(-1)).toContain(hiddenRocket);
      expect(await drawnAs(2)).toContain(hiddenRocket);
      expect(await drawnAs(0)).not.toContain(hiddenRocket);
      expect(await drawnAs(-1)).toContain(hiddenRocket);
      // Its end, at the tick it ended: drawn as C was told it, not as A was told nothing.
      tick = log.flights.find((f) => f.id === hiddenRocket)!.endTick;
      const endsAs = async (viewer: number): Promise<number[]> => {
        await drawnAs(viewer);
        return (await page.evaluate('window.replay.endsDrawn()')) as number[];
      };
      expect(await endsAs(-1)).toContain(hiddenRocket);
      expect(await endsAs(2)).toContain(hiddenRocket);
      expect(await endsAs(0)).not.toContain(hiddenRocket);
      expect(errors).toEqual([]);
    } finally {
      await browser?.close();
    }
  });
});
