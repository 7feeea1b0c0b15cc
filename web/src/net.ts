/**
 * Joining a game server from the page: the room, the welcome (slot, rules, world and rig hashes),
 * the world and rig fetched by content hash and accepted only with the announced hashes, and the
 * clock (pings answered, ServerClockEstimate kept).
 */
import { Client, type Room } from '@colyseus/sdk';
import {
  Msg, ROOM_NAME, World, createPingMessage, decodePing, rigAssetPath, rigFromBuffer, worldAssetPath,
  InputStamper, ServerClockEstimate, type Rig, type WelcomeReply,
} from '../../shared/index';

export interface Joined {
  room: Room;
  welcome: WelcomeReply;
  world: World;
  rig: Rig;
  clock: ServerClockEstimate;
  /** The server's round-trip estimate for this client (carried by its pings), ms. */
  rtt: { ms: number };
  /** This page's input stamps and stream floor; it hears of every ping answered. */
  stamper: InputStamper;
  /** Where backfills go (Msg.BACKFILL bytes): none until the game's view is up (one before that is dropped). */
  backfill: { to: ((bytes: Uint8Array) => void) | null };
}

/** Fetches an asset by path on the server's HTTP origin. */
async function fetchBytes(origin: string, path: string): Promise<ArrayBuffer> {
  const r = await fetch(origin + path);
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
  return r.arrayBuffer();
}

/** Loads the world and checks its content hash against the announced one (World.fromBuffer validates the bytes). */
export function acceptWorld(bytes: ArrayBuffer, hash: string): World {
  const world = World.fromBuffer(bytes);
  if (world.hash !== hash) throw new Error(`world bytes hash to ${world.hash}, the server announced ${hash}`);
  return world;
}

export async function join(origin: string, options: { name: string; interpDelayMs: number; debug: boolean }): Promise<Joined> {
  const client = new Client(origin);
  // The page takes backfills (MatchView.backfill): an enemy fog of war sends again is drawn as soon as it lands.
  const room = await client.joinOrCreate(ROOM_NAME, { ...options, fogBackfill: true });
  const backfill: Joined['backfill'] = { to: null };
  room.onMessage(Msg.BACKFILL, (bytes: Uint8Array) => backfill.to?.(bytes));
  const clock = new ServerClockEstimate();
  const rtt = { ms: 0 };
  let stamper: InputStamper | null = null;
  let answeredMs = Number.NaN;
  const ping = createPingMessage();
  room.onMessage(Msg.PING, (bytes: Uint8Array) => {
    if (decodePing(ping, bytes) !== 0) return;
    clock.onPing(ping, performance.now());
    if (ping.rttMs > 0) rtt.ms = ping.rttMs;
    room.sendBytes(Msg.PONG, new Uint8Array(bytes));
    answeredMs = ping.serverTimeMs;
    stamper?.answered(answeredMs);
  });
  const welcome = await new Promise<WelcomeReply>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no welcome from the server within 5 s')), 5000);
    room.onMessage(Msg.WELCOME, (w: WelcomeReply) => {
      clearTimeout(timer);
      resolve(w);
    });
  });
  stamper = new InputStamper(welcome.tickRate);
  stamper.answered(answeredMs);
  const [worldBytes, rigBytes] = await Promise.all([
    fetchBytes(origin, worldAssetPath(welcome.worldHash)),
    fetchBytes(origin, rigAssetPath(welcome.rigHash)),
  ]);
  const world = acceptWorld(worldBytes, welcome.worldHash);
  const rig = rigFromBuffer(rigBytes, welcome.rigHash);
  return { room, welcome, world, rig, clock, rtt, stamper, backfill };
}
