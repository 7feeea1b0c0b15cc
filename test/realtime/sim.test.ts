/**
 * The client simulator end to end: honest bots over real WebSockets against an in-process arena on
 * the default level, at 100 ms round trip and 20 ms jitter (seeded), predicting every
 * message with the shared pipeline, their own movement with the shared step and their rules state
 * with the shared weapon rules. Targets at a lenient threshold for a short run: agreement of the
 * predictions with the verdicts (races with deaths on the server aside), no honest message
 * rejected, shots at the weapon's full rate among them, rockets or grenades launched, the mirrored rules state equal to the
 * synced one, honest shot starts well inside the origin tolerance, no server error. Also the
 * per-bot link on real timers and the interpolation delay (the TCP model's loss, retransmission
 * and bandwidth behaviour is tested in net.test.ts). No loss here: on a TCP link a loss holds a
 * message back by a retransmission timeout (>= 200 ms) plus the round trip, which takes its render
 * time out of the 250 ms rewind window (TIME_TOO_OLD); how the rules treat messages held back by
 * the transport is a rules question, not a prediction one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSimulation, interpDelayFor, WINDOW_MARGIN_MS, type SimReport } from '../../client-sim/simulate';
import { Link } from '../../client-sim/net';
import { Rng } from '../../client-sim/rng';
import { distribution, summarizeShots } from '../../client-sim/report';
import { WEAPONS } from '../../shared/weapons';
import { Intent, type ShotLog } from '../../client-sim/bot';
import { VerdictKind } from '../../shared/validate/verdict';
import { waitFor } from '../helpers/wait';

const logDir = mkdtempSync(join(tmpdir(), 'sim-test-'));
afterAll(() => rmSync(logDir, { recursive: true, force: true }));

describe('per-bot link', () => {
  it('delivers in send order, never earlier than the one-way delay allows, on real timers', async () => {
    const rng = new Rng(5);
    const link = new Link({ rttMs: 20, jitterMs: 16, loss: 0 }, rng.fork(1));
    const got: number[] = [];
    const sentAt: number[] = [];
    const late: number[] = [];
    for (let i = 0; i < 40; i++) {
      sentAt.push(performance.now());
      link.receive(() => {
        got.push(i);
        late.push(performance.now() - sentAt[i]!);
      });
    }
    await waitFor(() => got.length === 40, 'every message through the link');
    expect(got).toEqual([...Array(40).keys()]);
    // Half the round trip minus half the jitter is the earliest (timers may fire up to 1 ms early in Node).
    for (const d of late) expect(d).toBeGreaterThanOrEqual(10 - 8 - 1);
    link.close();
  });

  it('picks an interpolation delay that covers the stream and stays inside the rewind window', () => {
    for (const rtt of [20, 100, 200]) {
      const d = interpDelayFor(rtt, 20, 16, 250, 250);
      expect(d).toBeGreaterThan(rtt / 2 + 16 + 20); // a trip, a patch and the jitter
      expect(d).toBeLessThanOrEqual(250 - WINDOW_MARGIN_MS); // the render time is rewound to, not clamped
    }
    expect(interpDelayFor(400, 50, 16, 250, 250)).toBe(250 - WINDOW_MARGIN_MS); // the stream needs more: the window wins
    expect(interpDelayFor(200, 20, 16, 250, 150)).toBe(150); // the room's largest accepted delay
  });

  it('reports distributions by the nearest-rank percentile', () => {
    const d = distribution(Array.from({ length: 1000 }, (_, i) => (i + 1) / 1000));
    expect(d).toEqual({ p50: 0.5, p99: 0.99, p999: 0.999, max: 1, n: 1000 });
    expect(distribution([]).n).toBe(0);
  });
});

describe('honest players at 100 ms RTT, 20 ms jitter', () => {
  let report: SimReport;
  it('predictions agree with the server, no honest message is rejected, the mirrors hold', async () => {
    // Plays on until an honest rocket or grenade has been launched (the simulator's arena carries
    // them) and an honest spray or burst has claimed a shot one fire interval after the last (a short
    // run on a loaded machine may end before either). Every bot carries a launcher (launcherShare 1):
    // with the default share (the launcher fans only) a run could go 60 s without a launch.
    const launched = (l: readonly ShotLog[]): boolean => l.some((s) => s.intent === Intent.HONEST && s.verdict?.kind === VerdictKind.LAUNCH);
    const intervals = WEAPONS.map((w) => w.fireIntervalMs);
    const fullRate = (l: readonly ShotLog[]): boolean => summarizeShots(l, intervals).honestFullRateShots > 0;
    report = await runSimulation({ bots: 6, seconds: 10, rttMs: 100, jitterMs: 20, loss: 0, seed: 11, launcherShare: 1, minHonestJudged: 20, until: (l) => launched(l) && fullRate(l), maxSeconds: 60, server: { matchLogDir: logDir } });
    expect(report.matchLog).not.toBeNull(); // the in-process server keeps writing its match log
    expect(report.config.inProcess).toBe(true);
    expect(report.honestJudged).toBeGreaterThanOrEqual(20);
    // Lenient for a short run on a shared machine (a longer run: `npm run bench:sim`, its numbers in docs/measurements.md).
    expect(report.agreementRaceFree).toBeGreaterThanOrEqual(0.97);
    expect(report.agreementAll).toBeLessThanOrEqual(report.agreementRaceFree);
    // Every disagreement outside a death race is listed (up to 20) for diagnosis.
    const clean = report.honestJudged - report.raceShots;
    expect(report.disagreementList.length).toBe(Math.min(20, Math.round(clean * (1 - report.agreementRaceFree))));
    expect(report.honestRejected).toBe(0);
    expect(report.serverErrors).toBe(0);
    expect(report.ruleCheatShots).toBe(0);
    expect(report.inhumanShots).toBe(0);
    // Sprays and bursts claim exactly one fire interval apart, and the server accepts them.
    expect(report.honestFullRateShots).toBeGreaterThan(0);
    // Rockets and grenades launched as predicted (OK_LAUNCH; counted in the agreement above).
    expect(report.honestLaunches).toBeGreaterThan(0);
    // The rules state mirrored from the bot's own predictions equals the server's synced one.
    expect(report.weaponState.checks).toBeGreaterThan(100);
    expect(report.weaponState.mismatches).toBe(0);
    // Shots from the predicted position while moving: starts well inside the origin tolerance.
    expect(report.originOffsetM.n).toBeGreaterThan(10);
    expect(report.originOffsetM.p50).toBeLessThan(0.25);
    expect(report.originOffsetM.max).toBeLessThan(1);
    expect(report.prediction.corrections).toBeGreaterThan(0);
    // A verdict cannot come back faster than the simulated round trip (minus the jitter).
    expect(report.verdictLatencyMsP50).toBeGreaterThanOrEqual(100 - 20);
    expect(report.ticks).toBeGreaterThan(0);
    expect(report.ticksPerSecond).toBeGreaterThan(0);
    expect(report.tickMsP99).toBeGreaterThanOrEqual(report.tickMsP50!);
    // The server saw exactly the messages the links delivered.
    expect(report.server!.shots).toBe(report.shots - report.lostShots);
    expect(report.detection?.honest?.players).toBe(6);
  });
});
