/**
 * Where the player wants to go (the movement input; the server moves it): wander near home, turn
 * when the ground ahead ends or a wall is close (world.groundHeight, world.anyHit) or every few
 * seconds; in a fight, strafe left and right across the line of fire and jump now and then, as the
 * human model dodges (./human/dodge.ts, as the synthetic players do). The wish is a horizontal
 * direction of length <= 1 (shorter is a walk); `jump` asks for one jump in the next input.
 */
import type { World } from '../shared/world/world';
import type { Rng } from './rng';
import { drawStrafes, nextJumpAt, nextSideAt } from './human/dodge';

export class Steering {
  wishX = 0;
  wishZ = 0;
  jump = false;
  /** Jumps asked for. */
  jumps = 0;
  private nextTurnAt = 0;
  private homeX = 0;
  private homeZ = 0;
  homeSet = false;
  private strafeSign = 1;
  private nextStrafeAt = 0;
  private nextJumpAt = 0;
  private strafing = false;
  private engaged = -1;

  constructor(private readonly world: World, private readonly rng: Rng, private readonly eyeHeight: number) {}

  setHome(x: number, z: number): void {
    this.homeX = x;
    this.homeZ = z;
    this.homeSet = true;
  }

  /** Stand still (no wish, no jumps): see SimOptions.cheatersStill. */
  still = false;

  /** Decides this frame's wish from the eye position, the view and the engaged target (-1 none). */
  update(now: number, eye: Float64Array, viewX: number, viewZ: number, target: number): void {
    this.jump = false;
    if (this.still) {
      this.wishX = 0; this.wishZ = 0;
      return;
    }
    if (target !== this.engaged) {
      this.engaged = target;
      this.strafing = target >= 0 && drawStrafes(this.rng);
      this.nextStrafeAt = 0;
    }
    if (now >= this.nextJumpAt) {
      if (this.nextJumpAt > 0) {
        this.jump = true;
        this.jumps++;
      }
      this.nextJumpAt = nextJumpAt(now, target >= 0, this.rng);
    }
    if (this.strafing) {
      this.strafe(now, eye, viewX, viewZ);
      return;
    }
    this.wander(now, eye);
  }

  private clear(x: number, feetY: number, z: number, dx: number, dz: number): boolean {
    const ax = x + dx * 1.5, az = z + dz * 1.5;
    const g = this.world.groundHeight(ax, feetY + 0.5, az, 1.5);
    return g === g && !this.world.anyHit(x, feetY + 1.0, z, ax, feetY + 1.0, az);
  }

  /** Side steps across the view, switching side every 0.3-1 s or at a wall or ledge. */
  private strafe(now: number, eye: Float64Array, viewX: number, viewZ: number): void {
    const x = eye[0]!, z = eye[2]!, feetY = eye[1]! - this.eyeHeight;
    const h = Math.sqrt(viewX * viewX + viewZ * viewZ) || 1;
    let sx = -viewZ / h * this.strafeSign, sz = viewX / h * this.strafeSign;
    if (now >= this.nextStrafeAt || !this.clear(x, feetY, z, sx, sz)) {
      this.strafeSign = -this.strafeSign;
      this.nextStrafeAt = nextSideAt(now, this.rng);
      sx = -sx; sz = -sz;
      if (!this.clear(x, feetY, z, sx, sz)) {
        this.wishX = 0; this.wishZ = 0;
        return;
      }
    }
    this.wishX = sx; this.wishZ = sz;
  }

  private wander(now: number, eye: Float64Array): void {
    const x = eye[0]!, z = eye[2]!;
    const feetY = eye[1]! - this.eyeHeight;
    let turn = now >= this.nextTurnAt;
    if (!turn && (this.wishX !== 0 || this.wishZ !== 0)) {
      const l = Math.sqrt(this.wishX * this.wishX + this.wishZ * this.wishZ);
      if (!this.clear(x, feetY, z, this.wishX / l, this.wishZ / l)) turn = true;
    }
    if (!turn) return;
    this.nextTurnAt = now + this.rng.uniform(1500, 4000);
    const hx = this.homeX - x, hz = this.homeZ - z;
    const far = hx * hx + hz * hz > 10 * 10;
    for (let tries = 0; tries < 8; tries++) {
      let wx: number, wz: number;
      if (far && tries < 4) {
        const l = Math.sqrt(hx * hx + hz * hz);
        wx = hx / l + 0.4 * this.rng.normal(); wz = hz / l + 0.4 * this.rng.normal();
      } else {
        const a = this.rng.uniform(0, 2 * Math.PI);
        wx = Math.cos(a); wz = Math.sin(a);
      }
      const l = Math.sqrt(wx * wx + wz * wz) || 1;
      wx /= l; wz /= l;
      if (this.clear(x, feetY, z, wx, wz)) {
        // Jog most of the time (a wish shorter than 1 is a slower walk).
        const speed = this.rng.next() < 0.2 ? 0 : this.rng.uniform(0.5, 1);
        this.wishX = wx * speed; this.wishZ = wz * speed;
        return;
      }
    }
    this.wishX = 0; this.wishZ = 0;
  }
}
