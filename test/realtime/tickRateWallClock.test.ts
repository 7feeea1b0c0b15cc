/**
 * The tick rate as a player sees it: a real client counts distinct `state.tick` values per
 * wall-clock second over several seconds, at 64 and 128 Hz, and measures its own walking speed from
 * the positions in the patches it receives against its own wall clock (what a player feels), not
 * from the server's snapshot stamps (which are derived from the tick count and cannot see a slow tick).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { buildTestWorld, startTestServer, TEST_SPAWNS, TestPlayer, sleep, type TestServer } from '../helpers/server';
import { createInputMessage } from '../../shared/protocol/input';

const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

async function measure(tickRate: number): Promise<{ ticksPerSecond: number; speed: number; maxSpeed: number; statusTicks: number }> {
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
  p.sendInput(input);
  await sleep(3500);
  const statusLine = ts.server.statusLine();
  await p.leave();

  // Skip the first half second (acceleration, join), then count over >= 3 s.
  const from = seen.findIndex((s) => s.wall >= seen[0]!.wall + 500);
  const a = seen[from]!, b = seen.at(-1)!;
  const wallS = (b.wall - a.wall) / 1000;
  expect(wallS).toBeGreaterThanOrEqual(2.9);
  const ticksPerSecond = (b.tick - a.tick) / wallS;
  const speed = Math.abs(b.x - a.x) / wallS;
  return { ticksPerSecond, speed, maxSpeed: ts.server.config.movement.maxSpeed, statusTicks: Number(/ticks\/s ([\d.]+) of (\d+)/.exec(statusLine)?.[1]) };
}

describe('tick rate seen by a real client', () => {
  it('64 Hz: at least 97% of nominal ticks per wall-clock second; walking speed 6 m/s from patches', async () => {
    const m = await measure(64);
    expect(m.ticksPerSecond).toBeGreaterThanOrEqual(0.97 * 64);
    expect(m.ticksPerSecond).toBeLessThanOrEqual(1.03 * 64);
    expect(m.maxSpeed).toBe(6);
    expect(m.speed).toBeGreaterThanOrEqual(0.97 * 6);
    expect(m.speed).toBeLessThanOrEqual(1.03 * 6);
    // The status line's own measure (the last whole second) agrees with the client's; a second that
    // follows a stall holds the catch-up ticks, so it may read a little above nominal.
    expect(m.statusTicks).toBeGreaterThanOrEqual(0.97 * 64);
    expect(m.statusTicks).toBeLessThanOrEqual(1.1 * 64);
  });

  it('128 Hz: at least 97% of nominal ticks per wall-clock second; same walking speed', async () => {
    const m = await measure(128);
    expect(m.ticksPerSecond).toBeGreaterThanOrEqual(0.97 * 128);
    expect(m.ticksPerSecond).toBeLessThanOrEqual(1.03 * 128);
    expect(m.speed).toBeGreaterThanOrEqual(0.97 * 6);
    expect(m.speed).toBeLessThanOrEqual(1.03 * 6);
  });
});
