/**
 * What a synthetic match (./synthMatch.ts) is asked for and what it answers: the seed, players,
 * length, behaviours by slot, trigger mode and rules in; the log's path, counts and stats out.
 */
import type { ValidationConfig } from '../../../shared/validate/shot';
import type { MatchLogStats } from '../../matchlog/writer';
import type { World } from '../../../shared/world/world';
import type { CheatKind } from './synthPlayers';

export interface SynthMatchOptions {
  world: World;
  levelPath: string;
  /** Output file. */
  path: string;
  seed?: number;
  players?: number;
  tickRate?: number;
  durationS?: number;
  /** Behaviour by slot; slots not listed are honest. */
  cheats?: Partial<Record<number, CheatKind>>;
  /** Strength of each slot's inhuman profile in [0, 1] (default `strength`). */
  strengths?: Partial<Record<number, number>>;
  /**
   * A person seed by slot: that slot's make-up (round trip, human traits, interpolation delay, idle
   * pitch, input link) is drawn from it instead of the match's stream, so one person plays several
   * matches as itself (crossMatch.ts). Slots not listed draw theirs from the match.
   */
  persons?: Partial<Record<number, number>>;
  /** Default strength of the inhuman profiles (default 1). */
  strength?: number;
  /** Disable deaths (very long bench matches keep everyone in play). */
  immortal?: boolean;
  /**
   * 'aimed' (default): players fire only at a target they see (wallhacks: one they do not).
   * 'spray': everyone fires whenever the weapon allows, along their facing when no target: a
   * dense firefight for throughput benchmarks.
   */
  trigger?: 'aimed' | 'spray';
  /**
   * Who joined on each slot, logged after the slot's join as the room logs it (identity records,
   * log format 12); several for one slot log a slot that changed hands. Default: nobody named.
   */
  identities?: readonly { slot: number; playerId: string; verified: boolean }[];
  /** The header's room id (default "synthetic"). */
  roomId?: string;
  /** Rules that differ from the defaults (a key set to undefined: a rule the match does not have). */
  rules?: Partial<ValidationConfig>;
}

export interface SynthMatchResult {
  path: string;
  shots: number;
  ticks: number;
  hits: number;
  stats: MatchLogStats;
  cheats: Record<number, CheatKind>;
}
