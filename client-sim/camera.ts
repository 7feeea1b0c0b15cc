/**
 * The bot's third-person camera: 2.5 m behind the eye along the view, pulled in front of walls
 * (world.firstHit) and pushed off nearby surfaces (world.cameraPushBack), as a real client keeps
 * its camera out of the level every frame. Nothing it computes changes a shot; it exercises the
 * world queries a client runs per frame and counts how often they had to act.
 */
import { createWorldHit, type World } from '../shared/world/world';

export class Camera {
  /** Frames the camera had to be pulled in or pushed off. */
  pushes = 0;
  readonly position = new Float64Array(3);
  private readonly hit = createWorldHit();
  private readonly lines = new Float64Array([0.3, 0, 0, 0, 0.3, 0, 0, 0, 0.3]);

  constructor(private readonly world: World) {}

  update(eye: Float64Array, viewX: number, viewY: number, viewZ: number): void {
    const world = this.world;
    let cx = eye[0]! - viewX * 2.5, cy = eye[1]! - viewY * 2.5 + 0.4, cz = eye[2]! - viewZ * 2.5;
    if (world.firstHit(this.hit, eye[0]!, eye[1]!, eye[2]!, cx, cy, cz)) {
      const t = Math.max(0, this.hit.t - 0.05);
      cx = eye[0]! + (cx - eye[0]!) * t; cy = eye[1]! + (cy - eye[1]!) * t; cz = eye[2]! + (cz - eye[2]!) * t;
      this.pushes++;
    }
    if (world.cameraPushBack(this.position, cx, cy, cz, this.lines)) this.pushes++;
    else {
      this.position[0] = cx; this.position[1] = cy; this.position[2] = cz;
    }
  }
}
