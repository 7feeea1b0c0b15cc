/**
 * Draws shot marks (shotMarks.ts) with three.js: a tracer per pellet, solid up to the first wall it
 * entered and dashed through and behind the walls it passed, a dot on every hit, and bullet holes
 * (dark where a pellet went in or stopped, pale where it came out), with a dot on each hole when
 * seen from afar (the viewer). Each shot's marks are kept under a key so a later plan (the verdict)
 * replaces the earlier one (the prediction); tracers and dots fade after a while, holes stay (the
 * oldest go beyond a cap).
 */
import * as THREE from 'three';
import { bulletHole } from './scene';
import type { ShotMarks } from './shotMarks';

export const MarkColour = {
  PREDICTED: 0xffe04a,
  CONFIRMED: 0x55ff55,
  CORRECTED: 0xff5555,
  /** A hole where a pellet went in or stopped, and one where it came out of a wall. */
  ENTRY: 0x111111,
  EXIT: 0xc08a50,
  HIT: 0xffffff,
} as const;

interface Drawn {
  key: number;
  transient: THREE.Group;
  holes: THREE.Object3D[];
  until: number;
}

export class ShotDecor {
  readonly group = new THREE.Group();
  private readonly holes = new THREE.Group();
  private readonly drawn: Drawn[] = [];

  /**
   * `tracerMs`: how long tracers and dots stay (Infinity: until replaced); `holeDots`: a dot on
   * every hole too, for a view from afar.
   */
  constructor(private readonly tracerMs = 1500, private readonly maxHoles = 160, private readonly holeDots = false) {
    this.group.add(this.holes);
  }

  /**
   * Draws `marks` for shot `key` in `colour`, replacing what that key had drawn. Tracers start at
   * `from` (a muzzle beside the eye, so a tracer along the view is seen), else at the marks' start.
   */
  show(key: number, marks: ShotMarks, colour: number, now: number, from?: readonly [number, number, number]): void {
    this.remove(key);
    const transient = new THREE.Group();
    const [ox, oy, oz] = from ?? [marks.sx, marks.sy, marks.sz];
    marks.pellets.forEach((p, k) => {
      // The first hole this pellet entered: the tracer is solid up to it, dashed beyond.
      const entry = p.walls > 0 ? marks.holes.find((h) => h.pellet === k && !h.exit) : undefined;
      if (entry === undefined) {
        transient.add(line(ox, oy, oz, p.x, p.y, p.z, colour, false));
      } else {
        transient.add(line(ox, oy, oz, entry.x, entry.y, entry.z, colour, false));
        transient.add(line(entry.x, entry.y, entry.z, p.x, p.y, p.z, colour, true));
      }
    });
    for (const h of marks.hits) transient.add(dot(h.x, h.y, h.z, MarkColour.HIT, 'hit'));
    const holes: THREE.Object3D[] = [];
    for (const h of marks.holes) {
      const colourOf = h.exit ? MarkColour.EXIT : MarkColour.ENTRY;
      if (this.holeDots) transient.add(dot(h.x, h.y, h.z, colourOf, 'hole'));
      const m = bulletHole(h.x, h.y, h.z, h.nx, h.ny, h.nz, colourOf);
      m.userData.exit = h.exit;
      holes.push(m);
      this.holes.add(m);
    }
    while (this.holes.children.length > this.maxHoles) this.holes.remove(this.holes.children[0]!);
    this.group.add(transient);
    this.drawn.push({ key, transient, holes, until: now + this.tracerMs });
  }

  /** Fades out tracers and hit dots older than their time. */
  update(now: number): void {
    for (let i = this.drawn.length - 1; i >= 0; i--) {
      const d = this.drawn[i]!;
      if (now < d.until || d.transient.parent === null) continue;
      this.group.remove(d.transient);
      disposeAll(d.transient);
    }
    // Keep the bookkeeping of shots whose holes are still drawn only.
    while (this.drawn.length > 0 && this.drawn[0]!.transient.parent === null && this.drawn[0]!.holes.every((h) => h.parent === null)) this.drawn.shift();
  }

  /** What is drawn for shot `key` now: tracer pieces, hit dots, holes (and how many are exit holes). */
  counts(key: number): { tracers: number; hits: number; holes: number; exits: number } {
    const d = this.drawn.find((x) => x.key === key);
    if (d === undefined) return { tracers: 0, hits: 0, holes: 0, exits: 0 };
    const live = d.transient.parent === null ? [] : d.transient.children;
    const holes = d.holes.filter((h) => h.parent !== null);
    return {
      tracers: live.filter((o) => o instanceof THREE.Line).length,
      hits: live.filter((o) => o.userData.mark === 'hit').length,
      holes: holes.length,
      exits: holes.filter((h) => h.userData.exit === true).length,
    };
  }

  clear(): void {
    for (const d of this.drawn) this.forget(d);
    this.drawn.length = 0;
  }

  private remove(key: number): void {
    const i = this.drawn.findIndex((x) => x.key === key);
    if (i < 0) return;
    this.forget(this.drawn[i]!);
    this.drawn.splice(i, 1);
  }

  private forget(d: Drawn): void {
    this.group.remove(d.transient);
    disposeAll(d.transient);
    for (const h of d.holes) this.holes.remove(h);
  }
}

function line(ax: number, ay: number, az: number, bx: number, by: number, bz: number, colour: number, dashed: boolean): THREE.Line {
  const g = new THREE.BufferGeometry().setFromPoints([new THREE.Vector3(ax, ay, az), new THREE.Vector3(bx, by, bz)]);
  const material = dashed
    ? new THREE.LineDashedMaterial({ color: colour, dashSize: 0.15, gapSize: 0.1, depthTest: false, transparent: true })
    : new THREE.LineBasicMaterial({ color: colour, depthTest: false, transparent: true });
  const l = new THREE.Line(g, material);
  if (dashed) l.computeLineDistances();
  l.renderOrder = 5;
  return l;
}

function dot(x: number, y: number, z: number, colour: number, mark: 'hit' | 'hole'): THREE.Mesh {
  const m = new THREE.Mesh(new THREE.SphereGeometry(mark === 'hit' ? 0.035 : 0.025, 8, 6), new THREE.MeshBasicMaterial({ color: colour, depthTest: false, transparent: true }));
  m.position.set(x, y, z);
  m.userData.mark = mark;
  m.renderOrder = 6;
  return m;
}

function disposeAll(g: THREE.Group): void {
  for (const o of g.children) {
    const m = o as THREE.Mesh;
    m.geometry?.dispose();
    (m.material as THREE.Material | undefined)?.dispose();
  }
  g.clear();
}

/**
 * Where a shot's tracers start: 0.3 m along the segment S -> E from its start, 0.12 m to the right
 * and 0.1 m down (a tracer from the eye along the view would be a point on the screen).
 */
export function muzzle(segment: readonly number[]): [number, number, number] {
  const [sx, sy, sz] = [segment[0]!, segment[1]!, segment[2]!];
  const x = segment[3]! - sx, y = segment[4]! - sy, z = segment[5]! - sz;
  const l = Math.sqrt(x * x + y * y + z * z) || 1;
  const dx = x / l, dy = y / l, dz = z / l;
  // Right of the view, level: (-dz, 0, dx) normalised.
  const h = Math.sqrt(dx * dx + dz * dz) || 1;
  return [sx + dx * 0.3 - (dz / h) * 0.12, sy + dy * 0.3 - 0.1, sz + dz * 0.3 + (dx / h) * 0.12];
}
