/**
 * Observers of the audit's replay as plugins: a module the replay threads load by URL (a function
 * cannot cross into a worker thread), its structured-cloneable options, and how far back in match
 * time it reads, so a shard starts applying ticks early enough for it. The behaviour measures
 * (server/behaviour/observer.ts) are one; the integrity audit knows only this interface.
 */
import type { World } from '../../shared/world/world';
import type { ValidationConfig } from '../../shared/validate/shot';
import type { ReplayObserver } from '../../shared/audit/replay';

/** What an observer is built from, in the thread that replays. */
export interface ObserverContext {
  /** Player slots of the match (the header's maxPlayers). */
  slots: number;
  world: World;
  config: ValidationConfig;
  /** The log's format version. */
  version: number;
}

export interface ObserverPlugin {
  /** URL of a module exporting `createReplayObserver(context: ObserverContext, options): ReplayObserver`. */
  module: string;
  options: unknown;
  /** Match time the observer reads before a shot's rewound time, ms. */
  lookbackMs: number;
  /** Match time the observer reads before a shot's arrival, ms. */
  windowMs: number;
}

type ObserverModule = { createReplayObserver(context: ObserverContext, options: unknown): ReplayObserver };
const loaded = new Map<string, Promise<ObserverModule>>();

/** Builds the plugin's observer (its module imported once per thread). */
export async function createObserver(plugin: ObserverPlugin, context: ObserverContext): Promise<ReplayObserver> {
  let mod = loaded.get(plugin.module);
  if (mod === undefined) loaded.set(plugin.module, (mod = import(plugin.module) as Promise<ObserverModule>));
  const m = await mod;
  if (typeof m.createReplayObserver !== 'function') throw new Error(`observer plugin ${plugin.module} exports no createReplayObserver`);
  return m.createReplayObserver(context, plugin.options);
}
