/**
 * Server-side fog of war: which enemies each client must be sent so none pops in (./fog for the
 * rule), the movement bounds it uses (./reach), the body envelope from a rig (./body) and the lines
 * it tests (./rays).
 */
export * from './fog';
export { FogSlots } from './slots';
export { FogPrecision } from './precision';
export * from './reach';
export * from './body';
export { FIXED_RAYS } from './rays';
export * from './climb';
export { buildWalkGrid, walkSupports, type WalkGrid } from './walk';
