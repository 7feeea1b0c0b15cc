/**
 * Projectiles: deterministic flight of rockets and grenades against the level and rewound players
 * (./flight), the catch-up of a shot fired in the past (./catchUp) and the blast that ends it
 * (./explosion), and a match's projectiles in flat arrays (./flights). Shared by the server, the predicting client and the audit.
 */
export * from './flight';
export * from './catchUp';
export * from './explosion';
export * from './flights';
