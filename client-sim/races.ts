/**
 * Death races in a finished run: the shots whose outcome turned on a death the shooter could not
 * have seen yet; and, in-process, the server's own verdict where the reply read otherwise
 * (ShotLog.serverVerdict). The simulator marks them on the shot logs before the report counts
 * agreement (report.ts keeps races apart from the prediction's disagreements).
 */
import type { ServerProbe } from './serverProbe';
import type { ShotLog } from './shots';
import { reasonName } from '../shared/validate/verdict';

/**
 * Marks the shots whose outcome turned on a death the shooter could not have seen yet: the shooter
 * itself was dead on the server when the shot arrived (diedInFlight), or the predicted target or the
 * one hit was (targetDiedInFlight), or it fired knowing it was dead and had respawned by the arrival
 * (respawnedInFlight, in-process only). In-process the facts come from the server's own record of each arrival; with
 * a remote server from the kill feed: a death of the target after the render time and before the
 * latest the shot can have arrived (half the round trip plus half the jitter, plus 5 ms of clock error).
 */
export function classifyRaces(logs: readonly ShotLog[], probe: ServerProbe | null, deaths: Map<number, Set<number>>, jitterMs: number): void {
  const seen = new Map<string, number>();
  for (const l of logs) {
    if (l.dropped) continue;
    if (probe !== null) {
      const key = `${l.roomId}:${l.slot}:${l.seq}`;
      const k = seen.get(key) ?? 0;
      seen.set(key, k + 1);
      const facts = probe.arrivals.get(key)?.[k];
      if (facts === undefined) continue;
      // Died (or died and respawned) on the server while the message was on its way.
      l.diedInFlight = !l.deadKnown && (!facts.shooterAlive || facts.shooterEpoch !== l.epochAtSend);
      l.respawnedInFlight = facts.shooterAlive && l.deadKnown;
      l.floorLeadMs = facts.streamFloorMs - l.timeMs;
      const v = l.verdict;
      if (v !== null && (facts.kind !== v.kind || facts.reason !== v.reason)) l.serverVerdict = { ...v, kind: facts.kind, reason: facts.reason, reasonName: reasonName(facts.reason) };
      const t = l.predictedTarget;
      if (t >= 0) {
        const lifeOk = (facts.lifeStartMs[t] ?? Infinity) <= (l.verdict?.rewindTimeMs ?? l.renderTimeMs);
        l.targetDiedInFlight = facts.targetsAlive[t] !== true || !lifeOk;
      }
      // Hit a player already dead at the arrival (killed within the trade window before the action,
      // shared/validate/times.ts tradeGraceMs): the verdict stands where the shooter saw it, and no damage is done.
      const hit = l.verdict?.target ?? -1;
      if (hit >= 0 && facts.targetsAlive[hit] !== true) l.targetDiedInFlight = true;
      continue;
    }
    if (l.predictedTarget < 0) continue;
    const ds = deaths.get(l.predictedTarget);
    if (ds === undefined) continue;
    const arrival = l.sentServerMs + l.rttMs / 2 + jitterMs / 2 + 5;
    for (const t of ds) if (t > l.renderTimeMs - 1 && t <= arrival) l.targetDiedInFlight = true;
  }
}
