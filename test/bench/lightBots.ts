/**
 * Light load for the load test: players that cost their own process little, so one core of bots
 * can fill a server core. Each is a real @colyseus/sdk client over a real WebSocket that joins a
 * room, answers pings (its server clock), sends one stamped input per tick (stepping to and
 * fro by a few decimetres, its view turning) and fires the rifle at its full rate, reloading when the magazine is
 * empty. What makes it light: it never decodes the room's state (its serializer is replaced by one
 * that drops patches), and it knows where it is without it: it starts at its slot's spawn point,
 * computed from the level as the server does, and steps the same movement on the same inputs (the
 * server steps stamped inputs exactly once each, in order). Its shots go from its eye straight down
 * into the floor: judged in full (rules, rewind, origin, world and hitboxes) and missing everyone,
 * so it never dies. Should it lose track all the same (a verdict says it is dead or elsewhere), it
 * stops firing and only sends its inputs (`lost`).
 *
 * The server does for a light player what it does for any: receives, steps and records its inputs,
 * judges its shots, writes them to the match log, and sends it a state patch every tick.
 */
import { Client, type Room } from '@colyseus/sdk';
import { createInputMessage, encodeInput, INPUT_BYTES } from '../../shared/protocol/input';
import { createShotMessage, encodeShot, SHOT_BYTES, ShotAction } from '../../shared/protocol/shot';
import { createPingMessage, decodePing, ServerClockEstimate } from '../../shared/protocol/ping';
import { Msg, ROOM_NAME, type VerdictReply, type WelcomeReply } from '../../shared/protocol/messages';
import type { SpawnPoint } from '../../server/arena/config';
import { createMoveState, stepMovement, type MoveWorld } from '../../shared/movement/step';
import { tickLoop } from './tickLoop';

/** A serializer that drops state: the light player never looks at it. */
const DROP_STATE = { setState() {}, getState() { return undefined; }, patch() {}, teardown() {}, handshake() {} };

export interface LightPlayer {
  room: Room;
  verdicts: Record<string, number>;
  left: number | null;
  /** It no longer knows where it is (it stops firing). */
  lost: boolean;
}

export interface LightLoad {
  players: LightPlayer[];
  roomIds: string[];
  start(): void;
  stop(): void;
  close(): Promise<void>;
}

/** Opens `rooms` rooms through `urls` in turn and fills each with `perRoom` light players standing at `spawns`. */
export async function startLightLoad(urls: string[], rooms: number, perRoom: number, world: MoveWorld, spawns: readonly SpawnPoint[], eyeHeight: number): Promise<LightLoad> {
  const players: (LightPlayer & { tick(now: number): void })[] = [];
  const roomIds: string[] = [];
  let turn = 0;
  const nextUrl = (): string => urls[turn++ % urls.length]!;
  for (let r = 0; r < rooms; r++) {
    const opener = await new Client(nextUrl()).create(ROOM_NAME, { name: `light-opener${r}` });
    opener.onMessage('*', () => {});
    roomIds.push(opener.roomId);
    for (let k = 0; k < perRoom; k++) {
      players.push(await joinLight(nextUrl(), opener.roomId, world, spawns, eyeHeight));
      if (k === 0) await opener.leave(true);
    }
  }
  return {
    players,
    roomIds,
    ...tickLoop(players),
  };
}

async function joinLight(url: string, roomId: string, world: MoveWorld, spawns: readonly SpawnPoint[], eyeHeight: number): Promise<LightPlayer & { tick(now: number): void }> {
  const room = await new Client(url).joinById(roomId, { name: 'light', interpDelayMs: 100 });
  room.reconnection.enabled = false;
  (room as unknown as { serializer: unknown }).serializer = DROP_STATE;
  const clock = new ServerClockEstimate();
  const ping = createPingMessage();
  let welcome: WelcomeReply | null = null;
  const me: LightPlayer & { tick(now: number): void } = { room, verdicts: {}, left: null, lost: false, tick };
  room.onMessage(Msg.PING, (bytes: Uint8Array) => {
    if (decodePing(ping, bytes) === 0) {
      clock.onPing(ping, performance.now());
      room.sendBytes(Msg.PONG, new Uint8Array(bytes));
    }
  });
  room.onMessage(Msg.WELCOME, (w: WelcomeReply) => { welcome = w; });
  room.onMessage(Msg.VERDICT, (v: VerdictReply) => {
    me.verdicts[v.reasonName] = (me.verdicts[v.reasonName] ?? 0) + 1;
    if (v.reasonName !== 'OK_MISS' && v.reasonName !== 'OK_HIT') me.lost = true;
  });
  room.onMessage('*', () => {});
  room.onLeave((code: number) => { me.left = code; });

  const input = createInputMessage();
  const inputBuf = new Uint8Array(INPUT_BYTES);
  const shot = createShotMessage();
  const shotBuf = new Uint8Array(SHOT_BYTES);
  let t0 = -1, inputsSent = 0, seq = 0, rounds = -1, nextShotMs = 0, reloadUntil = 0, yaw = 0;
  const stepIn = { wishX: 0, wishZ: 0, viewX: 0, viewY: 0, viewZ: 1, jump: false };
  let move: ReturnType<typeof createMoveState> | null = null;
  function tick(now: number): void {
    if (welcome === null || clock.measured < 3 || me.left !== null) return;
    const w = welcome;
    const rifle = w.validation.weapons.find((x) => x.id === w.validation.loadout[0])!;
    const s = spawns[w.slot % spawns.length]!;
    if (move === null) {
      move = createMoveState(s.x, s.y, s.z, s.dirX, s.dirZ);
      move.onGround = true;
      rounds = rifle.magazine;
      t0 = now;
    }
    // One stamped input per tick, stepped here as the server will: six ticks one way along the
    // spawn's facing, six back (about 0.2 m; spawns stand 1.5 m apart), the view turning.
    const due = Math.floor(((now - t0) * w.tickRate) / 1000) + 1;
    for (; inputsSent < due; inputsSent++) {
      yaw += 0.02;
      input.seq = inputsSent + 1;
      const sign = Math.floor(inputsSent / 6) % 2 === 0 ? 1 : -1;
      input.wishX = sign * s.dirZ; input.wishZ = -sign * s.dirX;
      input.viewX = Math.fround(Math.sin(yaw)); input.viewY = 0; input.viewZ = Math.fround(Math.cos(yaw));
      input.timeMs = clock.serverNow(now);
      room.sendBytes(Msg.INPUT, encodeInput(inputBuf, input));
      stepIn.wishX = Math.fround(input.wishX); stepIn.wishZ = Math.fround(input.wishZ); stepIn.viewX = input.viewX; stepIn.viewZ = input.viewZ;
      stepMovement(move, stepIn, world, w.movement, 1 / w.tickRate);
    }
    // The rifle at its full rate, a reload when empty (the server starts it at the last round).
    const at = clock.stamp(now);
    if (me.lost || at < nextShotMs || at < reloadUntil) return;
    const ey = move.y + eyeHeight;
    shot.action = ShotAction.FIRE;
    shot.weapon = rifle.id;
    shot.seq = ++seq;
    shot.timeMs = at;
    shot.renderTimeMs = at - w.interpDelayMs;
    shot.sx = move.x; shot.sy = ey; shot.sz = move.z;
    shot.ex = move.x; shot.ey = ey - 3; shot.ez = move.z + 0.01;
    room.sendBytes(Msg.SHOT, encodeShot(shotBuf, shot));
    nextShotMs = at + rifle.fireIntervalMs;
    if (--rounds === 0) {
      rounds = rifle.magazine;
      reloadUntil = at + rifle.reloadMs + 1;
    }
  }
  return me;
}
