/**
 * The browser-safe entry of hitreg's shared code (package export "hitreg"): everything a game's
 * client needs to predict exactly as the server judges (kernels, the world, rigs and their
 * posing, lag compensation, projectiles and explosions, the shot pipeline, the wire protocol, movement, the predicting
 * client's view of the match, its weapon state and shot prediction). No Node module, no DOM, no clock.
 *
 * The mannequin rig is not in here as code: load it, or the server's rig, from its binary asset
 * (`rigFromBuffer`, the bytes of `hitreg/assets/mannequin.hrrg` or the server's `/assets/rig/<hash>.hrrg`).
 */
export * from './kernels/index';
export { World, createWorldHit, createWorldHits, hitEntersSolid, WORLD_MAGIC, WORLD_VERSION, type Surface, type SurfaceRange, type TriangleHits, type WorldHit, type WorldHits } from './world/world';
export * from './rig/rig';
export * from './rig/posing';
export { RIG_BINARY_MAGIC, RIG_BINARY_VERSION, MAX_RIG_BINARY_BYTES, rigDataToBuffer, rigDataFromBuffer, rigFromBuffer } from './rig/rigBinary';
export * from './lagcomp/index';
export * from './projectile/index';
export * from './validate/shot';
export * from './validate/scene';
export * from './validate/verdict';
export * from './validate/weaponRules';
export * from './validate/spread';
export * from './validate/pelletVerdict';
export { DEFAULT_PLAYER_COST, DEFAULT_RESISTANCE, SHEET_THICKNESS_M, surfaceResistance } from './validate/pellets';
export * from './weapons';
export * from './movement/step';
export * from './protocol/messages';
export * from './protocol/shotObject';
export * from './client/view';
export * from './client/weaponState';
export * from './client/predictor';
export * from './client/client';
export * from './client/stamps';
export * from './client/projectiles';
export { fnv1a64 } from './util/hash';
export { mulberry32, uniform, type Uniform } from './util/prng';
