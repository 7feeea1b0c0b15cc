/**
 * The match's replay scene: per-slot snapshot histories, the rewinder over the rig (and the volume
 * queries over it, for melee swings), and the sampling policy. The server's match builds one with createMatchScene and the audit replay builds
 * an identical one from the log header's `scene`, so both judge shots against the same data
 * structures.
 */
import type { World } from '../world/world';
import type { Rig } from '../rig/rig';
import { PlayerHistory, createRewindPolicy, OutOfWindow, type RewindPolicy } from '../lagcomp/history';
import { Rewinder } from '../lagcomp/rewind';
import { VolumeRewinder } from '../lagcomp/rewindVolume';
import { rewindReachMs, type ShotScene, type ValidationConfig } from './rules';

export interface SceneOptions {
  maxPlayers: number;
  /** Ring capacity per player, ticks (covers the rewind window plus slack at the tick rate). */
  capacityTicks: number;
  /** Rewind window, ms (also ValidationConfig.rewindWindowMs). */
  windowMs: number;
}

export interface MatchScene extends ShotScene {
  histories: PlayerHistory[];
  rewinder: Rewinder;
  /** The volume queries over `rewinder` (melee swings), built once with the scene. */
  volumes: VolumeRewinder;
  eyePolicy: RewindPolicy;
  options: SceneOptions;
}

/** Capacity for a window at a tick rate: the window plus half a second of slack. */
export function historyCapacity(tickRate: number, windowMs: number): number {
  return Math.ceil(((windowMs + 500) * tickRate) / 1000) + 2;
}

export function createMatchScene(world: World, rig: Rig, options: SceneOptions): MatchScene {
  const histories: PlayerHistory[] = [];
  for (let i = 0; i < options.maxPlayers; i++) histories.push(new PlayerHistory(options.capacityTicks));
  const policy = createRewindPolicy(options.windowMs, OutOfWindow.CLAMP);
  const rewinder = new Rewinder(rig, { policy });
  return {
    world,
    histories,
    rewinder,
    volumes: new VolumeRewinder(rewinder),
    eyePolicy: policy,
    options: { ...options },
  };
}

/**
 * The scene options of a match: one history per player slot, reaching back as far as a message may
 * ask (its action time may precede its arrival by the fire lag bound at the largest round trip,
 * rules.ts fireLagLimitMs, and its render time may precede the action by the window), plus half a second of slack at the tick rate.
 */
export function sceneOptionsFor(tickRate: number, rules: Pick<ValidationConfig, 'maxPlayers' | 'rewindWindowMs' | 'maxFireLagMs' | 'fireLagPerRtt' | 'maxRttMs'>): SceneOptions {
  const windowMs = rewindReachMs(rules);
  return { maxPlayers: rules.maxPlayers, capacityTicks: historyCapacity(tickRate, windowMs), windowMs };
}
