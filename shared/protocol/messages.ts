/**
 * Message names of the arena room and the JSON shapes the server sends back. Client-to-server
 * messages are binary (shot, input, pong: see their modules); server-to-client replies that carry
 * no hot-path data (verdicts, hit confirmations, damage directions) are small JSON objects.
 */
import type { ValidationConfig } from '../validate/shot';
import type { MoveConfig } from '../movement/step';

export { SHOT_BYTES, SHOT_MAX_BYTES, SHOT_PELLET_BYTES, shotBytes, shotFrame, SHOT_VERSION, ShotAction, decodeShot, encodeShot, createShotMessage, FrameStatus, MAX_CLIENT_MESSAGE_BYTES, checkFrame, viewOf, type ShotMessage } from './shot';
export { INPUT_BYTES, INPUT_VERSION, InputButton, InputStatus, decodeInput, encodeInput, createInputMessage, type InputMessage } from './input';
export { BACKFILL_VERSION, BACKFILL_MAX_SAMPLES, BF_STRIDE, Bf, backfillBytes, createBackfill, decodeBackfill, encodeBackfill, type Backfill } from './backfill';
export { PING_BYTES, PING_VERSION, encodePing, decodePing, createPingMessage, ServerClockEstimate, type PingMessage } from './ping';

export const ROOM_NAME = 'arena';

/**
 * WebSocket close codes the server ends a connection with, besides Colyseus's own (1000-1006;
 * 4000 a consented leave, 4001 server shutdown, 4002 an error, 4003 a failed reconnection, 4010 may
 * try to reconnect; 4217 an invalid payload). A client that gets one of these may still reconnect
 * with its reconnection token when the server kept its slot.
 */
/** Too many refused messages for too long (server/arena/budget.ts); the slot is not kept. */
export const CLOSE_OVER_BUDGET = 4429;
/**
 * Not reading: the data the server could not send to this client stayed over the bound
 * (hitreg/server StallWatch, the server's STALL_MAX_BYTES / STALL_MAX_MS). The slot is kept for
 * reconnection like any lost connection's.
 */
export const CLOSE_STALLED = 4408;

/** Message type names. */
export const Msg = {
  /** client -> server, bytes: a weapon message, fire / switch / reload (shot.ts). */
  SHOT: 'shot',
  /** client -> server, bytes: a movement input (input.ts). */
  INPUT: 'input',
  /** server -> client, bytes: clock/RTT probe (ping.ts); the client echoes it as PONG. */
  PING: 'ping',
  PONG: 'pong',
  /** server -> shooter, JSON VerdictReply: the verdict of every shot, including rejections. */
  VERDICT: 'verdict',
  /** server -> shooter, JSON HitReply: hit confirmation. */
  HIT: 'hit',
  /** server -> victim, JSON DamagedReply: damage and the direction it came from. */
  DAMAGED: 'damaged',
  /** server -> every client, JSON ProjectileEndReply: a rocket's or grenade's flight ended (and what its blast did). */
  PROJECTILE: 'projectile',
  /** server -> sender, JSON RejectReply: a non-shot message that was refused. */
  REJECT: 'reject',
  /**
   * server -> client, bytes: an enemy's recent poses as fog of war starts sending it again
   * (backfill.ts), to a client that joined with `fogBackfill: true`.
   */
  BACKFILL: 'backfill',
  /** server -> joining client, JSON WelcomeReply: its slot, the rules and the world and rig by content hash. */
  WELCOME: 'welcome',
} as const;
export type Msg = (typeof Msg)[keyof typeof Msg];

export interface VerdictReply {
  seq: number;
  kind: number;
  reason: number;
  reasonName: string;
  target: number;
  zone: number;
  t: number;
  damage: number;
  rewindTimeMs: number;
  timeSource: number;
  /** Distance from the shot's start to the shooter's eye path as the server recorded it, metres (-1 when not measured). */
  originOffsetM: number;
  /**
   * A weapon with a spread pattern or penetration: each pellet's end (where it stopped), reason and
   * walls passed; and every impact on the world (entry and exit holes). Absent for a single
   * segment that passed no wall.
   */
  pellets?: PelletReply[];
  impacts?: ImpactReply[];
  /** A launch (kind LAUNCH): the id of the projectile the server flies, -1 when it refused to fly it. */
  projectile?: number;
  /** A flown launch: the server time its flight started (the shooter re-flies its prediction from it). */
  projectileStartMs?: number;
  /**
   * Debug verdicts only (the server's `debugVerdicts` and the client's `debug` join option): every
   * other player's pose as the server rewound it for this shot, to draw beside what the client saw.
   */
  rewound?: RewoundPose[];
}

/**
 * A projectile's flight ended. `kind` is shared/projectile FlightEventKind (PLAYER, LEVEL, FUSE,
 * EXPIRED); `victims` lists the direct hit first (when the weapon does direct damage), then each
 * player the blast reached, with what the server applied (0 for a teammate spared or one already dead).
 */
export interface ProjectileEndReply {
  id: number;
  shooter: number;
  weapon: number;
  seq: number;
  kind: number;
  x: number;
  y: number;
  z: number;
  timeMs: number;
  /** The player the projectile itself struck (kind PLAYER), -1 for none. */
  player: number;
  exploded: boolean;
  victims: { slot: number; damage: number; killed: boolean }[];
}

export interface PelletReply {
  reason: number;
  /** Where the pellet stopped (its end when it flew on). */
  x: number;
  y: number;
  z: number;
  walls: number;
  target: number;
}

export interface ImpactReply {
  x: number;
  y: number;
  z: number;
  nx: number;
  ny: number;
  nz: number;
  exit: boolean;
}

/** One player's pose at a verdict's rewind time (PlayerPose's numbers; hitboxes follow from the rig). */
export interface RewoundPose {
  slot: number;
  x: number;
  y: number;
  z: number;
  qx: number;
  qy: number;
  qz: number;
  qw: number;
  clip: number;
  time: number;
}

/** Path of a content-addressed asset on the game server's HTTP port. */
export function worldAssetPath(hash: string): string {
  return `/assets/world/${hash}.hrwb`;
}
export function rigAssetPath(hash: string): string {
  return `/assets/rig/${hash}.hrrg`;
}

/**
 * Sent once to each joining client: what it needs to predict exactly as the server judges. The
 * world and rig are fetched by content hash (worldAssetPath / rigAssetPath on the server's HTTP
 * port) and checked against these hashes after loading.
 */
export interface WelcomeReply {
  slot: number;
  tickRate: number;
  /** The interpolation delay the server holds this client to (its join option, clamped), ms. */
  interpDelayMs: number;
  worldHash: string;
  rigHash: string;
  /** The rules: weapons, zone multipliers, window and tolerances. */
  validation: ValidationConfig;
  /** The movement rules, for predicting one's own movement. */
  movement: MoveConfig;
  /** True when this client's verdicts carry the rewound poses. */
  debug: boolean;
}

export interface HitReply {
  seq: number;
  target: number;
  zone: number;
  damage: number;
  killed: boolean;
}

export interface DamagedReply {
  from: number;
  damage: number;
  health: number;
  /** Unit direction from the victim toward the shot's start (where the damage came from); 0, 0, 0 when the shooter is withheld from the victim (fog of war). */
  dx: number;
  dy: number;
  dz: number;
}

export interface RejectReply {
  type: string;
  reason: string;
}
