/**
 * A bot's rockets and grenades as a predicting shooter sees them: each launch it sends is flown at
 * once by the shared LaunchPredictor against its own view (the level and the players as it renders
 * them, advanced every frame to its render time), and its predicted end is written into the launch's
 * log; the server's end (the room's `projectile` message for this shooter and seq) is written beside
 * it. The report compares the two (report.ts impactAgreement).
 */
import type { ProjectileEndReply, VerdictReply } from '../shared/protocol/messages';
import type { ValidationConfig } from '../shared/validate/rules';
import type { Verdict } from '../shared/validate/verdict';
import { LaunchPredictor } from '../shared/client/projectiles';
import { FlightEventKind } from '../shared/projectile/flight';
import { weaponById } from '../shared/weapons';
import type { ProjectileBlastData, ProjectileEndData } from '../shared/projectile/flights';
import type { MatchView } from '../shared/client/view';
import type { ProjectileImpact, ShotLog } from './shots';

export class LaunchWatch {
  private readonly predictor: LaunchPredictor;
  /** Launch logs by seq, until both ends are known. */
  private readonly open = new Map<number, ShotLog>();
  private readonly onEnd = (e: ProjectileEndData, b: ProjectileBlastData | null): void => {
    const log = this.open.get(e.seq);
    if (log === undefined) return;
    const victims: number[] = [];
    if (b !== null) for (let k = 0; k < b.hits.count; k++) victims.push(b.hits.player[k]!);
    if (log.impactPredicted !== undefined) log.impactReflown = true;
    log.impactPredicted = { kind: e.kind, x: e.x, y: e.y, z: e.z, player: e.kind === FlightEventKind.PLAYER ? e.player : -1, victims: victims.sort((a, c) => a - c) };
    if (log.impactServer !== undefined) this.open.delete(e.seq);
  };

  constructor(view: MatchView, private readonly rules: ValidationConfig, tickRate: number) {
    this.predictor = new LaunchPredictor(view, rules, tickRate);
  }

  /**
   * A launch predicted as verdict `p` was sent as `log`, expected at the server at arrivalMs: its
   * projectile flies from the predicted eye point, starting where the server will start it.
   */
  launched(log: ShotLog, p: Verdict, slot: number, arrivalMs: number): void {
    this.open.set(log.seq, log);
    if (this.predictor.launch(slot, p.weapon, log.seq, p.x, p.y, p.z, p.nx, p.ny, p.nz, p.rewindTimeMs, this.onEnd, arrivalMs) < 0) this.open.delete(log.seq);
  }

  /** Flies the predictions to the render time. */
  frame(renderTimeMs: number): void {
    this.predictor.advance(renderTimeMs, this.onEnd);
  }

  private directListed(weapon: number): boolean {
    return (weaponById(this.rules.weapons, weapon)?.projectile?.directDamage ?? 0) > 0;
  }

  /** The verdict of launch `log`: the prediction is flown again from the server's start when it started elsewhere. */
  verdict(log: ShotLog, v: VerdictReply): void {
    if (v.projectileStartMs === undefined || !this.open.has(log.seq)) return;
    if (this.predictor.confirm(log.seq, v.projectileStartMs, this.onEnd)) this.reflown++;
  }
  /** Predictions flown again from the server's start. */
  reflown = 0;

  /** The room told of a projectile's end. */
  serverEnd(e: ProjectileEndReply, slot: number): void {
    if (e.shooter !== slot) return;
    const log = this.open.get(e.seq);
    if (log === undefined) return;
    // The direct hit is listed first when it did damage (directDamage > 0), then the blast's victims.
    const direct = e.player;
    const victims = e.victims.slice(direct >= 0 && this.directListed(e.weapon) ? 1 : 0).map((v) => v.slot).sort((a, c) => a - c);
    log.impactServer = { kind: e.kind, x: e.x, y: e.y, z: e.z, player: direct, victims } satisfies ProjectileImpact;
    if (log.impactPredicted !== undefined) this.open.delete(e.seq);
  }
}
