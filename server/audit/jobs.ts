/**
 * What the audit hands a replay thread: one shard of a log (a range of shots or a set of shooters)
 * and the job message that carries it with the log's bytes, framing, world and rig.
 */
import type { Rig } from '../../shared/rig/rig';
import type { ValidationConfig } from '../../shared/validate/shot';
import type { SceneOptions } from '../../shared/validate/scene';
import type { ObserverPlugin } from './plugin';

/** The header fields the replay needs (MatchHeader as the room wrote it). */
export interface ReplayHeader {
  maxPlayers: number;
  tickRate: number;
  levelPath: string;
  worldHash: string;
  rigHash: string;
  validation: ValidationConfig;
  scene: SceneOptions;
  [key: string]: unknown;
}

/** What one shard replays (ReplayOptions' partition fields). */
export interface Shard {
  shooters: number[] | null;
  applyFrom: number;
  shotsFrom: number;
  shotsTo: number;
  shotIndexBase: number;
}

export interface WorkerJob {
  id: number;
  log: SharedArrayBuffer;
  logLength: number;
  world: ArrayBuffer;
  worldHash: string;
  /** The match's rig (structured-cloned: plain fields and typed arrays). */
  rig: Rig;
  header: ReplayHeader;
  shard: Shard;
  /** The main thread's framing, 4 numbers per frame (type, offset, payloadOffset, payloadLength): no second CRC pass. */
  frames: SharedArrayBuffer;
  frameCount: number;
  /** The log's format version (the tick layout depends on it). */
  version: number;
  observer: ObserverPlugin | null;
}
