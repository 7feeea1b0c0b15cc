/**
 * The bot's own horizontal speed as the server moved it, read from its own snapshots: between two
 * snapshots of one life, the distance over the movement steps the server applied (each stepped
 * input moves by one nominal dt; a tick catching up after a stall steps several; with none
 * stepped, the ticks count). The largest is the speed cheat's measure.
 */
export class SnapSpeed {
  /** Largest speed per stepped input seen, m/s. */
  max = 0;
  private x = Number.NaN;
  private z = 0;
  private tick = 0;
  private seq = 0;
  private epoch = -1;

  constructor(private readonly tickRate: number) {}

  /** An own snapshot at `tick`: position (x, z), alive, life `epoch`, newest input seq applied. */
  observe(tick: number, x: number, z: number, alive: boolean, epoch: number, applied: number): void {
    if (alive && epoch === this.epoch && this.x === this.x && tick > this.tick) {
      const dx = x - this.x, dz = z - this.z;
      const steps = applied > this.seq ? applied - this.seq : tick - this.tick;
      const speed = (Math.sqrt(dx * dx + dz * dz) * this.tickRate) / steps;
      if (speed > this.max) this.max = speed;
    }
    this.x = x; this.z = z; this.tick = tick; this.epoch = epoch; this.seq = applied;
  }
}
