/**
 * What validateShot (shot.ts) judges against: the match's rules (ValidationConfig, fixed for the
 * match and written into the audit log's header, with their defaults), the plain numbers the room
 * measured when a message arrived (ShotTiming), who can be hit (ShotTargets) and the match's data
 * the replay reads (ShotScene).
 */
import { DEFAULT_LOADOUT, weaponById, type WeaponSpec } from '../weapons';
import type { PlayerHistory, RewindPolicy } from '../lagcomp/history';
import type { Rewinder } from '../lagcomp/rewind';
import type { VolumeRewinder } from '../lagcomp/rewindVolume';
import type { World } from '../world/world';

/** The rules of a match: fixed for its duration, written once into the audit log header. */
export interface ValidationConfig {
  weapons: readonly WeaponSpec[];
  /** Default damage multipliers by HitZone (a weapon's own table wins when it has one). */
  zoneMultipliers: ArrayLike<number>;
  /** Number of player slots; claimed targets must be -1 or in [0, maxPlayers). */
  maxPlayers: number;
  /** Weapon ids a player carries; the first is equipped at each spawn. */
  loadout: readonly number[];
  /** How far back targets may be rewound, ms. */
  rewindWindowMs: number;
  /** A claimed render time within this of the server's estimate (action time - interpolation delay) is believed, ms. */
  claimToleranceMs: number;
  /**
   * A claimed action time up to this much plus half the shooter's round trip (at most maxRttMs)
   * after the receive time is not "future", ms: a client's server clock (ping time + rtt/2) runs
   * ahead by the path's asymmetry, and by as much as half the round trip while the server's
   * estimate of it is still too large (a young connection, a busy server).
   */
  futureSlackMs: number;
  /** The largest round trip the future bound allows for, ms (a client that holds its pongs gains no more). */
  maxRttMs: number;
  /** A claimed render time up to this much older than the window is clamped, not rejected, ms. */
  oldSlackMs: number;
  /**
   * How much earlier than its arrival an action may claim to have happened, ms, for a round trip up
   * to FIRE_LAG_BASE_RTT_MS: the one-way delay plus what TCP adds when a segment is lost (a
   * retransmission after at least 200 ms, doubled when the retransmission is lost too); longer
   * round trips add fireLagPerRtt (fireLagLimitMs below). Bounds how many shots a client can
   * bank: at most floor((W + fireLagLimitMs(maxRttMs) + futureSlackMs + maxRttMs / 2) / interval) + 1
   * accepted shots arrive in any W ms.
   */
  maxFireLagMs: number;
  /**
   * Milliseconds of fire lag allowed per millisecond of the shooter's round trip (at most
   * maxRttMs) above FIRE_LAG_BASE_RTT_MS. TCP's retransmission timeout is the round trip plus four
   * times its variation, at least 200 ms (RFC 6298), so a segment lost twice arrives a one-way
   * trip plus three timeouts after it was sent: 3.5 ms per ms of round trip once the timeout is
   * above its floor (FIRE_LAG_PER_RTT). Absent (logs before the rule, or 0): maxFireLagMs at
   * every round trip.
   */
  fireLagPerRtt?: number;
  /**
   * Shots raced by a death count as the shooter saw them: a dead shooter's message sent while it
   * was still alive is judged (a trade), and a target killed since the rewound time can still be
   * hit (the verdict is a HIT; the room applies no damage to the dead). Off (absent) in logs
   * written before the rule, so they replay as judged.
   */
  honourShotsInFlight?: boolean;
  /**
   * Trades after a death (off when absent, the default): with honourShotsInFlight, a dead
   * shooter's action stated after the kill is judged too while its client cannot yet have learnt of
   * the kill, up to half its round trip (at most maxRttMs) plus this after the kill, ms (the news
   * takes a one-way trip, waits for the next patch, and the trip and the client's clock wobble;
   * TRADE_SLACK_MS suits a 64 Hz patch), and a target killed within that window before the action
   * still stands where the shooter saw it (hit, no damage). The server cannot tell such a shot from
   * one fired just after the news landed: a client that fires on at once gains up to the slack
   * less that wait and wobble, or more while its told round trip is above its one-way trips.
   */
  tradeSlackMs?: number;
  /**
   * The weapon rules (weaponRules.ts: carried, equipped, drawn, loaded, the fire clock) are judged
   * here; false when the game enforces its own: a shot is then judged on its time and geometry
   * alone, and a switch or reload message is refused (RULES_OFF). Absent: on.
   */
  weaponRules?: boolean;
  /**
   * What a shot does to a teammate (ShotTargets.team): 'full' damage (also when absent), 'noDamage'
   * (hit, stops the bullet, no damage: OK_FRIENDLY), or 'off' (not hittable: the bullet passes).
   */
  friendlyFire?: FriendlyFire;
  /**
   * How much earlier than the newest time its own stream had already stated (an input's stamp, a
   * ping it answered, an action it took) an action may claim to have happened, ms. Over one TCP
   * stream messages arrive in the order they were sent, so an honest claim is never earlier than
   * that but for its clock's wobble: BACKDATED otherwise. Absent in logs before the rule.
   */
  streamSlackMs?: number;
  /**
   * The shooter's eye path ends at its newest snapshot whose input stamp is at most the action
   * time plus this, ms: never at a position its client reached after the claim. A shooter whose
   * snapshots carry no stamps ends it at the action time plus half its round trip plus
   * futureSlackMs (the one-way delay its moves take to reach the server). Absent in logs before
   * the rule: the eye path then runs to the newest tick.
   */
  eyeStampSlackMs?: number;
  /**
   * The match's spread seed, an integer 0..2^32-1 (spread.ts): with the shooter's slot and the
   * action's seq it draws each pull's pellet pattern. Chosen by the server per match, sent at join
   * and written into the log header; absent: 0.
   */
  spreadSeed?: number;
  /**
   * Penetration resistance by the level's material names (glTF material name -> power spent per
   * metre of that material); a material not named costs defaultResistance (absent: 1).
   */
  materials?: Readonly<Record<string, number>>;
  defaultResistance?: number;
  /** Penetration power a bullet spends passing through a player (absent: 0.2, pellets.ts). */
  playerPenetrationCost?: number;
  /** Distance the segment start may lie from the shooter's eye path, metres. */
  originToleranceM: number;
  /**
   * The same for a melee weapon's swing (the lesser of the two applies), metres; absent:
   * MELEE_ORIGIN_TOLERANCE_M. A swing reaches rangeM from its start, so this bounds how far beyond
   * its range a swing can reach from the eye.
   */
  meleeOriginToleranceM?: number;
  /** Eye height above the pose origin (the feet), metres, for poses that do not carry their own. */
  eyeHeightM: number;
  /** Coordinates beyond +-this are OUT_OF_BOUNDS, metres. */
  maxCoordinate: number;
  /** A render time beyond +-this is OUT_OF_BOUNDS, ms. */
  maxTimeMs: number;
}

/** What a shot does to a teammate (ValidationConfig.friendlyFire). */
export type FriendlyFire = 'full' | 'noDamage' | 'off';
export const FRIENDLY_FIRE_POLICIES: readonly FriendlyFire[] = ['full', 'noDamage', 'off'];

/** Defaults: 250 ms window (the lag-comp default), Source-like tolerances; docs/judging.md's table of checks says why each. */
export function defaultValidationConfig(weapons: readonly WeaponSpec[], zoneMultipliers: ArrayLike<number>, eyeHeightM: number, maxPlayers = 16, loadout: readonly number[] = DEFAULT_LOADOUT): ValidationConfig {
  return {
    weapons, zoneMultipliers, maxPlayers, eyeHeightM,
    loadout: loadout.filter((w) => weaponById(weapons, w) !== undefined),
    rewindWindowMs: 250,
    claimToleranceMs: 60,
    futureSlackMs: 60,
    maxRttMs: 300,
    oldSlackMs: 100,
    maxFireLagMs: 800,
    fireLagPerRtt: FIRE_LAG_PER_RTT,
    honourShotsInFlight: true,
    spreadSeed: 0,
    defaultResistance: 1,
    playerPenetrationCost: 0.2,
    streamSlackMs: STREAM_SLACK_MS,
    eyeStampSlackMs: EYE_STAMP_SLACK_MS,
    originToleranceM: ORIGIN_TOLERANCE_M,
    meleeOriginToleranceM: MELEE_ORIGIN_TOLERANCE_M,
    maxCoordinate: 1e5,
    maxTimeMs: 1e12,
  };
}

/**
 * Default origin tolerance, metres. Honest clients shoot from their own predicted position; while
 * TCP holds their inputs back the server holds them (stamped commands) or moves them on the last
 * input it has (held keys), so the start can lie far from the server's eye path. Measured over honest accepted shots with 1% loss (`npm run sim --
 * --bots 16 --seconds 60 --rtt 100 --jitter 20 --loss 0.01 --seed 1`, 864 shots): p50 0.016 m, p99
 * 0.76 m, max 1.22 m, and one honest start beyond 1.25 m. 1.5 m leaves a fifth above the measured
 * maximum. A larger start offset buys a cheater nothing the visibility check allows: a hit counts
 * only where the server's eye sees it, and nothing may lie between the eye and the start.
 */
export const ORIGIN_TOLERANCE_M = 1.5;

/**
 * Default melee origin tolerance, metres: a swing's start may lie this far from the eye path, so it
 * reaches at most this beyond the weapon's range from the eye (a quarter of the knife's 2 m). Honest
 * starts sit within 0.02 m of the path at the median and within 0.76 m at the 99th percentile under
 * 1% loss (ORIGIN_TOLERANCE_M): a swing sent while TCP holds the inputs back may be refused.
 */
export const MELEE_ORIGIN_TOLERANCE_M = 0.5;

/**
 * A tradeSlackMs for a room that turns trades on (see ValidationConfig): a patch interval at 64 Hz
 * (16 ms) and the one-way trip's wobble above half the measured round trip (jitter, an asymmetric
 * path: 24 ms).
 */
export const TRADE_SLACK_MS = 40;
/**
 * The round trip maxFireLagMs is sized for, ms: one-way 50 ms plus a lost segment and its lost
 * retransmission at the 200 ms timeout floor (650 ms) leave 150 ms of jitter and clock error below
 * 800. Beyond it, fireLagPerRtt adds to the bound.
 */
export const FIRE_LAG_BASE_RTT_MS = 100;
/**
 * Default fireLagPerRtt: half a round trip (the one-way delay) plus three timeouts (the first send,
 * the lost retransmission, the one that arrives), each growing one for one with the round trip.
 * At 200 ms a segment lost twice arrives about 940 ms after it was sent (RTO 280 ms with 20 ms of
 * jitter); the bound is 1150 ms.
 */
export const FIRE_LAG_PER_RTT = 3.5;
/** Default streamSlackMs (see ValidationConfig). */
export const STREAM_SLACK_MS = 100;
/** Default eyeStampSlackMs (see ValidationConfig). */
export const EYE_STAMP_SLACK_MS = 50;

/** How far back every history must reach behind its newest snapshot, ms: the deepest rewind a message can ask for. */
export function rewindReachMs(config: Pick<ValidationConfig, 'rewindWindowMs' | 'maxFireLagMs' | 'fireLagPerRtt' | 'maxRttMs'>): number {
  return config.rewindWindowMs + fireLagLimitMs(config, config.maxRttMs);
}

/**
 * How much earlier than its arrival an action may claim to have happened for a shooter with this
 * round trip, ms: maxFireLagMs, plus fireLagPerRtt for each ms the round trip (capped at maxRttMs)
 * is above FIRE_LAG_BASE_RTT_MS (a lost segment waits out timeouts that grow with the round trip).
 */
export function fireLagLimitMs(config: Pick<ValidationConfig, 'maxFireLagMs' | 'fireLagPerRtt' | 'maxRttMs'>, rttMs: number): number {
  const per = config.fireLagPerRtt;
  const rtt = Math.min(rttMs, config.maxRttMs);
  if (per === undefined || !(per > 0) || !(rtt > FIRE_LAG_BASE_RTT_MS)) return config.maxFireLagMs;
  return config.maxFireLagMs + per * (rtt - FIRE_LAG_BASE_RTT_MS);
}

/** Everything about the moment the shot arrived: plain numbers the room measured, all logged. */
export interface ShotTiming {
  /** Server ms when the message was handled. */
  receiveTimeMs: number;
  /**
   * The round trip the room reported to the shooter in its recent pings (the largest), ms: the
   * shooter's server clock runs ahead by at most half of it, which bounds its action times.
   */
  rttMs: number;
  /**
   * The shooter's interpolation delay (declared at join as `interpDelayMs`, clamped by the room), ms:
   * how far behind its estimate of the server's current clock (ping time + rtt/2, see
   * shared/protocol/ping.ts ServerClockEstimate) the client renders other players. Snapshots reach
   * the client rtt/2 late, so a client needs interpDelay >= rtt/2 + its interpolation buffer (two or
   * three patch intervals); it stamps a shot with actionTime = serverNow and renderTime =
   * serverNow - interpDelay, and the server's estimate actionTime - interpDelay matches the claim.
   */
  interpDelayMs: number;
  /** Server ms of the newest recorded tick (the latest time a pose exists for). */
  newestTickMs: number;
  /** Server ms at which a dead shooter was killed (NaN or absent while alive, or when unknown). */
  shooterDiedMs?: number;
  /**
   * The newest time the shooter's own stream had stated before this message arrived: the latest
   * of its inputs' stamps, the send times of the pings it answered and its actions' claims, server
   * ms (NaN or absent: nothing yet, or not tracked).
   */
  streamFloorMs?: number;
}

/** The players as they are now (indexed by slot): who can be hit, and since when. */
export interface ShotTargets {
  alive: ArrayLike<boolean>;
  /** Server ms at which each player's current life (join or respawn) began. */
  lifeStartMs: ArrayLike<number>;
  /**
   * Server ms at which the player of each slot left the match (NaN while present). A shot whose
   * action time is at or after it cannot hit that player, whatever its history still holds. Absent:
   * nobody left.
   */
  leftMs?: ArrayLike<number>;
  /**
   * Server ms of the newest data held of each slot's player (Infinity: current): a shot rewound to a
   * later time cannot hit it. A client's view of a player the server stopped sending (fog of war)
   * ends there. Absent: every history is current (the server's).
   */
  dataUntilMs?: ArrayLike<number>;
  /**
   * Team of each slot: players of the same team >= 0 are teammates (ValidationConfig.friendlyFire
   * says what a shot does to one); -1 is on no team. Absent: nobody is on a team.
   */
  team?: ArrayLike<number>;
}

/** The match's data the replay reads: world, rewinder and the histories by slot. */
export interface ShotScene {
  world: World;
  rewinder: Rewinder;
  histories: ArrayLike<PlayerHistory | undefined>;
  /** The sampling policy for the shooter's eye (clamp inside the window). */
  eyePolicy: RewindPolicy;
  /**
   * The volume queries over `rewinder` (built on it: the same rig and policy), for melee weapons.
   * Absent: the pipeline builds one for the rewinder on the first melee swing and keeps it.
   */
  volumes?: VolumeRewinder;
}
