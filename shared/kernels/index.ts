/**
 * The public kernel API of shared/: segment-vs-triangle tests, the swept-sphere test and closest
 * points of a point or a segment and a triangle. Every kernel takes plain numbers or flat typed
 * arrays, writes into a caller-owned record passed first, and allocates nothing per query. Verdicts
 * use the watertight kernel; the others are kept for comparison, speed and special uses (see each
 * module's header).
 */
export type { SegmentHit } from './hit';
export { createSegmentHit, clearSegmentHit, copySegmentHit } from './hit';
export type { PreparedSegment } from './watertight';
export {
  createPreparedSegment, prepareSegment, intersectPrepared, intersectPreparedAt, intersectWatertight,
} from './watertight';
export { MT_RELATIVE_EPSILON, intersectMollerTrumbore } from './mollerTrumbore';
export {
  COLLISION_MATRIX_STRIDE,
  writeCollisionMatrix,
  buildCollisionMatrices,
  buildCollisionMatricesInto,
  composeCollisionMatrix,
  composeCollisionMatrices,
  intersectCollisionMatrix,
} from './collisionMatrix';
export { intersectPlaneBarycentric } from './planeBarycentric';
export type { SweepHit } from './sweptSphere';
export {
  SweepFeature,
  SWEEP_FRAME_STRIDE,
  SLIVER_SINE,
  createSweepHit,
  writeSweepFrame,
  buildSweepFrames,
  buildSweepFramesInto,
  sweepSphereTriangle,
  sweepSphereTriangleAt,
  sweepSphereFace,
} from './sweptSphere';
export type { ClosestPair } from './closestPoint';
export {
  createClosestPair, closestPointTriangle, closestPointTriangleAt, closestSegmentTriangle, closestSegmentTriangleAt,
} from './closestPoint';
export * from './perTriangle';
