/**
 * Judging a weapon message in the room: the shooter's timing and rules state handed to
 * validateShot (shared/), the verdict applied (applyVerdict.ts), the refusal charged to the
 * client's budget, and the whole of it written to the match log, which replays it bit for bit.
 * Reuses its scratch objects: nothing is allocated per shot but the log's copies.
 */
import type { Client } from '@colyseus/core';
import { validateShot, type ShotTiming } from '../../shared/validate/shot';
import { copyShooterState, createShooterState, createVerdict, reasonName, VerdictKind, type ShooterState, type Verdict } from '../../shared/validate/verdict';
import { applyVerdict, type VerdictHost } from './applyVerdict';
import type { MatchRecorder } from './recorder';
import type { Slot } from './slot';

/** The room as the judge sees it. */
export interface JudgeHost extends VerdictHost {
  readonly recorder: MatchRecorder | null;
  /** Server ms of the newest recorded tick (-Infinity before the first). */
  readonly newestTickMs: number;
  /** Server ms at which each player's current life began (Infinity while its first snapshot is pending). */
  readonly targetsLife: number[];
  /** A refused message costs the client's budget. */
  refused(client: Client, reason: string): void;
  /** Runs a recorder call; a failing recorder never stops the match. */
  safeRecord(fn: () => void): void;
}

export class ShotJudge {
  private readonly verdict: Verdict = createVerdict();
  private readonly shooterBefore: ShooterState = createShooterState(-1, []);
  private readonly timing: ShotTiming = { receiveTimeMs: 0, rttMs: 0, interpDelayMs: 0, newestTickMs: 0, shooterDiedMs: Number.NaN };

  constructor(private readonly host: JudgeHost) {}

  /** Judges `bytes` from `slot`'s player, which arrived at server ms `receiveTimeMs`, and applies the verdict. */
  judge(slot: Slot, bytes: unknown, receiveTimeMs: number): void {
    const host = this.host;
    const client = slot.client;
    const isBytes = bytes instanceof Uint8Array;
    const timing = this.timing;
    timing.receiveTimeMs = receiveTimeMs;
    // The largest round trip the client was told lately: its clock may run ahead by half of it.
    timing.rttMs = slot.rtt.toldMaxMs();
    timing.interpDelayMs = slot.interpDelayMs;
    timing.newestTickMs = host.newestTickMs === Number.NEGATIVE_INFINITY ? timing.receiveTimeMs : host.newestTickMs;
    timing.shooterDiedMs = slot.diedAtMs; // NaN while alive
    slot.shooter.alive = slot.alive;
    slot.shooter.slot = slot.index;
    copyShooterState(this.shooterBefore, slot.shooter);
    const v = this.verdict;
    // The targets as the pipeline sees them, for the match log: taken before a kill changes them.
    const targetsSeen = host.recorder !== null ? { alive: host.targetsAlive.slice(), lifeStartMs: host.targetsLife.slice() } : null;
    // Oversized payloads are refused unread: the pipeline's frame check looks only at the length.
    validateShot(v, host.scene, host.cfg.validation, bytes, slot.shooter, timing, { alive: host.targetsAlive, lifeStartMs: host.targetsLife });
    copyShooterState(slot.shooter, v.after);
    const done = applyVerdict(host, slot, client, v);
    if (v.kind === VerdictKind.REJECTED && client !== null) host.refused(client, reasonName(v.reason));

    const rec = host.recorder;
    if (rec !== null) {
      host.safeRecord(() => rec.shot({
        // Oversized payloads are kept too (the socket caps them at 4 KB): replay needs the length.
        bytes: isBytes ? (bytes as Uint8Array).slice() : null,
        nonBytesType: isBytes ? null : typeof bytes,
        shooterBefore: this.shooterBefore,
        timing,
        targets: targetsSeen!,
        verdict: v,
        targetHealthAfter: done.targetHealthAfter,
        killed: done.killed,
      }));
    }
  }
}
