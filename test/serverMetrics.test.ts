/**
 * GET /metrics on a real server while real players play: the counters follow the server's stats
 * (shots, verdicts by kind and reason, message rejects, kills), the gauges its rooms and players,
 * the tick histogram counts ticks, round trips are sampled, match-log bytes grow, fog of war's rays
 * are counted, and Node's event-loop lag is there. A log directory that cannot be written shows as failed writes and bytes
 * waiting in memory, then, once the room closed its log, as bytes given up, still counted.
 * `metrics: false` serves none. The Colyseus monitor is served, behind basic auth, only when given
 * a password.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, joinPair, shootAtZone, waitFor, TEST_SPAWNS, buildTestWorld, type TestServer } from './helpers/server';
import { HitZone } from '../shared/rig/rig';
import { Msg } from '../shared/protocol/messages';

let ts: TestServer | null = null;
afterEach(async () => {
  await ts?.close();
  ts = null;
});

/** The value of one sample line (`name{labels} value`), NaN when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? Number.NaN : Number(line.slice(series.length + 1));
}

async function scrape(port: number): Promise<string> {
  const r = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
  return r.text();
}

describe('/metrics', () => {
  it('follows a real match', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hitreg-metrics-'));
    try {
      ts = await startTestServer({ level: buildTestWorld(), spawnPoints: TEST_SPAWNS, matchLogDir: dir });
      const [a, b] = await joinPair(ts.url);
      const v = await shootAtZone(a, ts, b.slot, 1, HitZone.HEAD);
      expect(v.reasonName).toBe('OK_HIT');
      await a.shoot({ seq: 1 }); // replayed seq: rejected
      a.room.send(Msg.SHOT, { not: 'bytes' }); // a shot that is not bytes: MALFORMED
      a.room.send('nonsense', 1); // unknown message type
      await a.until(() => a.verdicts.length >= 3 && a.rejects.length >= 1, 5000, 'replies');
      // Round-trip sampling runs once a second: wait for two samples.
      const port = ts.port;
      let text = '';
      // And for the fog's budget to have made a viewer precise (its timed updates, on a loaded machine, may take a while to settle under it).
      await waitFor(async () => {
        text = await scrape(port);
        return sample(text, 'hitreg_round_trip_seconds_count') >= 2 && sample(text, 'hitreg_fog_precise_viewer_updates_total') > 0;
      }, 'two round-trip samples and a precise fog viewer');
      expect(sample(text, 'hitreg_rooms')).toBe(1);
      expect(sample(text, 'hitreg_players')).toBe(2);
      expect(sample(text, 'hitreg_shots_total')).toBe(3);
      expect(sample(text, 'hitreg_verdicts_total{kind="hit",reason="OK_HIT"}')).toBe(1);
      expect(sample(text, 'hitreg_verdicts_total{kind="rejected",reason="SEQ_REPLAYED"}')).toBe(1);
      expect(sample(text, 'hitreg_verdicts_total{kind="rejected",reason="MALFORMED"}')).toBe(1);
      expect(sample(text, 'hitreg_message_rejects_total{reason="UNKNOWN_MESSAGE"}')).toBe(1);
      expect(sample(text, 'hitreg_ticks_total')).toBeGreaterThan(30);
      expect(sample(text, 'hitreg_tick_duration_seconds_count')).toBe(sample(text, 'hitreg_ticks_total'));
      expect(sample(text, 'hitreg_round_trip_seconds_count')).toBeGreaterThanOrEqual(2);
      // Two enemies with the fog on: its rays are counted; far under its cap, no pair went untested.
      expect(sample(text, 'hitreg_fog_rays_total')).toBeGreaterThan(0);
      expect(sample(text, 'hitreg_fog_pairs_over_budget_total')).toBe(0);
      // Its viewers each update (two at most), and two far under the 1 ms precision budget are made precise.
      const viewers = sample(text, 'hitreg_fog_viewer_updates_total'), precise = sample(text, 'hitreg_fog_precise_viewer_updates_total');
      expect(viewers).toBeGreaterThan(0);
      expect(viewers).toBeLessThanOrEqual(2 * sample(text, 'hitreg_ticks_total'));
      expect(precise).toBeGreaterThan(0);
      expect(precise).toBeLessThanOrEqual(viewers);
      // One update in eight is timed, each well under a tick.
      const timed = sample(text, 'hitreg_fog_timed_updates_total');
      expect(timed).toBeGreaterThanOrEqual(1);
      expect(timed).toBeLessThanOrEqual(sample(text, 'hitreg_ticks_total') / 8 + 1);
      expect(sample(text, 'hitreg_fog_timed_update_seconds_total')).toBeGreaterThan(0);
      expect(sample(text, 'hitreg_fog_timed_update_seconds_total')).toBeLessThan(timed / 64);
      expect(sample(text, 'hitreg_match_log_bytes_total')).toBeGreaterThan(1000);
      // A healthy disk: nothing given up, no failed write, nothing dropped.
      expect(sample(text, 'hitreg_match_log_unwritten_bytes_total')).toBe(0);
      expect(sample(text, 'hitreg_match_log_write_failures_total')).toBe(0);
      expect(sample(text, 'hitreg_match_log_dropped_records_total')).toBe(0);
      expect(sample(text, 'hitreg_match_log_pending_bytes')).toBeGreaterThanOrEqual(0);
      expect(text).toMatch(/^# TYPE hitreg_match_log_pending_bytes gauge$/m);
      expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
      expect(text).toMatch(/^# TYPE hitreg_verdicts_total counter$/m);

      // Counters only grow; gauges follow the room.
      await a.leave();
      await b.leave();
      const server = ts.server;
      await waitFor(() => server.stats.players === 0, 'both players gone');
      const after = await scrape(ts.port);
      expect(sample(after, 'hitreg_players')).toBe(0);
      expect(sample(after, 'hitreg_ticks_total')).toBeGreaterThanOrEqual(sample(text, 'hitreg_ticks_total'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('counts the match log\'s failed writes and the bytes it could not write, and keeps them once the log closed (an unwritable log directory)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hitreg-metrics-'));
    const blocked = join(dir, 'not-a-directory');
    writeFileSync(blocked, 'a file where the log directory should be');
    const lines: string[] = [];
    const consoleError = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(' ')));
    try {
      ts = await startTestServer({ level: buildTestWorld(), spawnPoints: TEST_SPAWNS, matchLogDir: blocked });
      const [a, b] = await joinPair(ts.url);
      await shootAtZone(a, ts, b.slot, 1, HitZone.HEAD);
      const port = ts.port;
      let text = '';
      // The room keeps playing; its records wait in memory while the writer fails and retries.
      await waitFor(async () => sample((text = await scrape(port)), 'hitreg_match_log_write_failures_total') >= 1, 'a failed open');
      await waitFor(async () => sample((text = await scrape(port)), 'hitreg_match_log_pending_bytes') > 1000, 'records waiting in memory');
      expect(sample(text, 'hitreg_match_log_bytes_total')).toBe(0);
      expect(sample(text, 'hitreg_match_log_unwritten_bytes_total')).toBe(0);
      const failures = sample(text, 'hitreg_match_log_write_failures_total');
      // The room closes its log with everything unwritten: given up, and counted still once the log is gone.
      await a.leave();
      await b.leave();
      const server = ts.server;
      await waitFor(() => server.rooms.size === 0, 'the room to close');
      await waitFor(async () => sample((text = await scrape(port)), 'hitreg_match_log_unwritten_bytes_total') > 1000, 'the bytes given up');
      expect(sample(text, 'hitreg_match_log_pending_bytes')).toBe(0);
      expect(sample(text, 'hitreg_match_log_write_failures_total')).toBeGreaterThanOrEqual(failures);
      expect(sample(text, 'hitreg_match_log_unwritten_bytes_total')).toBe(server.matchLogTotals().unwrittenBytes);
      expect(lines.some((l) => /closed with \d+ bytes unwritten/.test(l))).toBe(true);
    } finally {
      consoleError.mockRestore();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('metrics: false serves none', async () => {
    ts = await startTestServer({ metrics: false });
    const r = await fetch(`http://127.0.0.1:${ts.port}/metrics`);
    expect(r.status).toBe(404);
  });
});

describe('the Colyseus monitor', () => {
  it('is served at /colyseus/ behind basic auth when given a password, and lists the rooms', async () => {
    ts = await startTestServer({ monitor: { password: 'correct-horse-battery' } });
    await fetch(`http://127.0.0.1:${ts.port}/matchmake/create/arena`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect((await fetch(`http://127.0.0.1:${ts.port}/colyseus/api`)).status).toBe(401);
    const auth = { authorization: `Basic ${Buffer.from('admin:correct-horse-battery').toString('base64')}` };
    const api = await fetch(`http://127.0.0.1:${ts.port}/colyseus/api`, { headers: auth });
    expect(api.status).toBe(200);
    expect(((await api.json()) as { rooms: unknown[] }).rooms).toHaveLength(1);
    const page = await fetch(`http://127.0.0.1:${ts.port}/colyseus/`, { headers: auth });
    expect(await page.text()).toMatch(/<!DOCTYPE html>/);
  });

  it('is not there without a password', async () => {
    ts = await startTestServer();
    expect((await fetch(`http://127.0.0.1:${ts.port}/colyseus/api`)).status).toBe(404);
  });
});
