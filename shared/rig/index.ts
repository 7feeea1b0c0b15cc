/** Hitbox rigs: zones and multipliers, the rig format and loader, posing, and the shipped mannequin. */
export * from './rig';
export * from './posing';
export * from './mannequin';
export { fnv1a64 } from './hash';
