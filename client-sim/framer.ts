/**
 * A bot's weapon-message frames: the pellets a fire of a pattern weapon carries, filled from the
 * match's spread seed and the shooter's rules state (its slot, the pulls it fired) as a predicting client fills them
 * (PredictingShooter.fire), unless a cheat set its own; the bytes of exactly the message's length;
 * and the match's own rules (spread seed, materials) taken from the room's welcome.
 */
import type { WelcomeReply } from '../shared/protocol/messages';
import { encodeShot, ShotAction, SHOT_MAX_BYTES, shotBytes, type ShotMessage } from '../shared/protocol/shot';
import { predictPellets } from '../shared/validate/spread';
import { hasPattern, weaponById } from '../shared/weapons';
import type { ShooterState } from '../shared/validate/verdict';
import type { ValidationConfig } from '../shared/validate/rules';

/** What the match chose for itself, from its welcome into `rules`. */
export function takeWelcomeRules(rules: ValidationConfig, w: WelcomeReply): void {
  const m = w.validation;
  rules.spreadSeed = m.spreadSeed ?? 0;
  if (m.materials !== undefined) rules.materials = m.materials;
  if (m.defaultResistance !== undefined) rules.defaultResistance = m.defaultResistance;
  if (m.playerPenetrationCost !== undefined) rules.playerPenetrationCost = m.playerPenetrationCost;
}

export class ShotFramer {
  private readonly buf = new Uint8Array(SHOT_MAX_BYTES);
  /** The scratch message's pellets were set by hand (a cheat): framed as they are. */
  private keep = false;

  constructor(private readonly rules: ValidationConfig, private readonly scratch: ShotMessage) {}

  /** The scratch holds a new message: its pellets are filled again. */
  fresh(): void {
    this.keep = false;
  }

  /** The scratch's pellets are the caller's until the next fresh(). */
  custom(): void {
    this.keep = true;
  }

  /**
   * Fills `msg`'s pellets with the pattern of the pull fired with rules state `state` (before the
   * shot: its slot, the pulls fired before, the spray heat): what the server rebuilds. Returns the
   * count (0 for a weapon without a pattern).
   */
  fillPattern(msg: ShotMessage, state: ShooterState): number {
    const w = weaponById(this.rules.weapons, msg.weapon);
    const n = w !== undefined && hasPattern(w)
      ? predictPellets(msg.pellets, this.rules.spreadSeed ?? 0, state, w, msg.timeMs, msg.sx, msg.sy, msg.sz, msg.ex, msg.ey, msg.ez)
      : 0;
    msg.pelletCount = n;
    return n;
  }

  /** The bytes of `msg` fired from rules state `state`, in the frame scratch (valid until the next call). */
  encode(msg: ShotMessage, state: ShooterState): Uint8Array {
    if (msg.action !== ShotAction.FIRE) msg.pelletCount = 0;
    else if (!(msg === this.scratch && this.keep)) this.fillPattern(msg, state);
    return encodeShot(this.buf, msg).subarray(0, shotBytes(msg.pelletCount));
  }
}
