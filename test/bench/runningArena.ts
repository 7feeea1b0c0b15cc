/**
 * Shared set-up of the volume and projectile benches: `players` players running straight across a
 * square arena `spanM` wide for one second at `hz`, turning slowly, each with its clip (seeded), as
 * histories ready to rewind; and the start times of garbage collections, watched while a bench runs.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { DEFAULT_REWIND_WINDOW_MS, PlayerHistory } from '../../shared/lagcomp/history';
import { createPlayerPose } from '../../shared/lagcomp/pose';
import { mulberry32 } from '../../shared/util/prng';

export function runningArena(players: number, hz: number, spanM: number): { histories: PlayerHistory[]; newest: number } {
  const rnd = mulberry32(0x7e3d + hz);
  const dt = 1000 / hz;
  const cap = PlayerHistory.capacityFor(hz, DEFAULT_REWIND_WINDOW_MS);
  const pose = createPlayerPose();
  const state = Array.from({ length: players }, () => ({
    x: (rnd() - 0.5) * spanM, z: (rnd() - 0.5) * spanM, vx: (rnd() - 0.5) * 12, vz: (rnd() - 0.5) * 12, yaw: rnd() * 6.28, clip: Math.floor(rnd() * 3),
  }));
  const histories = state.map(() => new PlayerHistory(cap));
  for (let tick = 0; tick < hz; tick++) {
    for (let p = 0; p < players; p++) {
      const s = state[p]!, t = tick / hz;
      pose.x = s.x + s.vx * t; pose.y = 0; pose.z = s.z + s.vz * t;
      const half = (s.yaw + 0.5 * t) / 2;
      pose.qx = 0; pose.qy = Math.sin(half); pose.qz = 0; pose.qw = Math.cos(half);
      pose.clip = s.clip; pose.time = t;
      histories[p]!.record(tick, tick * dt, pose);
    }
  }
  return { histories, newest: (hz - 1) * dt };
}

/** Start times (performance.now) of the garbage collections seen while watching. */
export class GcWatch {
  readonly starts: number[] = [];
  private readonly observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) this.starts.push(e.startTime);
  });

  start(): void {
    this.observer.observe({ entryTypes: ['gc'] });
  }

  stop(): void {
    this.observer.disconnect();
  }

  /** Collections that started between t0 and t1. */
  between(t0: number, t1: number): number {
    return this.starts.filter((t) => t >= t0 && t <= t1).length;
  }
}
