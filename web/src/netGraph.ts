/**
 * The net graph (Source's net_graph in spirit): round trip, interpolation delay, measured tick
 * rate (the server's tick number as received, per second), prediction agreement over the last
 * shots and the last reconciliation error, as text and a strip chart of the round trip.
 */
import type { Game } from './game';

export class NetGraph {
  private readonly rtts: number[] = [];
  private lastAt = 0;
  private lastTick = -1;
  tickRate = 0;

  constructor(private readonly el: HTMLElement, private readonly chart: HTMLCanvasElement, private readonly game: Game) {}

  /** Agreement of prediction and verdict over the last `n` judged shots: [agreed, judged]. */
  agreement(n = 50): [number, number] {
    let agreed = 0, judged = 0;
    const shots = this.game.shots;
    for (let i = shots.length - 1; i >= 0 && judged < n; i--) {
      const s = shots[i]!;
      if (s.agreed === null) continue;
      judged++;
      if (s.agreed) agreed++;
    }
    return [agreed, judged];
  }

  update(now: number): void {
    if (now - this.lastAt < 250) return;
    const g = this.game;
    const dt = (now - this.lastAt) / 1000;
    // Server ticks per second as received: the synced tick number's advance over wall-clock time.
    const tick = g.view.latestTick;
    if (this.lastAt > 0 && this.lastTick >= 0 && tick >= this.lastTick) this.tickRate = (tick - this.lastTick) / dt;
    this.lastAt = now;
    this.lastTick = tick;
    this.rtts.push(g.net.rtt.ms);
    if (this.rtts.length > 120) this.rtts.shift();
    const [a, j] = this.agreement();
    this.el.textContent =
      `rtt ${g.net.rtt.ms.toFixed(0)} ms  interp ${g.net.welcome.interpDelayMs} ms  ` +
      `tick ${this.tickRate.toFixed(0)}/${g.net.welcome.tickRate} Hz\n` +
      `prediction ${j === 0 ? '-' : `${((100 * a) / j).toFixed(0)}% of ${j}`}  correction ${(g.stats.correctionM * 100).toFixed(1)} cm`;
    const c = this.chart.getContext('2d');
    if (c === null) return;
    const w = this.chart.width, h = this.chart.height;
    c.clearRect(0, 0, w, h);
    c.strokeStyle = '#7f7';
    c.beginPath();
    const max = Math.max(100, ...this.rtts);
    this.rtts.forEach((r, i) => {
      const x = (i / 119) * w, y = h - (r / max) * h;
      if (i === 0) c.moveTo(x, y);
      else c.lineTo(x, y);
    });
    c.stroke();
  }
}
