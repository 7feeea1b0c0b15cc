/**
 * What a bot (./bot.ts) is made with: its place in the run and the room to join, its network
 * conditions and seed, the level, rig and rules it plays by, its frame and interpolation timing,
 * and the callbacks that hear of its weapon messages and of the deaths it sees.
 */
import type { ValidationConfig } from '../shared/validate/shot';
import type { MoveConfig } from '../shared/movement/step';
import type { Rig } from '../shared/rig/rig';
import type { World } from '../shared/world/world';
import type { NetConditions } from './net';
import type { ShotLog } from './shots';

export interface BotOptions {
  index: number;
  url: string;
  /** Join this room id, else join or create an `arena` room. */
  roomId?: string;
  name: string;
  net: NetConditions;
  seed: number;
  world: World;
  rig: Rig;
  validation: ValidationConfig;
  /** The room's movement rules (the bot predicts its own movement with them). */
  movement: MoveConfig;
  tickRate: number;
  /** Interpolation delay the bot declares and renders at, ms. */
  interpDelayMs: number;
  /** Join with `fogBackfill` (take the enemies' poses from before they are sent again: MatchView.backfill); default true. */
  fogBackfill?: boolean;
  /** Share of honest players who like a launcher (honest.ts LAUNCHER_FAN_SHARE by default). */
  launcherShare?: number;
  /** Frame interval (inputs, aim, trigger), ms. */
  frameMs?: number;
  onShot?: (log: ShotLog) => void;
  /** Called with every kill-feed entry the bot sees (victim slot, server ms); the simulator dedupes. */
  onDeath?: (victim: number, timeMs: number) => void;
}
