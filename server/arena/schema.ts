/**
 * The arena's synced state (@colyseus/schema 5, `schema()` builder: works under tsx and vitest
 * without decorator settings). What every client sees: players (pose, view, animation, health,
 * score), a bounded list of recent bullet holes, a kill feed and the live projectiles. Audit data (verdict details,
 * histories, round trips of others) never goes on the wire.
 *
 * `serverTimeMs` and `tick` are those of the newest recorded snapshot: clients interpolate the
 * players' poses by these times and stamp their shots' render time on the same clock. Pose fields
 * hold exactly what the room records into its histories (float32 values where the wire is float32,
 * the animation time wrapped into its clip), so a client that records its patches rebuilds the
 * server's histories bit for bit.
 */
import { schema, t, type SchemaType } from '@colyseus/schema';

export const PlayerState = schema({
  slot: t.uint8(),
  name: t.string(),
  x: t.float64(),
  y: t.float64(),
  z: t.float64(),
  qx: t.float32(),
  qy: t.float32(),
  qz: t.float32(),
  qw: t.float32(),
  viewX: t.float32(),
  viewY: t.float32(),
  viewZ: t.float32(),
  clip: t.uint8(),
  animTime: t.float32(),
  health: t.float32(),
  alive: t.boolean(),
  kills: t.uint16(),
  deaths: t.uint16(),
  /** Bumps on every respawn (a teleport): clients must not interpolate across a change. */
  epoch: t.uint16(),
  /** The server's round-trip estimate for this player, ms (shown on scoreboards; the owner's clock uses its pings). */
  rttMs: t.float32(),
  /** Weapon id in hand. */
  weapon: t.uint8(),
  /** Rounds in the equipped weapon's magazine (as of the last weapon message; a reload under way fills it at reloadEndMs). */
  ammo: t.uint16(),
  /** Action time at which the equipped weapon's reload completes, server ms; 0 = not reloading. */
  reloadEndMs: t.float64(),
  /** Action time from which the equipped weapon is drawn, server ms. */
  drawEndMs: t.float64(),
  /** False while the player's connection is lost and the slot waits for it to reconnect. */
  connected: t.boolean(),
  /** The newest input seq the server has applied: the owner replays its later inputs on top (prediction). */
  inputSeq: t.uint32(),
}, 'PlayerState');
export type PlayerState = SchemaType<typeof PlayerState>;

export const BulletHole = schema({
  x: t.float32(),
  y: t.float32(),
  z: t.float32(),
  nx: t.float32(),
  ny: t.float32(),
  nz: t.float32(),
  /** "node/material" of the world surface hit. */
  surface: t.string(),
  shooter: t.int8(),
  seq: t.uint32(),
}, 'BulletHole');
export type BulletHole = SchemaType<typeof BulletHole>;

export const KillFeedEntry = schema({
  killer: t.int8(),
  victim: t.int8(),
  weapon: t.uint8(),
  zone: t.int8(),
  timeMs: t.float64(),
}, 'KillFeedEntry');
export type KillFeedEntry = SchemaType<typeof KillFeedEntry>;

/**
 * A live projectile as the server flies it: its state at `timeMs` (server ms), written when it
 * spawns and again at a tick where it bounced or began or stopped rolling, so between writes a
 * client re-flies it from this state against the level (shared/client/projectiles.ts) and draws it
 * where the server has it. Removed when its flight ends (the `projectile` message says how).
 */
export const ProjectileSnapshot = schema({
  id: t.uint32(),
  shooter: t.int8(),
  weapon: t.uint8(),
  /** The launch's seq: the shooter matches its predicted projectile to this one. */
  seq: t.uint32(),
  timeMs: t.float64(),
  ageMs: t.float64(),
  x: t.float64(),
  y: t.float64(),
  z: t.float64(),
  vx: t.float64(),
  vy: t.float64(),
  vz: t.float64(),
  bounces: t.uint16(),
  /** shared/projectile FlightMode: flying, rolling, stuck. */
  mode: t.uint8(),
}, 'ProjectileSnapshot');
export type ProjectileSnapshot = SchemaType<typeof ProjectileSnapshot>;

/**
 * What every client needs of every player whether or not it is sent that player (the scoreboard),
 * with fog of war on (ArenaFogState), where `players` holds only the players each client is sent.
 */
export const RosterEntry = schema({
  slot: t.uint8(),
  name: t.string(),
  kills: t.uint16(),
  deaths: t.uint16(),
  connected: t.boolean(),
  rttMs: t.float32(),
}, 'RosterEntry');
export type RosterEntry = SchemaType<typeof RosterEntry>;

export const ArenaState = schema({
  serverTimeMs: t.float64(),
  tick: t.uint32(),
  tickRate: t.uint8(),
  players: t.map(PlayerState),
  holes: t.array(BulletHole),
  killFeed: t.array(KillFeedEntry),
  /** Live projectiles by id. */
  projectiles: t.map(ProjectileSnapshot),
}, 'ArenaState');
export type ArenaState = SchemaType<typeof ArenaState>;

/**
 * The same state with fog of war on: `players`, `holes` and `projectiles` are filtered per client
 * (Colyseus StateView): a client is sent its own player and the enemies the fog lets through, and the
 * holes and projectiles it lets through (room.ts, fogHoles.ts, projectiles.ts), nothing of the others.
 * ArenaState's fields in the same order, so one reader reads both, then `roster`: by session id,
 * every player's scoreboard fields. (Fog off keeps ArenaState: the same bytes as without fog.)
 */
export const ArenaFogState = schema({
  serverTimeMs: t.float64(),
  tick: t.uint32(),
  tickRate: t.uint8(),
  players: t.map(PlayerState).view(),
  holes: t.array(BulletHole).view(),
  killFeed: t.array(KillFeedEntry),
  projectiles: t.map(ProjectileSnapshot).view(),
  roster: t.map(RosterEntry),
}, 'ArenaFogState');
export type ArenaFogState = SchemaType<typeof ArenaFogState>;
