/**
 * hitreg's server entry (package export "hitreg/server"): what a game's own room composes to judge
 * shots against lag-compensated players and keep an auditable log. Node only (the log writes
 * files); no Colyseus import, so any room framework can use it. The shared code (World, rigs,
 * weapons, verdicts, the wire protocol) comes from the browser-safe entry "hitreg".
 *
 *   const match = new HitregMatch({ world, rig, tickRate: 30, maxPlayers: 10, poses: (id, out) => {...} });
 *   onJoin:  match.join(sessionId, { team });           onLeave: match.leave(sessionId);
 *   tick:    move players; match.tick();                 message: match.shot(sessionId, msg);
 *
 * Beside the match, FogFilter (fogFilter.ts) withholds from each client the enemies it cannot see
 * yet (server-side fog of war), and StallWatch (stalls.ts) cuts connections that stop reading before what the
 * server cannot send them fills its memory.
 */
export { HitregMatch } from './match';
export { FogFilter } from './fogFilter';
export { DEFAULT_FOG_PRECISION_MS, DEFAULT_FOG_RAYS_PER_UPDATE, walkGridOf, type FogFilterOptions, type FogMovement } from './fogOptions';
export { type ProjectileEndLike } from './fogEnds';
export { FogMarks, type FogMarksOptions } from './fogMarks';
export { END_STRUCK_MASKED, END_VICTIMS_MASKED } from '../../shared/matchlog/fogEndRecord';
export { buildClimbMap, buildWalkGrid, type ClimbMap, type FogConfig, type WalkGrid } from '../../shared/fog/index';
export type { HitregMatchOptions, JoinOptions } from './options';
export type { HitregPlayer } from './player';
export { createPoseInput, type PoseAdapter, type PoseInput } from './poses';
export { verdictReply, type AppliedHit, type ShotOptions, type ShotOutcome } from './outcome';
export type { ProjectileOutcome } from './projectileOutcome';
export { MatchEventKind, TICK_POSE_STRIDE, TickPose, type MatchEvent, type MatchHeader, type MatchRecorder, type ShotRecord, type TickRecord, type FogChanges, type FogFlightSends } from './recorder';
export { RoundTrip, PongResult, RTT_WINDOW, DEFAULT_PING_INTERVAL_MS } from './roundTrip';
export { MatchLogRecorder, matchLogDir, matchLogFileName, DEFAULT_MATCH_LOG_DIR, MATCH_LOG_EXT, type MatchLogRecorderOptions } from '../matchlog/recorder';
export type { MatchLogStats } from '../matchlog/writer';
export { StallWatch, stallSocketOf, resolveStallLimits, DEFAULT_STALL_LIMITS, CLOSE_STALLED, type StallLimits, type StallSocket, type StallCut } from './stalls';
export { playerIdBytes, MAX_PLAYER_ID_BYTES } from '../../shared/matchlog/identityRecord';
