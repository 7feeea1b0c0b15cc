/**
 * The audit of one match log as a reviewer reads it: the integrity audit (server/audit: every
 * verdict replayed bit for bit) with the behaviour measures observing the replay, then each
 * player's facts, rule flags and behaviour score. `auditMatchLog` is what the CLI, the tests and
 * the benchmark call.
 */
import { countTickFields } from '../../shared/matchlog/records';
import { ShotCol, SHOT_COLUMNS } from '../../shared/audit/replay';
import { VerdictKind } from '../../shared/validate/verdict';
import { ShotAction } from '../../shared/protocol/shot';
import { auditIntegrity, closeAuditWorkers, ProblemKind, type AuditProblem, type IntegrityOptions, type IntegrityResult, type ReplayHeader } from '../audit/audit';
import { slotEvents, slotIdentities } from '../audit/scan';
import { auditFog, type FogAudit } from '../audit/fog';
import { flagBehaviour, flagPlayers, type FlagThresholds, type PlayerReport, type ShotFacts } from './flags';
import { MEASURES, type Calibration } from './score';
import { auditEvents } from './events';
import { DEFAULT_CALIBRATION } from './calibration';
import { MeasureCol, measuresPlugin, type MeasureOptions } from './observer';

export { closeAuditWorkers, ProblemKind, type AuditProblem };

export interface AuditOptions extends Omit<IntegrityOptions, 'observer'> {
  thresholds?: Partial<FlagThresholds>;
  /**
   * Behaviour thresholds (default: the shipped calibration, from honest synthetic players). They
   * describe one population of players; null scores no behaviour (for players no calibration describes).
   */
  calibration?: Calibration | null;
  /** The measures' windows (default DEFAULT_MEASURE_WINDOWS); false replays verdicts only (no measures, no behaviour score). */
  measures?: Partial<MeasureOptions> | false;
}

export interface AuditResult extends IntegrityResult {
  players: PlayerReport[];
  flagged: { player: number; reasons: string[] }[];
  /** What the fog of war sent to whom (../audit/fog.ts). */
  fog: FogAudit;
}

/** Each player's behaviour measures that need a view or input counts its log never carried. */
function markUnavailable(players: PlayerReport[], r: IntegrityResult, maxPlayers: number): void {
  const fields = countTickFields(r.bytes, r.frames.frames, r.frames.version, maxPlayers);
  for (const p of players) {
    const noView = !(fields.viewTicks[p.player]! > 0);
    const noInputs = !(fields.inputTicks[p.player]! > 0);
    p.unavailable = MEASURES.filter((m) => (m.needs === 'view' && noView) || (m.needs === 'inputs' && noInputs)).map((m) => ({ measure: m.name, needs: m.needs! }));
  }
}

/** One fact per fired shot (switches and reloads are replayed and chained like shots, but are not shots). */
export function shotFacts(r: IntegrityResult, claimToleranceMs: number): ShotFacts[] {
  const rows = r.rows;
  const facts: ShotFacts[] = [];
  // Reaction time counts for the first hit of a sighting only: later hits on a target in sight are
  // the fire rate talking, not the reflexes. Rewound time of the last hit per (shooter, target).
  const lastHit = new Map<string, number>();
  // The shooter's latest death before each shot, walked in log order.
  const deaths = slotEvents(r.bytes, r.frames, 'death');
  const lastDeath = new Map<number, number>();
  let di = 0;
  for (let i = 0; i < r.shots; i++) {
    const o = i * SHOT_COLUMNS;
    for (; di < deaths.length && deaths[di]!.offset < rows[o + ShotCol.OFFSET]!; di++) lastDeath.set(deaths[di]!.slot, deaths[di]!.timeMs);
    const action = rows[o + ShotCol.ACTION]!;
    if (action === ShotAction.SWITCH || action === ShotAction.RELOAD) continue;
    const shooter = rows[o + ShotCol.SHOOTER]!;
    const c = rows[o + MeasureCol.SNAP_COS]!;
    let reaction = rows[o + MeasureCol.REACTION_MS]!;
    if (rows[o + ShotCol.KIND] === VerdictKind.HIT) {
      const key = `${shooter}:${rows[o + ShotCol.TARGET]!}`;
      const rewound = rows[o + ShotCol.REWIND_TIME_MS]!;
      const prev = lastHit.get(key);
      if (reaction === reaction && prev !== undefined && prev >= rewound - reaction) reaction = Number.NaN;
      lastHit.set(key, rewound);
    }
    facts.push({
      shooter, kind: rows[o + ShotCol.KIND]!, reason: rows[o + ShotCol.REASON]!, zone: rows[o + ShotCol.ZONE]!,
      target: rows[o + ShotCol.TARGET]!, timeSource: rows[o + ShotCol.TIME_SOURCE]!, rewindDepthMs: rows[o + ShotCol.REWIND_DEPTH_MS]!,
      inputAheadMs: rows[o + MeasureCol.INPUT_AHEAD_MS]!, index: rows[o + ShotCol.INDEX]!, receivedMs: rows[o + ShotCol.RECEIVED_MS]!,
      reactionMs: reaction,
      snapDegPerS: c === c ? ((Math.acos(Math.max(-1, Math.min(1, c))) * 180) / Math.PI) * r.tickRate : Number.NaN,
      rttMs: rows[o + ShotCol.RTT_MS]!,
      sinceShooterDeathMs: rows[o + ShotCol.RECEIVED_MS]! - (lastDeath.get(shooter) ?? Number.NaN),
      serverGapMs: rows[o + MeasureCol.SERVER_GAP_MS]!,
      pattern: rows[o + MeasureCol.PATTERN_LEAN_R]! === rows[o + MeasureCol.PATTERN_LEAN_R]!
        ? { leanR: rows[o + MeasureCol.PATTERN_LEAN_R]!, leanU: rows[o + MeasureCol.PATTERN_LEAN_U]!, offR: rows[o + MeasureCol.PATTERN_OFF_R]!, offU: rows[o + MeasureCol.PATTERN_OFF_U]!, error: rows[o + MeasureCol.PATTERN_ERROR]! }
        : undefined,
      // How far the claim sat from the server's estimate beyond the tolerance (0 when within).
      // The server's estimate is the action time less the declared interpolation delay (depth + rewound - interp).
      claimOffByMs: Math.max(0, Math.abs(rows[o + ShotCol.REWIND_DEPTH_MS]! + rows[o + ShotCol.REWIND_TIME_MS]! - rows[o + ShotCol.INTERP_MS]! - rows[o + ShotCol.CLAIMED_MS]!) - claimToleranceMs),
    });
  }
  return facts;
}

/** Audits the log at `path` (or the bytes given). Throws LogFormatError when it is not a match log. */
export async function auditMatchLog(path: string, options: AuditOptions = {}, given?: Uint8Array): Promise<AuditResult> {
  const measures = options.measures;
  const observer = measures === false ? undefined : (h: ReplayHeader) => measuresPlugin(typeof h.tickRate === 'number' && h.tickRate > 0 ? h.tickRate : 64, measures);
  const r = await auditIntegrity(path, { ...options, observer }, given);
  const h = r.header as ReplayHeader;
  const claimToleranceMs = typeof h.validation.claimToleranceMs === 'number' ? h.validation.claimToleranceMs : 60;
  const players = flagPlayers(shotFacts(r, claimToleranceMs), h.validation.rewindWindowMs, options.thresholds);
  markUnavailable(players, r, h.maxPlayers);
  const ids = slotIdentities(r.bytes, r.frames);
  for (const p of players) p.identities = (ids.get(p.player) ?? []).map((i) => ({ playerId: i.playerId, verified: i.verified }));
  if (measures !== false && options.calibration !== null) flagBehaviour(players, auditEvents(r), options.calibration ?? DEFAULT_CALIBRATION);
  const flagged = players.filter((p) => p.flags.length > 0).map((p) => ({ player: p.player, reasons: p.flags.map((f) => `${f.rule}: ${f.detail}`) }));
  const fog = auditFog(r.bytes, r.frames, h.maxPlayers, (h as { fog?: unknown }).fog);
  return { ...r, players, flagged, fog };
}
