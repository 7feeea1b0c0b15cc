/**
 * How often an honest shooter's predicted projectile end (launches.ts) agrees with the server's:
 * over the honest launches whose both ends are known, the share with the same end (FlightEventKind),
 * the same player struck directly, and centres within IMPACT_AGREE_M; the blast's victims compared
 * as sets beside it, and the distance between the two centres. The predicted end is the last one:
 * a prediction that started its flight elsewhere than the server is flown again once the verdict
 * names the server's start (shared/client/projectiles.ts LaunchPredictor.confirm).
 */
import { Intent, type ShotLog } from './shots';

/** Predicted and server centres at most this far apart count as the same impact, m. */
export const IMPACT_AGREE_M = 0.5;

export interface ImpactReport {
  /** Honest launches the server flew (verdict LAUNCH with a projectile id). */
  launches: number;
  /** Of them, those whose predicted and server ends are both known. */
  resolved: number;
  /** Same end, same direct target, centres within IMPACT_AGREE_M. */
  agreed: number;
  rate: number;
  /** The blast reached the same players. */
  sameVictims: number;
  /**
   * Predictions whose end came before the verdict named the server's flight start and that were then
   * flown again from it (their end replaced): the first guess of the start was off.
   */
  revised: number;
  /** Distance between the predicted and the server's centre, m. */
  distanceM: { p50: number; p90: number; max: number };
  /** Resolved launches by server end kind (PLAYER, LEVEL, FUSE, EXPIRED). */
  byEnd: Record<string, { resolved: number; agreed: number }>;
}

const END_NAMES = ['NONE', 'PLAYER', 'LEVEL', 'FUSE', 'EXPIRED'];

export function summarizeImpacts(logs: readonly ShotLog[]): ImpactReport {
  let launches = 0, resolved = 0, agreed = 0, sameVictims = 0, revised = 0;
  const d: number[] = [];
  const byEnd: ImpactReport['byEnd'] = {};
  for (const s of logs) {
    if (s.intent !== Intent.HONEST || s.verdict === null || s.verdict.projectile === undefined || s.verdict.projectile < 0) continue;
    launches++;
    const p = s.impactPredicted, v = s.impactServer;
    if (p === undefined || v === undefined) continue;
    resolved++;
    if (s.impactReflown === true) revised++;
    const dist = Math.sqrt((p.x - v.x) ** 2 + (p.y - v.y) ** 2 + (p.z - v.z) ** 2);
    d.push(dist);
    const ok = p.kind === v.kind && p.player === v.player && dist <= IMPACT_AGREE_M;
    const e = (byEnd[END_NAMES[v.kind] ?? String(v.kind)] ??= { resolved: 0, agreed: 0 });
    e.resolved++;
    if (ok) {
      agreed++;
      e.agreed++;
    }
    if (p.victims.length === v.victims.length && p.victims.every((x, i) => x === v.victims[i])) sameVictims++;
  }
  return { launches, resolved, agreed, rate: resolved > 0 ? agreed / resolved : Number.NaN, sameVictims, revised, distanceM: spread(d), byEnd };
}

function spread(v: number[]): ImpactReport['distanceM'] {
  v.sort((a, b) => a - b);
  const at = (p: number): number => (v.length > 0 ? v[Math.min(v.length - 1, Math.floor(p * v.length))]! : Number.NaN);
  return { p50: at(0.5), p90: at(0.9), max: at(1) };
}
