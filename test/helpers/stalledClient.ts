/**
 * A client that joins an arena room and then stops reading: a real WebSocket (the `ws` package,
 * whose TCP socket can be paused, unlike Node's built-in WebSocket that @colyseus/sdk uses) that
 * matchmakes over HTTP, completes Colyseus's join handshake, waits for its first state, and then
 * `stall()`s: its TCP socket stops reading, so the server's writes fill the kernel's buffers and
 * then pile up in the server process. While stalled it may keep sending WebSocket pongs unasked
 * (`heartbeatMs`), which `ws` on the server takes as a live peer: Colyseus's own ping check then
 * never ends it, as a hostile client would arrange. `resume()` reads again. Its close code and
 * Colyseus reconnection token (`roomId:token`, for TestPlayer.reconnect) are kept.
 */
import WebSocket from 'ws';
import { Protocol } from '@colyseus/sdk';
import { ROOM_NAME } from '../../shared/protocol/messages';

export interface Closed {
  code: number;
  reason: string;
  /** performance.now() when the close reached this client. */
  atMs: number;
}

interface SeatReservation {
  sessionId: string;
  roomId: string;
  processId: string;
}

export class StalledClient {
  /** The room's id and this client's session. */
  readonly roomId: string;
  readonly sessionId: string;
  /** `roomId:token`, what @colyseus/sdk's Client.reconnect takes; '' until joined. */
  reconnectionToken = '';
  closed: Closed | null = null;
  /** Resolves when the connection closes, with its close code. */
  readonly done: Promise<Closed>;
  /** performance.now() when reading stopped (NaN while reading). */
  stalledAtMs = Number.NaN;
  private heartbeat: ReturnType<typeof setInterval> | null = null;

  private constructor(readonly ws: WebSocket, seat: SeatReservation) {
    this.roomId = seat.roomId;
    this.sessionId = seat.sessionId;
    this.done = new Promise((resolve) => {
      ws.once('close', (code: number, reason: Buffer) => {
        this.stopHeartbeat();
        this.closed = { code, reason: reason.toString('utf8'), atMs: performance.now() };
        resolve(this.closed);
      });
    });
    ws.on('error', () => {});
  }

  /**
   * Joins room `roomId` (or creates one when null) through the server at `httpBase`
   * (http://host:port) and resolves once the room's first state has arrived.
   */
  static async join(httpBase: string, roomId: string | null, options: Record<string, unknown> = {}, timeoutMs = 20_000): Promise<StalledClient> {
    const path = roomId === null ? `/matchmake/create/${ROOM_NAME}` : `/matchmake/joinById/${roomId}`;
    const res = await fetch(`${httpBase}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(options) });
    const seat = await res.json() as SeatReservation & { error?: string };
    if (!res.ok || typeof seat.sessionId !== 'string') throw new Error(`matchmaking ${path}: ${res.status} ${JSON.stringify(seat)}`);
    const ws = new WebSocket(`${httpBase.replace(/^http/, 'ws')}/${seat.processId}/${seat.roomId}?sessionId=${seat.sessionId}`);
    const c = new StalledClient(ws, seat);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no state within ${timeoutMs} ms for ${seat.sessionId}`)), timeoutMs);
      const fail = (closed: Closed): void => { clearTimeout(timer); reject(new Error(`closed while joining: ${closed.code} ${closed.reason}`)); };
      void c.done.then(fail);
      ws.on('message', (data: Buffer) => {
        const code = data[0];
        if (code === Protocol.JOIN_ROOM) {
          const n = data[1]!;
          c.reconnectionToken = `${seat.roomId}:${data.subarray(2, 2 + n).toString('utf8')}`;
          ws.send(Buffer.from([Protocol.JOIN_ROOM]));
        } else if (code === Protocol.ROOM_STATE || code === Protocol.ROOM_STATE_PATCH) {
          clearTimeout(timer);
          resolve();
        } else if (code === Protocol.ERROR) {
          clearTimeout(timer);
          reject(new Error(`join refused: ${data.subarray(1).toString('utf8')}`));
        }
      });
    });
    return c;
  }

  /** The TCP socket under the WebSocket. */
  get socket(): import('node:net').Socket {
    return (this.ws as unknown as { _socket: import('node:net').Socket })._socket;
  }

  /** Stops reading the TCP socket; with `heartbeatMs` > 0, sends an unasked pong that often meanwhile. */
  stall(heartbeatMs = 0): void {
    this.socket.pause();
    this.stalledAtMs = performance.now();
    if (heartbeatMs > 0) {
      this.heartbeat = setInterval(() => {
        try {
          if (this.ws.readyState === WebSocket.OPEN) this.ws.pong();
        } catch {
          // closing
        }
      }, heartbeatMs);
    }
  }

  /** Reads again (what arrived meanwhile is delivered, a close frame among it). */
  resume(): void {
    this.stopHeartbeat();
    this.stalledAtMs = Number.NaN;
    this.socket.resume();
  }

  /** Ends the connection at once (no close frame). */
  terminate(): void {
    this.stopHeartbeat();
    this.ws.terminate();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat !== null) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }
}
