/**
 * Rocket players for the load test (`--rockets SHARE`): light clients that join the simulator bots'
 * rooms and fight with the rocket launcher alone. Each is a real @colyseus/sdk client over a real
 * WebSocket that answers pings (its server clock), decodes the room's synced state (where it is,
 * whether it lives, where the others are), sends one stamped input per tick (standing still, its
 * view on its target) and, in each life, switches to the rocket and launches at the farthest other
 * living player in sight within the rocket's range (beyond the blast's reach of itself: the farthest,
 * so each rocket flies as long as the level lets it) at the launcher's rhythm:
 * the 1-round magazine reloads by itself after each launch (shared/validate/weaponRules.ts: the last
 * round starts the reload), so the next launch is due max(fire interval, reload) later; a RELOAD
 * message then would be refused as RELOADING. It launches from its eye where the state puts it
 * (standing still, the server's eye path is that point), toward the target's chest.
 *
 * Every projectile end the rooms tell of (each client hears of every one) is kept once by room,
 * shooter and seq, with the local time it was first heard; each player keeps its launches' claimed
 * times by seq and its verdicts by reason. What the server does for these rockets is what it does
 * for any: judges each launch, flies it tick by tick against the level and the players (rewound
 * from its launch), applies its blast, syncs it to everyone and tells of its end.
 */
import { Client, type Room } from '@colyseus/sdk';
import { createInputMessage, encodeInput, INPUT_BYTES } from '../../shared/protocol/input';
import { createShotMessage, encodeShot, SHOT_BYTES, ShotAction } from '../../shared/protocol/shot';
import { createPingMessage, decodePing, ServerClockEstimate } from '../../shared/protocol/ping';
import { Msg, type ProjectileEndReply, type RejectReply, type VerdictReply, type WelcomeReply } from '../../shared/protocol/messages';
import { WeaponId, type WeaponSpec } from '../../shared/weapons';
import type { World } from '../../shared/world/world';
import { tickLoop } from './tickLoop';

/** The blast must stay this far from the launcher's own eye (metres beyond the splash radius). */
const CLEAR_M = 1;
/** Aim point above a target's feet (metres: the chest). */
const CHEST_M = 1.2;
/** Margin past the launcher's next due time before the next launch or after a switch (ms). */
const MARGIN_MS = 2;

/** A projectile end as the load heard it: the room's message and local ms of its first arrival. */
export interface HeardEnd {
  roomId: string;
  end: ProjectileEndReply;
  atMs: number;
}

export interface RocketPlayer {
  room: Room;
  roomId: string;
  verdicts: Record<string, number>;
  /** Messages the room refused outside verdicts (inputs, pongs), by type and reason: none expected. */
  rejects: Record<string, number>;
  /** Close code of the leave; null while connected. */
  left: number | null;
  /** Each launch sent, by seq: its claimed action time (server ms), the local ms it was sent, its verdict's reason once known. */
  launches: Map<number, { timeMs: number; sentAt: number; reason: string | null }>;
  /** The slot the room gave it (-1 before the welcome). */
  slot(): number;
}

export interface RocketLoad {
  players: RocketPlayer[];
  /** Every projectile end heard, once each, keyed `${roomId}:${shooter}:${seq}`. */
  ends: Map<string, HeardEnd>;
  start(): void;
  stop(): void;
  close(): Promise<void>;
}

interface SyncedPlayer { x: number; y: number; z: number; alive: boolean; weapon: number }
interface SyncedState { players?: { get(id: string): SyncedPlayer | undefined; forEach(f: (p: SyncedPlayer, id: string) => void): void } }

/** Fills each of `roomIds` with `perRoom` rocket players, matchmaking through `urls` in turn. */
export async function startRocketLoad(urls: string[], roomIds: readonly string[], perRoom: number, world: World, eyeHeight: number): Promise<RocketLoad> {
  const players: (RocketPlayer & { tick(now: number): void })[] = [];
  const ends = new Map<string, HeardEnd>();
  let turn = 0;
  try {
    for (const roomId of roomIds) {
      for (let k = 0; k < perRoom; k++) players.push(await joinRocket(urls[turn++ % urls.length]!, roomId, world, eyeHeight, ends));
    }
  } catch (e) {
    await Promise.all(players.map((p) => p.room.leave(true).catch(() => undefined)));
    throw e;
  }
  return {
    players,
    ends,
    ...tickLoop(players),
  };
}

async function joinRocket(url: string, roomId: string, world: World, eyeHeight: number, ends: Map<string, HeardEnd>): Promise<RocketPlayer & { tick(now: number): void }> {
  const room = await new Client(url).joinById(roomId, { name: 'rocket', interpDelayMs: 100 });
  room.reconnection.enabled = false;
  const clock = new ServerClockEstimate();
  const ping = createPingMessage();
  let welcome: WelcomeReply | null = null;
  let rocket: WeaponSpec | null = null;
  const me: RocketPlayer & { tick(now: number): void } = { room, roomId, verdicts: {}, rejects: {}, left: null, launches: new Map(), slot: () => welcome?.slot ?? -1, tick };
  room.onMessage(Msg.PING, (bytes: Uint8Array) => {
    if (decodePing(ping, bytes) === 0) {
      clock.onPing(ping, performance.now());
      room.sendBytes(Msg.PONG, new Uint8Array(bytes));
    }
  });
  room.onMessage(Msg.WELCOME, (w: WelcomeReply) => {
    welcome = w;
    rocket = w.validation.weapons.find((x) => x.id === WeaponId.ROCKET && w.validation.loadout.includes(x.id)) ?? null;
  });
  room.onMessage(Msg.VERDICT, (v: VerdictReply) => {
    me.verdicts[v.reasonName] = (me.verdicts[v.reasonName] ?? 0) + 1;
    const l = me.launches.get(v.seq);
    if (l !== undefined) l.reason = v.reasonName;
  });
  room.onMessage(Msg.PROJECTILE, (e: ProjectileEndReply) => {
    const key = `${roomId}:${e.shooter}:${e.seq}`;
    if (!ends.has(key)) ends.set(key, { roomId, end: e, atMs: performance.now() });
  });
  room.onMessage(Msg.REJECT, (r: RejectReply) => {
    const k = `${r.type}:${r.reason}`;
    me.rejects[k] = (me.rejects[k] ?? 0) + 1;
  });
  room.onMessage('*', () => {});
  room.onLeave((code: number) => { me.left = code; });

  const input = createInputMessage();
  const inputBuf = new Uint8Array(INPUT_BYTES);
  const shot = createShotMessage();
  const shotBuf = new Uint8Array(SHOT_BYTES);
  let t0 = -1, inputsSent = 0, seq = 0;
  /** When the launcher is next due (server ms): drawn after a switch, reloaded after a launch. */
  let readyMs = 0;
  let viewX = 0, viewY = 0, viewZ = 1;
  const eye = new Float64Array(3);
  const aim = new Float64Array(3);

  /** Farthest other living player within `rangeM`, beyond `clearM` and in sight of the eye: its chest in `aim`. */
  function findTarget(state: SyncedState, clearM: number, rangeM: number): boolean {
    let best = -1;
    state.players?.forEach((p, id) => {
      if (id === room.sessionId || !p.alive) return;
      const dx = p.x - eye[0]!, dy = p.y + CHEST_M - eye[1]!, dz = p.z - eye[2]!;
      const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
      if (!(d > clearM && d <= rangeM && d > best) || world.anyHit(eye[0]!, eye[1]!, eye[2]!, p.x, p.y + CHEST_M, p.z)) return;
      best = d;
      aim[0] = p.x; aim[1] = p.y + CHEST_M; aim[2] = p.z;
    });
    return best >= 0;
  }

  function tick(now: number): void {
    const w = welcome;
    if (w === null || rocket === null || clock.measured < 3 || me.left !== null) return;
    const state = room.state as SyncedState | undefined;
    const self = state?.players?.get(room.sessionId);
    if (state === undefined || self === undefined) return;
    if (t0 < 0) t0 = now;
    // One stamped input per tick: standing still, the view where it last aimed.
    const due = Math.floor(((now - t0) * w.tickRate) / 1000) + 1;
    for (; inputsSent < due; inputsSent++) {
      input.seq = inputsSent + 1;
      input.wishX = 0; input.wishZ = 0;
      input.viewX = viewX; input.viewY = viewY; input.viewZ = viewZ;
      input.timeMs = clock.serverNow(now);
      room.sendBytes(Msg.INPUT, encodeInput(inputBuf, input));
    }
    if (!self.alive) return;
    const at = clock.stamp(now);
    if (at < readyMs) return;
    // A life starts with the loadout's first weapon in hand: switch to the rocket, launch once drawn.
    // (A switch the state does not show by the time the draw would have ended is sent again.)
    if (self.weapon !== rocket.id) {
      sendAction(ShotAction.SWITCH, at);
      readyMs = at + rocket.drawMs + MARGIN_MS;
      return;
    }
    eye[0] = self.x; eye[1] = self.y + eyeHeight; eye[2] = self.z;
    if (!findTarget(state, (rocket.projectile?.splash?.radius ?? 0) + CLEAR_M, rocket.rangeM * 0.999)) return;
    const dx = aim[0]! - eye[0]!, dy = aim[1]! - eye[1]!, dz = aim[2]! - eye[2]!;
    const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
    viewX = Math.fround(dx / d); viewY = Math.fround(dy / d); viewZ = Math.fround(dz / d);
    shot.action = ShotAction.FIRE;
    shot.weapon = rocket.id;
    shot.claimedTarget = -1;
    shot.pelletCount = 0;
    shot.seq = ++seq;
    shot.timeMs = at;
    shot.renderTimeMs = at - w.interpDelayMs;
    shot.sx = eye[0]!; shot.sy = eye[1]!; shot.sz = eye[2]!;
    shot.ex = aim[0]!; shot.ey = aim[1]!; shot.ez = aim[2]!;
    room.sendBytes(Msg.SHOT, encodeShot(shotBuf, shot));
    me.launches.set(seq, { timeMs: at, sentAt: now, reason: null });
    readyMs = at + Math.max(rocket.fireIntervalMs, rocket.reloadMs) + MARGIN_MS;
  }

  function sendAction(action: number, at: number): void {
    shot.action = action;
    shot.weapon = WeaponId.ROCKET;
    shot.seq = ++seq;
    shot.timeMs = at;
    shot.renderTimeMs = 0;
    shot.claimedTarget = 0;
    shot.pelletCount = 0;
    shot.sx = 0; shot.sy = 0; shot.sz = 0; shot.ex = 0; shot.ey = 0; shot.ez = 0;
    room.sendBytes(Msg.SHOT, encodeShot(shotBuf, shot));
  }
  return me;
}
