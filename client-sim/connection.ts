/**
 * Transport glue: one bot's WebSocket to the arena room (@colyseus/sdk in Node) with every message
 * in both directions passed through the bot's Link (net.ts), so the room sees the simulated round
 * trip, jitter and loss. Incoming messages are handed to a Handlers object once the link delivers
 * them; pings are answered through the link as they arrive (the pong echoes the ping's bytes).
 *
 * Outgoing bytes are copied into rings of preallocated buffers, each with its own pre-bound send
 * function, so sending an input every frame allocates nothing here (a message may wait in the link
 * for seconds behind a retransmission, so the ring is deep; a slot still queued is never reused).
 */
import { createBackfill, decodeBackfill, type Backfill } from '../shared/protocol/backfill';
import { Client, type Room } from '@colyseus/sdk';
import { Msg, ROOM_NAME, type ProjectileEndReply, type VerdictReply, type HitReply, type DamagedReply, type RejectReply, type WelcomeReply } from '../shared/protocol/messages';
import { INPUT_BYTES } from '../shared/protocol/input';
import { FrameStatus, SHOT_BYTES, SHOT_MAX_BYTES, SHOT_PELLET_BYTES } from '../shared/protocol/shot';
import { createPingMessage, decodePing } from '../shared/protocol/ping';
import type { Link } from './net';
import { SnapshotPool, type StateSnapshot } from './view';
import { InputStamper } from '../shared/client/stamps';

export interface Handlers {
  /** A ping's bytes, delivered; return true to answer it (a fake-lag cheat may hold it). */
  ping(bytes: Uint8Array): boolean;
  snapshot(snap: StateSnapshot): void;
  verdict(v: VerdictReply): void;
  hit(h: HitReply): void;
  damaged(d: DamagedReply): void;
  reject(r: RejectReply): void;
  /** A projectile's flight ended (everyone hears of every one). */
  projectile?(e: ProjectileEndReply): void;
  /** The own slot once the room's state names it. */
  joined(slot: number): void;
  /** The room's welcome: the match's own rules (its spread seed among them). */
  welcome?(w: WelcomeReply): void;
  /** An enemy's poses ahead of the patch that sends it again (Msg.BACKFILL, decoded; the object is reused). */
  backfill?(b: Backfill): void;
}

/** A ring of byte buffers with one pre-bound sender each. */
class SendRing {
  private readonly bufs: Uint8Array[] = [];
  private readonly queued: boolean[] = [];
  private readonly senders: (() => void)[] = [];
  private next = 0;

  constructor(private readonly conn: Connection, private readonly type: string, bytes: number, size: number) {
    for (let i = 0; i < size; i++) this.add(bytes);
  }

  private add(bytes: number): number {
    const i = this.bufs.length;
    this.bufs.push(new Uint8Array(bytes));
    this.queued.push(false);
    this.senders.push(() => {
      this.queued[i] = false;
      this.conn.rawSend(this.type, this.bufs[i]!);
    });
    return i;
  }

  /** Copies `bytes` into a free buffer and hands its sender to the link. Returns the link's answer. */
  send(link: Link, bytes: Uint8Array): boolean {
    let i = this.next;
    if (this.queued[i]) i = this.add(bytes.length); // still in flight: grow rather than overwrite
    else this.next = (this.next + 1) % this.bufs.length;
    this.bufs[i]!.set(bytes);
    this.queued[i] = true;
    const ok = link.send(this.senders[i]!);
    if (!ok) this.queued[i] = false;
    return ok;
  }
}

export class Connection {
  room: Room | null = null;
  /**
   * The bot's input stamps (shared/client/stamps.ts), told of every pong handed to the link: its
   * `floor` is the newest time the inputs and pongs sent stated, which the server holds a weapon
   * message sent after them to (the link keeps their order).
   */
  readonly stamper: InputStamper;
  private readonly pong = createPingMessage();
  private closed = false;
  private readonly inputs: SendRing;
  private readonly pongs: SendRing;
  private readonly pool: SnapshotPool;
  /** The last backfill read (MatchView.backfill copies it). */
  private readonly backfillIn = createBackfill();

  constructor(readonly link: Link, maxPlayers: number, tickRate: number) {
    this.stamper = new InputStamper(tickRate);
    this.inputs = new SendRing(this, Msg.INPUT, INPUT_BYTES, 512);
    this.pongs = new SendRing(this, Msg.PONG, 24, 32);
    this.pool = new SnapshotPool(maxPlayers);
  }

  /** Joins `roomId` or any arena room; handlers run as the link delivers each message. */
  async join(url: string, roomId: string | undefined, options: Record<string, unknown>, h: Handlers): Promise<Room> {
    const client = new Client(url);
    const room = roomId !== undefined ? await client.joinById(roomId, options) : await client.joinOrCreate(ROOM_NAME, options);
    this.room = room;
    const link = this.link;
    room.onMessage(Msg.PING, (bytes: Uint8Array) => {
      const copy = new Uint8Array(bytes);
      link.receive(() => {
        if (h.ping(copy)) this.sendPong(copy);
      });
    });
    // The world, rig and rules come from the simulator's own copies (in-process or the same files);
    // what the match chose for itself (its spread seed) comes with the welcome.
    room.onMessage(Msg.WELCOME, (w: WelcomeReply) => link.receive(() => h.welcome?.(w)));
    room.onMessage(Msg.VERDICT, (v: VerdictReply) => link.receive(() => h.verdict(v)));
    room.onMessage(Msg.HIT, (v: HitReply) => link.receive(() => h.hit(v)));
    room.onMessage(Msg.DAMAGED, (v: DamagedReply) => link.receive(() => h.damaged(v)));
    room.onMessage(Msg.REJECT, (r: RejectReply) => link.receive(() => h.reject(r)));
    room.onMessage(Msg.PROJECTILE, (e: ProjectileEndReply) => link.receive(() => h.projectile?.(e)));
    room.onMessage(Msg.BACKFILL, (bytes: Uint8Array) => {
      const copy = new Uint8Array(bytes);
      link.receive(() => {
        if (decodeBackfill(this.backfillIn, copy)) h.backfill?.(this.backfillIn);
      });
    });
    let slot = -1;
    room.onStateChange((state: any) => {
      if (slot < 0) {
        const me = state.players?.get(room.sessionId);
        if (me !== undefined) {
          slot = me.slot;
          h.joined(slot);
        }
      }
      const snap = this.pool.capture(state);
      if (snap !== null) link.receive(() => h.snapshot(snap));
    });
    return room;
  }

  /** Sends on the socket now (the link calls this when the message reaches the server). */
  rawSend(type: string, bytes: Uint8Array): void {
    if (this.closed || this.room === null) return;
    try {
      this.room.sendBytes(type, bytes);
    } catch {
      // the socket closed while the message was on its way: nothing to deliver
    }
  }

  /** An input through the link (copied into the ring). */
  sendInput(bytes: Uint8Array): boolean {
    return this.inputs.send(this.link, bytes);
  }

  /** A pong (at once, or held and sent later by the fake-lag cheat). */
  sendPong(bytes: Uint8Array): boolean {
    if (decodePing(this.pong, bytes) === FrameStatus.OK) this.stamper.answered(this.pong.serverTimeMs);
    return this.pongs.send(this.link, bytes);
  }

  /** A weapon message through the link; `bytes` must be the caller's own copy (it is kept in the log). */
  sendShot(bytes: Uint8Array): boolean {
    const n = bytes.length;
    if (n < SHOT_BYTES || n > SHOT_MAX_BYTES || (n - SHOT_BYTES) % SHOT_PELLET_BYTES !== 0) {
      throw new Error(`sendShot: ${n} bytes, a weapon message is ${SHOT_BYTES} plus ${SHOT_PELLET_BYTES} per pellet`);
    }
    return this.link.send(() => this.rawSend(Msg.SHOT, bytes));
  }

  /** Raw bytes of any type (the cheats' malformed messages). */
  sendRaw(type: string, bytes: Uint8Array): boolean {
    return this.link.send(() => this.rawSend(type, bytes));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.link.close();
    try {
      await this.room?.leave(true);
    } catch {
      // already gone
    }
  }
}
