/**
 * The tick rate as a player sees it: a real client counts distinct `state.tick` values per
 * wall-clock second over several seconds, at 64 and 128 Hz, and measures its own walking speed from
 * the positions in the patches it receives against its own wall clock (what a player feels), not
 * from the server's snapshot stamps (which are derived from the tick count and cannot see a slow tick).
 * The server runs in this process, so a monitor here sees every time the process was stalled (the
 * machine busy elsewhere): the room's fixed-timestep loop runs at most 5 catch-up steps a wake-up
 * and drops the rest, and only the ticks such stalls account for may be missing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { buildTestWorld, startTestServer, TEST_SPAWNS, TestPlayer, type TestServer } from '../helpers/server';
import { createInputMessage } from '../../shared/protocol/input';

const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

/**
 * Records this process's stalls (1 ms timer wake-ups more than a tick apart). `lostTicks`: how many
 * ticks the room's loop may have dropped over them (for a stall past 4 ticks, what a wake-up's 5
 * catch-up steps did not cover, and one more for the fraction the loop drops with its backlog).
 * `longestMs`: the longest stall, by which a late tick can stretch a measuring period.
 */
function stallMonitor(tickMs: number): { stop(): void; lostTicks(fromMs: number, toMs: number): number; longestMs(fromMs: number, toMs: number): number } {
  const stalls: { at: number; gap: number }[] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    if (now - last > tickMs) stalls.push({ at: now, gap: now - last });
    last = now;
  }, 1);
  const within = (fromMs: number, toMs: number) => stalls.filter((x) => x.at > fromMs && x.at - x.gap < toMs);
  return {
    stop: () => clearInterval(timer),
    lostTicks: (fromMs, toMs) => within(fromMs, toMs).filter((x) => x.gap > 4 * tickMs).reduce((n, x) => n + (x.gap - 4 * tickMs) / tickMs + 1, 0),
    longestMs: (fromMs, toMs) => within(fromMs, toMs).reduce((m, x) => Math.max(m, x.gap), 0),
  };
}

async function measure(tickRate: number): Promise<{ ticksPerSecond: number; speed: number; maxSpeed: number; statusTicks: number; lostPerSecond: number; lostLastSeconds: number; longestLastMs: number }> {
  const ts = await startTestServer({ level: buildTestWorld(), spawnPoints: TEST_SPAWNS, tickRate });
  servers.push(ts);
  const p = await TestPlayer.create(ts.url, { interpDelayMs: 100 });
  await p.until(() => p.slot >= 0 && p.snapshots.length > 4, 5000, 'ready');

  // Ticks per wall-clock second: every patch carries the tick it ends.
  const seen: { wall: number; tick: number; x: number }[] = [];
  p.room.onStateChange((state: any) => {
    const me = state.players.get(p.room.sessionId);
    seen.push({ wall: performance.now(), tick: state.tick, x: me?.x ?? NaN });
  });
  // Walk along +x (open floor) for the whole measurement.
  const input = createInputMessage();
  input.seq = 1;
  input.wishX = 1;
  input.wishZ = 0;
  input.viewX = 1;
  input.viewZ = 0;
  const stalls = stallMonitor(1000 / tickRate);
  p.sendInput(input);
  // The measuring window: patches over 3.6 s of this client's wall clock (half a second skipped below).
  await p.until(() => seen.length > 0 && seen.at(-1)!.wall - seen[0]!.wall >= 3600, 30_000, '3.6 s of patches');
  const statusLine = ts.server.statusLine();
  const statusAt = performance.now();
  stalls.stop();
  await p.leave();

  // Skip the first half second (acceleration, join), then count over >= 3 s.
  const from = seen.findIndex((s) => s.wall >= seen[0]!.wall + 500);
  const a = seen[from]!, b = seen.at(-1)!;
  const wallS = (b.wall - a.wall) / 1000;
  expect(wallS).toBeGreaterThanOrEqual(2.9);
  const ticksPerSecond = (b.tick - a.tick) / wallS;
  const speed = Math.abs(b.x - a.x) / wallS;
  const lostPerSecond = stalls.lostTicks(a.wall, b.wall) / wallS;
  // The status line's second ends at most a second before it was read.
  const lostLastSeconds = stalls.lostTicks(statusAt - 2000, statusAt);
  const longestLastMs = stalls.longestMs(statusAt - 2000, statusAt);
  return { ticksPerSecond, speed, maxSpeed: ts.server.config.movement.maxSpeed, statusTicks: Number(/ticks\/s ([\d.]+) of (\d+)/.exec(statusLine)?.[1]), lostPerSecond, lostLastSeconds, longestLastMs };
}

describe('tick rate seen by a real client', () => {
  it('64 Hz: at least 97% of nominal ticks per wall-clock second (less only what stalls of the process drop); walking speed 6 m/s from patches', async () => {
    const m = await measure(64);
    const due = 64 - m.lostPerSecond;
    expect(m.ticksPerSecond, JSON.stringify(m)).toBeGreaterThanOrEqual(0.97 * due);
    expect(m.ticksPerSecond).toBeLessThanOrEqual(1.03 * 64);
    expect(m.maxSpeed).toBe(6);
    expect(m.speed, JSON.stringify(m)).toBeGreaterThanOrEqual((0.97 * 6 * due) / 64);
    expect(m.speed).toBeLessThanOrEqual(1.03 * 6);
    // The status line's own measure (the last whole second) agrees with the client's; a second that
    // follows a stall holds the catch-up ticks, so it may read a little above nominal, and one that a
    // stall ends is stretched by it.
    expect(m.statusTicks, JSON.stringify(m)).toBeGreaterThanOrEqual((0.97 * (64 - m.lostLastSeconds) * 1000) / (1000 + m.longestLastMs));
    expect(m.statusTicks).toBeLessThanOrEqual(1.1 * 64);
  });

  it('128 Hz: at least 97% of nominal ticks per wall-clock second (less only what stalls of the process drop); same walking speed', async () => {
    const m = await measure(128);
    const due = 128 - m.lostPerSecond;
    expect(m.ticksPerSecond, JSON.stringify(m)).toBeGreaterThanOrEqual(0.97 * due);
    expect(m.ticksPerSecond).toBeLessThanOrEqual(1.03 * 128);
    expect(m.speed, JSON.stringify(m)).toBeGreaterThanOrEqual((0.97 * 6 * due) / 128);
    expect(m.speed).toBeLessThanOrEqual(1.03 * 6);
  });
});
