/**
 * Simulator bots (client-sim/bot.ts: honest players and rule-breaking cheat profiles) spread over
 * the rooms of a cluster, for the load test and the fault test. Each room is opened with `create`
 * through one of the processes' addresses in turn (so every process serves matchmaking and the
 * cluster decides where the room lives), filled with its bots by room id (their matchmaking
 * requests also rotate over the addresses); the opening connection leaves once the first bot is
 * in. Every bot's leave is recorded with its close code (see noReconnection).
 */
import { Client, type Room } from '@colyseus/sdk';
import { Bot } from '../../client-sim/bot';
import { RULE_PROFILES } from '../../client-sim/cheats/index';
import { interpDelayFor } from '../../client-sim/simulate';
import { Rng } from '../../client-sim/rng';
import { loadWorld, DEFAULT_LEVEL_PATH } from '../../server/level/gltf';
import { MANNEQUIN_RIG, Clip } from '../../server/rig/mannequin';
import { defaultMoveConfig } from '../../shared/movement/step';
import { DEFAULT_ZONE_MULTIPLIERS, HIT_ZONE_COUNT } from '../../shared/rig/rig';
import { DEFAULT_LOADOUT, WEAPONS } from '../../shared/weapons';
import { defaultValidationConfig } from '../../shared/validate/shot';
import { ROOM_NAME, Msg } from '../../shared/protocol/messages';

export interface LoadOptions {
  /** Matchmaking addresses (ws://host:port), used in turn. */
  urls: string[];
  rooms: number;
  botsPerRoom: number;
  /** Cheaters among each room's bots (default 1 when a room has 8 or more bots, else 0). */
  cheatersPerRoom?: number;
  seed?: number;
  rttMs?: number;
  jitterMs?: number;
  loss?: number;
  tickRate?: number;
  /** The servers' players per room (default 16) and loadout (default DEFAULT_LOADOUT): the bots play by the same rules. */
  maxPlayers?: number;
  loadout?: readonly number[];
}

export interface LoadBot {
  bot: Bot;
  roomId: string;
  cheater: boolean;
  /** Close code and local ms of the leave; null while connected. */
  left: { code: number; atMs: number } | null;
}

export interface Load {
  bots: LoadBot[];
  roomIds: string[];
  start(): void;
  stop(): void;
  close(): Promise<void>;
}

/**
 * No SDK reconnection: on this machine a connection only drops when its process is gone, and the
 * SDK (0.18.4 on Node 22) stalls after its first refused reconnection attempt instead of giving up.
 * A drop is then a leave with the WebSocket's own close code: 1006 (no close frame) when the
 * process died, 4001 when it shut down.
 */
function noReconnection(room: Room): void {
  room.reconnection.enabled = false;
}

export async function startLoad(o: LoadOptions): Promise<Load> {
  const world = await loadWorld(DEFAULT_LEVEL_PATH);
  const zm: number[] = [];
  for (let z = 0; z < HIT_ZONE_COUNT; z++) zm.push((DEFAULT_ZONE_MULTIPLIERS as Record<number, number>)[z] ?? 1);
  const validation = defaultValidationConfig(WEAPONS, zm, MANNEQUIN_RIG.eyeHeight, o.maxPlayers ?? 16, o.loadout ?? DEFAULT_LOADOUT);
  const movement = defaultMoveConfig({ idle: Clip.IDLE, jog: Clip.JOG, run: Clip.RUN, fall: Clip.FALL }, MANNEQUIN_RIG.clips.map((c) => c.duration));
  const ruleProfiles = Object.keys(RULE_PROFILES);
  const rttMs = o.rttMs ?? 40;
  const jitterMs = o.jitterMs ?? 5;
  const tickRate = o.tickRate ?? 64;
  const interpDelayMs = interpDelayFor(rttMs, jitterMs, 1000 / tickRate, validation.rewindWindowMs, 250);
  const cheaters = o.cheatersPerRoom ?? (o.botsPerRoom >= 8 ? 1 : 0);
  const rng = new Rng(o.seed ?? 1);
  const bots: LoadBot[] = [];
  const roomIds: string[] = [];
  let turn = 0;
  const nextUrl = (): string => o.urls[turn++ % o.urls.length]!;
  try {
    for (let r = 0; r < o.rooms; r++) {
      const opener = await new Client(nextUrl()).create(ROOM_NAME, { name: `opener${r}` });
      opener.onMessage(Msg.PING, () => {}); // the opener only opens the room
      roomIds.push(opener.roomId);
      for (let k = 0; k < o.botsPerRoom; k++) {
        const index = bots.length;
        const cheater = k >= o.botsPerRoom - cheaters;
        const bot = new Bot({
          index, url: nextUrl(), roomId: opener.roomId, name: cheater ? `cheater${index}` : `bot${index}`,
          net: { rttMs, jitterMs, loss: o.loss ?? 0 }, seed: (rng.next() * 4294967296) >>> 0,
          world, rig: MANNEQUIN_RIG, validation, movement, tickRate, interpDelayMs,
        });
        if (cheater) bot.profile = RULE_PROFILES[ruleProfiles[(index + r) % ruleProfiles.length]!]!();
        const entry: LoadBot = { bot, roomId: opener.roomId, cheater, left: null };
        bots.push(entry);
        await bot.connect();
        noReconnection(bot.conn.room!);
        bot.conn.room!.onLeave((code: number) => { entry.left ??= { code, atMs: performance.now() }; });
        // The first bot holds the room open; the opener's seat goes to the room's last bot.
        if (k === 0) await opener.leave(true);
      }
    }
  } catch (e) {
    await Promise.all(bots.map((b) => b.bot.close()));
    throw e;
  }
  return {
    bots,
    roomIds,
    start() { for (const b of bots) b.bot.startShooting(); },
    stop() { for (const b of bots) b.bot.stopShooting(); },
    async close() {
      await Promise.all(bots.map((b) => Promise.race([b.bot.close(), new Promise<void>((r) => setTimeout(r, 2000))])));
    },
  };
}
