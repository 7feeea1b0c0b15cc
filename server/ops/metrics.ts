/**
 * Prometheus metrics of one game server (prom-client, its own registry), served as text at
 * GET /metrics. Counters are read from the server's ServerStats when scraped; the tick histogram is
 * fed by the rooms' onTickTimed hook (server/index.ts); round trips are sampled once a
 * second from every connected player's current estimate (the median the room keeps). The match
 * logs' counters (server/ops/matchLogs.ts) say what reached the disk and what did not: bytes
 * written, bytes waiting in memory, bytes given up, failed writes, dropped records. Node's
 * default process metrics come along, event-loop lag (nodejs_eventloop_lag_*) among them.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { VerdictReason } from '../../shared/validate/verdict';
import type { ServerStats } from '../arena/stats';
import type { ArenaRoom } from '../arena/room';
import type { MatchLogTotals } from './matchLogs';

export interface ServerMetricsSources {
  stats: ServerStats;
  rooms: Map<string, ArenaRoom>;
  /** The match logs' counters (every room, closed ones included). */
  matchLogs: () => MatchLogTotals;
  /** Hostile events by kind so far. */
  hostile: Map<string, number>;
  /** With Redis: whether it answers now, and outages so far. */
  redis?: { up: () => boolean; outages: () => number };
}

export class ServerMetrics {
  readonly registry = new Registry();
  readonly tickSeconds: Histogram;
  private readonly rttSeconds: Histogram;
  private readonly rttTimer: ReturnType<typeof setInterval>;

  constructor(src: ServerMetricsSources) {
    const registry = this.registry;
    const verdictReasons = new Set<string>(Object.keys(VerdictReason));
    collectDefaultMetrics({ register: registry });
    this.tickSeconds = new Histogram({
      name: 'hitreg_tick_duration_seconds', help: 'Wall time of one room tick (movement, histories, match log, patch)',
      buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05], registers: [registry],
    });
    this.rttSeconds = new Histogram({
      name: 'hitreg_round_trip_seconds', help: 'Players\' round-trip estimates, sampled once a second per connected player',
      buckets: [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 1], registers: [registry],
    });
    const total = (name: string, help: string, read: () => number): void => {
      new Counter({ name, help, registers: [registry], collect() { this.reset(); this.inc(read()); } });
    };
    total('hitreg_ticks_total', 'Room ticks run (rate() = ticks per second)', () => src.stats.ticks);
    total('hitreg_shots_total', 'Shots judged (rate() = shots per second)', () => src.stats.shots);
    total('hitreg_kills_total', 'Kills', () => src.stats.kills);
    total('hitreg_throttled_messages_total', 'Messages dropped unjudged from clients over their budget of refused messages', () => src.stats.throttled);
    total('hitreg_stalled_clients_cut_total', 'Connections closed for not reading (unsent data over STALL_MAX_BYTES for longer than STALL_MAX_MS); their slots are kept', () => src.stats.stalledCut);
    total('hitreg_fog_rays_total', 'Rays cast by fog of war (rate() = its work per second)', () => src.stats.fogRays);
    total('hitreg_fog_viewer_updates_total', 'Fog of war viewers present, summed over its updates', () => src.stats.fogViewerUpdates);
    total('hitreg_fog_precise_viewer_updates_total', 'Of hitreg_fog_viewer_updates_total, those decided precisely within the fog\'s time budget (the ratio of their rates: the share of viewers precise)', () => src.stats.fogPreciseViewerUpdates);
    total('hitreg_fog_timed_updates_total', 'Fog of war updates timed for its precision budget (one in eight)', () => src.stats.fogTimedUpdates);
    total('hitreg_fog_timed_update_seconds_total', 'Their summed time (rate() over the updates\' rate: the fog\'s mean update time)', () => src.stats.fogTimedMs / 1000);
    total('hitreg_fog_pairs_over_budget_total', 'Enemy pairs fog of war sent untested because an update spent its ray cap (FOG_MAX_RAYS)', () => src.stats.fogPairsOverBudget);
    total('hitreg_internal_errors_total', 'Handler or tick exceptions caught by the room', () => src.stats.internalErrors);
    total('hitreg_recorder_errors_total', 'Match log recorder calls that threw', () => src.stats.recorderErrors);
    total('hitreg_match_log_bytes_total', 'Match log bytes written to disk', () => src.matchLogs().bytes);
    total('hitreg_match_log_unwritten_bytes_total', 'Match log bytes given up: left unwritten when their log closed with the disk failing, or dropped over the writer\'s memory bound', () => src.matchLogs().unwrittenBytes);
    total('hitreg_match_log_write_failures_total', 'Failed match log opens, writes and syncs (full disk, I/O error, unwritable directory)', () => src.matchLogs().writeFailures);
    total('hitreg_match_log_dropped_records_total', 'Match log records dropped over the writer\'s memory bound while writes failed', () => src.matchLogs().droppedRecords);
    new Counter({
      name: 'hitreg_verdicts_total', help: 'Shot verdicts by kind (hit, miss, rejected) and reason', labelNames: ['kind', 'reason'], registers: [registry],
      collect() {
        this.reset();
        this.inc({ kind: 'hit', reason: 'OK_HIT' }, src.stats.hits);
        this.inc({ kind: 'miss', reason: 'OK_MISS' }, src.stats.misses);
        for (const [reason, n] of Object.entries(src.stats.rejects)) if (verdictReasons.has(reason)) this.inc({ kind: 'rejected', reason }, n);
      },
    });
    new Counter({
      name: 'hitreg_message_rejects_total', help: 'Refused non-shot messages (inputs, pongs, unknown types) by reason', labelNames: ['reason'], registers: [registry],
      collect() {
        this.reset();
        for (const [reason, n] of Object.entries(src.stats.rejects)) if (!verdictReasons.has(reason)) this.inc({ reason }, n);
      },
    });
    new Counter({
      name: 'hitreg_hostile_events_total', help: 'Hostile events (oversized bodies and frames, floods, bad tokens) by kind', labelNames: ['kind'], registers: [registry],
      collect() {
        this.reset();
        for (const [kind, n] of src.hostile) this.inc({ kind }, n);
      },
    });
    const redis = src.redis;
    if (redis !== undefined) {
      new Gauge({ name: 'hitreg_redis_up', help: 'Redis (shared matchmaking) answers on every connection of this process: 1, else 0', registers: [registry], collect() { this.set(redis.up() ? 1 : 0); } });
      total('hitreg_redis_outages_total', 'Times Redis stopped answering', redis.outages);
    }
    new Gauge({ name: 'hitreg_rooms', help: 'Live arena rooms', registers: [registry], collect() { this.set(src.rooms.size); } });
    new Gauge({ name: 'hitreg_players', help: 'Connected players', registers: [registry], collect() { this.set(src.stats.players); } });
    new Gauge({ name: 'hitreg_match_log_pending_bytes', help: 'Match log bytes held in memory, not yet written (open logs; grows while writes fail)', registers: [registry], collect() { this.set(src.matchLogs().pendingBytes); } });

    this.rttTimer = setInterval(() => {
      for (const room of src.rooms.values()) {
        for (const p of room.match.players) if (p.connected && p.rttMs > 0) this.rttSeconds.observe(p.rttMs / 1000);
      }
    }, 1000);
    this.rttTimer.unref();
  }

  /** The text exposition format. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  close(): void {
    clearInterval(this.rttTimer);
    this.registry.clear();
  }
}
