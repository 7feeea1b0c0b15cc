/**
 * A predicting client's view against the arena over real WebSockets while an enemy walks out from
 * behind the test level's wall and back, twice: A at spawn A, C behind the wall (spawn C). Every
 * patch A receives goes through SnapshotPool and MatchView; after each, at render times over the
 * last 400 ms, C is drawn only within its newest run of states: never before the run's first state,
 * and while A's newest state lacks it (its tail) never after the run's last. With the arena's fog of
 * war on, C comes and goes from A's state (at least three changes, its tail drawn); without it, C is
 * in every state and drawn throughout.
 */
import { describe, expect, it } from 'vitest';
import { buildTestWorld, startTestServer, TestPlayer, TEST_SPAWNS } from './helpers/server';
import { MatchView, SnapshotPool, Snap, SNAP_STRIDE } from '../shared/client/view';
import { createPlayerPose } from '../shared/lagcomp/pose';
import { rewindReachMs } from '../shared/validate/rules';
import { walkPastWallAndBack } from './helpers/fogWalk';

const INTERP = 100;

describe('a client\'s view of an enemy walking out from behind a wall and back', () => {
  it('draws it only from the received states of its newest run (its tail while withheld)', async () => {
    const ts = await startTestServer({ level: buildTestWorld(), spawnPoints: TEST_SPAWNS, respawnDelayMs: 250 });
    try {
      const a = await TestPlayer.create(ts.url, { interpDelayMs: INTERP });
      const b = await TestPlayer.join(ts.url, a.room.roomId, { interpDelayMs: INTERP });
      const c = await TestPlayer.join(ts.url, a.room.roomId, { interpDelayMs: INTERP });
      for (const p of [a, b, c]) await p.until(() => p.pings >= 2 && p.slot >= 0 && p.snapshots.length >= 4, 5000, 'pings and state');
      expect(c.slot).toBe(2);
      const room = ts.server.rooms.get(a.room.roomId)!;
      const fog = ((room as unknown as { fog?: unknown }).fog ?? null) !== null; // the arena's FogFilter, when it has one and it is on
      const w = a.welcome!;
      const view = new MatchView(ts.server.world, ts.server.rig, w.validation.maxPlayers, rewindReachMs(w.validation), w.tickRate);
      const pool = new SnapshotPool(w.validation.maxPlayers, 2);
      /** Each applied state: its time and whether it held C. */
      const got: { t: number; present: boolean }[] = [];
      const pose = createPlayerPose();
      let drawn = 0, tailDrawn = 0, changes = 0;
      const wrong: string[] = [];
      a.room.onStateChange((state: unknown) => {
        const snap = pool.capture(state);
        if (snap === null) return;
        view.apply(snap);
        const present = snap.players[2 * SNAP_STRIDE + Snap.PRESENT] === 1;
        snap.inUse = false;
        if (got.length > 0 && !(snap.timeMs > got.at(-1)!.t)) return; // a repeat: the view skipped it
        if (got.length > 0 && got.at(-1)!.present !== present) changes++;
        got.push({ t: snap.timeMs, present });
        // Its newest run (the current one, or its tail while absent): from its first state to its last.
        let last = got.length - 1;
        while (last >= 0 && !got[last]!.present) last--;
        let r = last;
        while (r > 0 && got[r - 1]!.present) r--;
        for (let t = snap.timeMs - 400; t <= snap.timeMs + 20; t += 7) {
          if (!view.renderPose(pose, 2, t)) continue;
          drawn++;
          if (!present) tailDrawn++;
          if (last < 0 || t < got[r]!.t || (!present && t > got[last]!.t)) wrong.push(`drawn at ${t}: present ${present}, run ${last < 0 ? 'none' : `${got[r]!.t}..${got[last]!.t}`}`);
        }
      });
      const cx = () => room.match.scene.histories[2]!.sweepX;
      await walkPastWallAndBack(c, cx, () => a.snapshotsPass(10), () => a.snapshotsPass(30));
      expect(wrong).toEqual([]);
      expect(drawn).toBeGreaterThan(100);
      if (fog) expect([changes >= 3, tailDrawn > 0]).toEqual([true, true]);
      else expect([changes, got.every((g) => g.present)]).toEqual([0, true]);
      await Promise.all([a, b, c].map((p) => p.leave()));
    } finally {
      await ts.close();
    }
  }, 60_000);
});
