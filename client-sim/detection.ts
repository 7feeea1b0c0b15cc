/**
 * The audit's verdict on a finished in-process run: the audit (server/behaviour/audit.ts) over
 * each room's match log, its flagged slots mapped back to the bots that played them, per cheat
 * profile and for the honest players.
 */
import { auditMatchLog } from '../server/behaviour/audit';
import type { World } from '../shared/world/world';
import type { Bot } from './bot';
import type { DetectionReport } from './report';
import type { ServerProbe } from './serverProbe';

/**
 * Runs the audit over each room's match log and maps its flagged slots to the bots that played
 * them: per profile, the share of its players flagged, beside the share of the run's honest
 * players flagged (with a handful of honest players that rate is coarse).
 */
export async function detect(bots: readonly Bot[], probe: ServerProbe, world: World): Promise<Record<string, DetectionReport> | null> {
  if (probe.matchLogByRoom.size === 0) return null;
  const flaggedRules = new Map<Bot, string[]>();
  for (const [roomId, path] of probe.matchLogByRoom) {
    let r;
    try {
      r = await auditMatchLog(path, { world, workers: 1 });
    } catch {
      continue;
    }
    for (const b of bots) {
      if (b.conn.room?.roomId !== roomId || b.slot < 0) continue;
      const p = r.players.find((x) => x.player === b.slot);
      if (p !== undefined && p.flags.length > 0) flaggedRules.set(b, p.flags.map((f) => f.rule));
    }
  }
  const honest = bots.filter((b) => b.profile === null);
  const fp = honest.length > 0 ? honest.filter((b) => flaggedRules.has(b)).length / honest.length : Number.NaN;
  const out: Record<string, DetectionReport> = {};
  for (const b of bots) {
    if (b.profile === null) continue;
    const d = (out[b.profile.name] ??= { strength: b.profile.strength, players: 0, flagged: 0, detectionRate: 0, falsePositiveRate: fp, rules: {} });
    d.players++;
    const rules = flaggedRules.get(b);
    if (rules !== undefined) {
      d.flagged++;
      for (const rule of rules) d.rules[rule] = (d.rules[rule] ?? 0) + 1;
    }
  }
  for (const d of Object.values(out)) d.detectionRate = d.flagged / d.players;
  out.honest = { strength: 0, players: honest.length, flagged: honest.filter((b) => flaggedRules.has(b)).length, detectionRate: fp, falsePositiveRate: fp, rules: {} };
  for (const b of honest) for (const rule of flaggedRules.get(b) ?? []) out.honest.rules[rule] = (out.honest.rules[rule] ?? 0) + 1;
  return out;
}
