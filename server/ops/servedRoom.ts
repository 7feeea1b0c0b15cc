/**
 * The arena room as a game server runs it: the room of server/arena/room.ts bound to its config,
 * plus what the server adds around each room: the token check at matchmaking (auth.ts), the room
 * cap and the seat reservation time (limits.ts), and the lifecycle lines of the structured log.
 * Tick timing reaches the server through the config's own `onTickTimed` hook, not from here.
 */
import { ServerError, ErrorCode, type AuthContext, type Client } from '@colyseus/core';
import { arenaRoomFor, type ArenaRoom } from '../arena/room';
import type { ArenaConfig } from '../arena/config';
import { AuthError } from './auth';
import type { PlayerIdentity, TokenVerifier } from './authTypes';
import type { LimitOptions } from './limits';
import type { HostileLog, Logger } from './log';

export interface ServedRoomParts {
  /** Checks each matchmaking request's token; null = an open server. */
  verifier: TokenVerifier | null;
  limits: Required<LimitOptions>;
  hostile: HostileLog;
  logger: Logger;
  /** Live rooms (the room cap counts them). */
  rooms: ReadonlyMap<string, ArenaRoom>;
  /** Called once per join (reconnections are not joins). */
  onJoined: () => void;
}

export function servedRoomFor(config: ArenaConfig, parts: ServedRoomParts): typeof ArenaRoom {
  const { verifier, limits, hostile, logger, rooms, onJoined } = parts;
  const Bound = arenaRoomFor(config);
  return class ServedArenaRoom extends Bound {
    static override async onAuth(token: string, _options: unknown, context: AuthContext): Promise<PlayerIdentity | true> {
      if (verifier === null) return true;
      try {
        return await verifier(token || undefined);
      } catch (e) {
        const reason = e instanceof AuthError ? e.reason : 'verifier_failed';
        hostile.report('auth_refused', { reason, ip: context?.ip }, 'token refused');
        throw new ServerError(ErrorCode.AUTH_FAILED, e instanceof AuthError ? e.message : 'token could not be checked');
      }
    }

    override onCreate(clientOptions: unknown): void {
      if (rooms.size >= limits.maxRooms) {
        hostile.report('room_cap', { rooms: rooms.size }, 'room refused: the process is at its room cap');
        throw new ServerError(ErrorCode.MATCHMAKE_UNHANDLED, `server full: ${limits.maxRooms} rooms`);
      }
      super.onCreate(clientOptions);
      this.seatReservationTimeout = limits.seatReservationSeconds;
      logger.debug({ roomId: this.roomId }, 'room created');
    }

    override onJoin(client: Client, joinOptions?: unknown): void {
      super.onJoin(client, joinOptions);
      onJoined();
      const id = client.auth as PlayerIdentity | undefined;
      logger.info({ roomId: this.roomId, sessionId: client.sessionId, slot: this.slotOf(client.sessionId)?.index, ...(id?.id ? { playerId: id.id } : {}) }, 'join');
    }

    override onLeave(client: Client): void {
      const slot = this.slotOf(client.sessionId)?.index;
      super.onLeave(client);
      logger.info({ roomId: this.roomId, sessionId: client.sessionId, slot }, 'leave');
    }

    override onDispose(): void | Promise<unknown> {
      logger.debug({ roomId: this.roomId, ticks: this.tickCount }, 'room disposed');
      return super.onDispose();
    }
  };
}
