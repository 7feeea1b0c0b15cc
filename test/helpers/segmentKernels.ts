/**
 * Test helper: every segment-vs-triangle kernel behind one calling shape, so tests and the
 * benchmark can run all of them on the same cases. `cull` marks the one-sided variants; `exact`
 * marks the kernels whose hit/miss must match the others away from edges.
 */
import { SegmentHit } from '../../shared/kernels/hit';
import { createPreparedSegment, intersectPrepared, prepareSegment } from '../../shared/kernels/watertight';
import { intersectMollerTrumbore } from '../../shared/kernels/mollerTrumbore';
import { COLLISION_MATRIX_STRIDE, intersectCollisionMatrix, writeCollisionMatrix } from '../../shared/kernels/collisionMatrix';
import { intersectPlaneBarycentric } from '../../shared/kernels/planeBarycentric';
import { createSweepHit, SWEEP_FRAME_STRIDE, sweepSphereTriangle, writeSweepFrame } from '../../shared/kernels/sweptSphere';
import { intersectAngleSum } from '../reference/angleSum';

export type SegmentKernel = (
  out: SegmentHit,
  sx: number, sy: number, sz: number,
  ex: number, ey: number, ez: number,
  ax: number, ay: number, az: number,
  bx: number, by: number, bz: number,
  cx: number, cy: number, cz: number,
) => boolean;

export interface NamedKernel {
  name: string;
  /** One-sided: only front faces (counter-clockwise seen from the start) can hit. */
  cull: boolean;
  /** Reports u, v and the normal (the angle-sum reference and the sphere adapter do not). */
  full: boolean;
  fn: SegmentKernel;
}

const seg = createPreparedSegment();
const matrix = new Float64Array(COLLISION_MATRIX_STRIDE);
const frame = new Float64Array(SWEEP_FRAME_STRIDE);
const sweep = createSweepHit();

export const SEGMENT_KERNELS: NamedKernel[] = [
  {
    name: 'watertight', cull: false, full: true,
    fn: (o, sx, sy, sz, ex, ey, ez, ax, ay, az, bx, by, bz, cx, cy, cz) =>
      intersectPrepared(o, prepareSegment(seg, sx, sy, sz, ex, ey, ez), ax, ay, az, bx, by, bz, cx, cy, cz, false, 1),
  },
  {
    name: 'watertight-cull', cull: true, full: true,
    fn: (o, sx, sy, sz, ex, ey, ez, ax, ay, az, bx, by, bz, cx, cy, cz) =>
      intersectPrepared(o, prepareSegment(seg, sx, sy, sz, ex, ey, ez), ax, ay, az, bx, by, bz, cx, cy, cz, true, 1),
  },
  {
    name: 'moller-trumbore', cull: false, full: true,
    fn: (o, sx, sy, sz, ex, ey, ez, ax, ay, az, bx, by, bz, cx, cy, cz) =>
      intersectMollerTrumbore(o, sx, sy, sz, ex, ey, ez, ax, ay, az, bx, by, bz, cx, cy, cz, false),
  },
  {
    name: 'moller-trumbore-cull', cull: true, full: true,
    fn: (o, sx, sy, sz, ex, ey, ez, ax, ay, az, bx, by, bz, cx, cy, cz) =>
      intersectMollerTrumbore(o, sx, sy, sz, ex, ey, ez, ax, ay, az, bx, by, bz, cx, cy, cz, true),
  },
  {
    name: 'collision-matrix', cull: false, full: true,
    fn: (o, sx, sy, sz, ex, ey, ez, ax, ay, az, bx, by, bz, cx, cy, cz) => {
      writeCollisionMatrix(matrix, 0, ax, ay, az, bx, by, bz, cx, cy, cz);
      return intersectCollisionMatrix(o, matrix, 0, sx, sy, sz, ex, ey, ez, false);
    },
  },
  {
    name: 'collision-matrix-cull', cull: true, full: true,
    fn: (o, sx, sy, sz, ex, ey, ez, ax, ay, az, bx, by, bz, cx, cy, cz) => {
      writeCollisionMatrix(matrix, 0, ax, ay, az, bx, by, bz, cx, cy, cz);
      return intersectCollisionMatrix(o, matrix, 0, sx, sy, sz, ex, ey, ez, true);
    },
  },
  {
    name: 'plane-barycentric', cull: false, full: true,
    fn: (o, sx, sy, sz, ex, ey, ez, ax, ay, az, bx, by, bz, cx, cy, cz) =>
      intersectPlaneBarycentric(o, sx, sy, sz, ex, ey, ez, ax, ay, az, bx, by, bz, cx, cy, cz, false),
  },
  {
    name: 'plane-barycentric-cull', cull: true, full: true,
    fn: (o, sx, sy, sz, ex, ey, ez, ax, ay, az, bx, by, bz, cx, cy, cz) =>
      intersectPlaneBarycentric(o, sx, sy, sz, ex, ey, ez, ax, ay, az, bx, by, bz, cx, cy, cz, true),
  },
  {
    name: 'angle-sum (reference)', cull: false, full: false,
    fn: intersectAngleSum,
  },
  {
    // A zero-radius swept sphere is a one-sided segment test: a useful cross-check of the sweep.
    name: 'swept-sphere r=0', cull: true, full: false,
    fn: (o, sx, sy, sz, ex, ey, ez, ax, ay, az, bx, by, bz, cx, cy, cz) => {
      writeSweepFrame(frame, 0, ax, ay, az, bx, by, bz, cx, cy, cz);
      o.hit = sweepSphereTriangle(sweep, frame, 0, sx, sy, sz, ex, ey, ez, 0);
      if (o.hit) {
        o.t = sweep.t;
        o.x = sweep.cx;
        o.y = sweep.cy;
        o.z = sweep.cz;
        o.front = true;
      }
      return o.hit;
    },
  },
];

/** Calls `k` with a triangle and segment given as arrays (convenience for hand-written cases). */
export function run(k: NamedKernel, out: SegmentHit, s: ArrayLike<number>, e: ArrayLike<number>,
  a: ArrayLike<number>, b: ArrayLike<number>, c: ArrayLike<number>): boolean {
  return k.fn(out, s[0], s[1], s[2], e[0], e[1], e[2], a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2]);
}
