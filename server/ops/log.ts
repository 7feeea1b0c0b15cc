/**
 * Logging for the server process: pino loggers (JSON lines, or short text lines on a terminal),
 * the rate-limited log of hostile events, and the adapter that routes Colyseus's own error output
 * (stack traces for oversized frames, undecodable messages, failed seat reservations) into it.
 *
 * A hostile event is anything a client can cause at will: an oversized frame, a request body over
 * the cap, a room-creation flood, a bad token. Each kind prints at most `perMinute` lines a minute
 * (one JSON object each, never a stack); what is held back is counted and reported in one line
 * when the minute turns, and every event is counted for /metrics either way.
 */
import { pino, type Logger, type LevelWithSilent } from 'pino';
import type { Writable } from 'node:stream';

export type { Logger } from 'pino';

export interface CreateLoggerOptions {
  format?: 'text' | 'json';
  level?: LevelWithSilent;
  /** Default process.stdout. */
  destination?: Pick<Writable, 'write'>;
}

const LEVEL_NAMES: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/** A pino logger; `text` prints `msg key=value ...` per line (no time: the terminal has one). */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const out = options.destination ?? process.stdout;
  const level = options.level ?? 'info';
  if (options.format !== 'text') return pino({ level, base: { pid: process.pid } }, out as NodeJS.WritableStream);
  const text = {
    write(line: string): void {
      let o: Record<string, unknown>;
      try {
        o = JSON.parse(line) as Record<string, unknown>;
      } catch {
        out.write(line);
        return;
      }
      const lv = Number(o.level);
      const fields = Object.entries(o)
        .filter(([k]) => k !== 'level' && k !== 'time' && k !== 'msg' && k !== 'pid' && k !== 'hostname' && k !== 'text')
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join(' ');
      const head = lv >= 40 ? `${LEVEL_NAMES[lv] ?? lv}: ` : '';
      // A record may carry its own human form (the status line).
      const msg = typeof o.text === 'string' ? o.text : `${head}${String(o.msg ?? '')}${fields ? ` ${fields}` : ''}`;
      out.write(`${msg}\n`);
    },
  };
  return pino({ level, base: undefined }, text as unknown as NodeJS.WritableStream);
}

/** A logger that prints nothing (tests, embedding). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

export interface HostileLogOptions {
  /** Lines per kind per minute; 0 = count only. Default 20. */
  perMinute?: number;
  /** Millisecond clock (default Date.now); tests pass their own. */
  now?: () => number;
  /** Called for every event, printed or not (the metrics counter). */
  onEvent?: (kind: string) => void;
}

/** Rate-limited structured lines for events any client can trigger. */
export class HostileLog {
  private readonly perMinute: number;
  private readonly now: () => number;
  private readonly onEvent?: (kind: string) => void;
  private readonly windows = new Map<string, { start: number; printed: number; held: number }>();
  /** Every event by kind since start (printed or not). */
  readonly counts = new Map<string, number>();

  constructor(private readonly log: Logger, options: HostileLogOptions = {}) {
    this.perMinute = Math.max(0, Math.floor(options.perMinute ?? 20));
    this.now = options.now ?? Date.now;
    this.onEvent = options.onEvent;
  }

  /** Records one event of `kind` (snake_case) with a few plain fields; prints it unless its kind is over the rate. */
  report(kind: string, fields: Record<string, unknown> = {}, msg = kind): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    this.onEvent?.(kind);
    const t = this.now();
    let w = this.windows.get(kind);
    if (w === undefined) {
      if (this.windows.size > 256) this.windows.clear();
      w = { start: t, printed: 0, held: 0 };
      this.windows.set(kind, w);
    } else if (t - w.start >= 60_000) {
      if (w.held > 0) this.log.warn({ event: kind, suppressed: w.held, seconds: Math.round((t - w.start) / 1000) }, `${kind}: ${w.held} more not logged`);
      w.start = t;
      w.printed = 0;
      w.held = 0;
    }
    if (w.printed < this.perMinute) {
      w.printed++;
      this.log.warn({ event: kind, ...fields }, msg);
    } else {
      w.held++;
    }
  }
}

/** First line of an error or message, cut to 300 characters: never a stack. */
export function firstLine(x: unknown): string {
  const s = x instanceof Error ? x.message : typeof x === 'string' ? x : String(x);
  const line = s.split('\n', 1)[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}...` : line;
}

/** What a Colyseus or @colyseus/schema error line is about, when a client can cause it. */
export function classifyLibraryError(text: string): string | null {
  if (/max payload size exceeded/i.test(text)) return 'ws_frame_too_large';
  if (/invalid utf-8|utf8Read\(\): invalid byte/i.test(text)) return 'ws_invalid_utf8';
  if (/invalid websocket frame|invalid opcode|rsv[123] must be clear|mask must be set|invalid payload length/i.test(text)) return 'ws_bad_frame';
  if (/couldn't decode message|unpack|msgpack|unexpected end of (msgpack|buffer)|data read, but end of buffer/i.test(text)) return 'ws_bad_message';
  if (/seat reservation|already consumed|failed to reconnect|early_leave|already disconnected/i.test(text)) return 'ws_bad_join';
  if (/request body too large|malformed (json|request)/i.test(text)) return 'http_bad_body';
  return null;
}

/**
 * The logger object Colyseus takes (`defineServer({ logger })`). Errors a client can cause go to the
 * hostile log as one rate-limited line; other errors are logged once per line with their stack as
 * a field, also rate-limited (kind `server_error`) so no client can turn them into a flood.
 */
export function colyseusLogger(log: Logger, hostile: HostileLog): { debug: (...a: unknown[]) => void; info: (...a: unknown[]) => void; warn: (...a: unknown[]) => void; error: (...a: unknown[]) => void; trace: (...a: unknown[]) => void } {
  const text = (args: unknown[]): string => args.map((a) => (a instanceof Error ? (a.stack ?? a.message) : typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
  return {
    trace: () => {},
    debug: (...a) => log.debug({ source: 'colyseus' }, firstLine(text(a))),
    info: (...a) => log.info({ source: 'colyseus' }, firstLine(text(a))),
    warn: (...a) => log.warn({ source: 'colyseus' }, firstLine(text(a))),
    error: (...a) => {
      const t = text(a);
      const kind = classifyLibraryError(t);
      if (kind !== null) hostile.report(kind, { detail: firstLine(t) });
      else hostile.report('server_error', { detail: firstLine(t), stack: t.length > 4000 ? t.slice(0, 4000) : t }, 'server error');
    },
  };
}

/**
 * @colyseus/schema prints undecodable strings with console.error directly (one line per message
 * any client can send). While at least one server is up, those lines go to its hostile log
 * instead; every other console.error line passes through unchanged.
 */
const consoleSinks: HostileLog[] = [];
let originalConsoleError: typeof console.error | null = null;

export function routeLibraryConsole(hostile: HostileLog): () => void {
  consoleSinks.push(hostile);
  if (originalConsoleError === null) {
    const original = console.error;
    originalConsoleError = original;
    console.error = (...args: unknown[]) => {
      const first = args[0];
      const sink = consoleSinks[consoleSinks.length - 1];
      if (sink !== undefined && typeof first === 'string' && first.startsWith('decode.utf8Read(): Invalid byte')) {
        sink.report('ws_invalid_utf8', { detail: firstLine(first) });
        return;
      }
      original.apply(console, args);
    };
  }
  return () => {
    const i = consoleSinks.indexOf(hostile);
    if (i >= 0) consoleSinks.splice(i, 1);
    if (consoleSinks.length === 0 && originalConsoleError !== null) {
      console.error = originalConsoleError;
      originalConsoleError = null;
    }
  };
}
