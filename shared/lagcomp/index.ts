/**
 * Lag compensation: player poses, per-player snapshot history, and rewind-and-test against hitboxes.
 *
 * Typical server use (one history per player slot, one snapshot per tick, one Rewinder per room):
 *
 *   const histories: (PlayerHistory | undefined)[] = [];
 *   histories[slot] = new PlayerHistory(PlayerHistory.capacityFor(tickHz, windowMs));
 *   // every tick, for every player:
 *   histories[slot].record(tick, serverTimeMs, pose);   // pose: createPlayerPose(), filled in place
 *   // on a shot (time = the server time the shooter saw, from the shot message):
 *   const rewinder = new Rewinder(MANNEQUIN_RIG, { policy: createRewindPolicy(250, OutOfWindow.REJECT) });
 *   const hit = createHitboxHit();
 *   if (rewinder.firstHit(hit, histories, shotTimeMs, sx, sy, sz, ex, ey, ez, shooterSlot)) {
 *     damage = base * zoneMultiplier(hit.zone, weapon.zoneMultipliers);   // hit.player, hit.t, hit.status
 *   }
 *
 * Bump pose.epoch on every teleport and respawn; keep pose.time (clip time) running while the clip
 * stays the same. The audit can record MANNEQUIN_RIG.hash and rewinder.trianglesAt(...) snapshots.
 *
 * Volumes (thick projectiles, melee, explosions) on the same rewound poses: a VolumeRewinder composed
 * from the Rewinder sweeps a sphere (sphereCast, sphereCastAll) or finds every player a sphere, a
 * capsule or an oriented box overlaps with its nearest hitbox (overlapSphere, overlapCapsule, overlapBox).
 */
export * from './pose';
export * from './history';
export * from './rewind';
export * from './rewindVolume';
