/**
 * The bots' own counters over a simulated run (simulate.ts), summed for the report: links, frames,
 * observed tick rate, own-movement prediction, the mirrored weapon state, refused inputs and pongs;
 * and each cheater's profile counters added to its profile's report.
 */
import type { Bot } from './bot';
import type { ProfileReport, SimReport } from './report';

export type BotTotals = Pick<SimReport, 'ticksPerSecond' | 'prediction' | 'weaponState' | 'cameraPushes' | 'botFrames' | 'starvedFrames' | 'messageRejects' | 'network'> & { wallBangTries: number };

/** The bots' own counters summed over the run: links, frames, observed tick rate, own-movement prediction, weapon-state mirror, refused inputs and pongs. */
export function botTotals(bots: readonly Bot[]): BotTotals {
  let cameraPushes = 0, botFrames = 0, starvedFrames = 0, tickSum = 0, tickMs = 0, wallBangTries = 0;
  const network = { lostTransmissions: 0, retransmittedMessages: 0, maxRetransmitDelayMs: 0 };
  const prediction = { corrections: 0, meanErrorM: 0, maxErrorM: 0, jumps: 0 };
  const weaponState = { firedMismatches: 0, checks: 0, mismatches: 0 };
  let errSum = 0, errN = 0;
  const messageRejects: Record<string, number> = {};
  for (const b of bots) {
    cameraPushes += b.camera.pushes;
    for (const st of [b.link.upstream, b.link.downstream]) {
      network.lostTransmissions += st.lost;
      network.retransmittedMessages += st.retransmitted;
      network.maxRetransmitDelayMs = Math.max(network.maxRetransmitDelayMs, st.maxRetransmitDelayMs);
    }
    botFrames += b.frames;
    starvedFrames += b.honest.starved;
    if (b.profile === null) wallBangTries += b.honest.wallBangTries;
    tickSum += b.clock.ticksMeasured;
    tickMs += b.clock.msMeasured;
    prediction.corrections += b.move.corrections;
    prediction.maxErrorM = Math.max(prediction.maxErrorM, b.move.maxErrorM);
    prediction.jumps += b.steer.jumps;
    errSum += b.move.errorSumM;
    errN += b.move.errorN;
    weaponState.firedMismatches += b.weapons.firedMismatches;
    weaponState.checks += b.weapons.checks;
    weaponState.mismatches += b.weapons.mismatches;
    for (const [k, v] of Object.entries(b.rejects)) messageRejects[k] = (messageRejects[k] ?? 0) + v;
  }
  prediction.meanErrorM = errN > 0 ? errSum / errN : 0;
  const ticksPerSecond = tickMs > 0 ? (tickSum * 1000) / tickMs : 0;
  return { ticksPerSecond, prediction, weaponState, cameraPushes, botFrames, starvedFrames, messageRejects, network, wallBangTries };
}

/** Adds each cheater's own counters to its profile's report; the speed cheat also gets its measured and allowed speed. */
export function addProfileStats(bots: readonly Bot[], byProfile: Record<string, ProfileReport>, maxSpeed: number): void {
  for (const b of bots) {
    const pr = b.profile !== null ? byProfile[b.profile.name] : undefined;
    if (pr === undefined || b.profile === null) continue;
    const st = b.profile.stats?.() ?? {};
    for (const [k, v] of Object.entries(st)) pr.stats[k] = (pr.stats[k] ?? 0) + v;
    if (b.profile.name === 'speedHack') {
      pr.stats.maxSpeedMps = Math.max(pr.stats.maxSpeedMps ?? 0, b.maxSnapSpeed);
      pr.stats.allowedSpeedMps = maxSpeed;
    }
  }
}
