/**
 * Predicting weapon messages on the client with the server's own pipeline. ShotPredictor runs
 * validateShot on a message against the client's view (view.ts) as the server will judge it on
 * arrival; PredictingShooter is the whole client side of it: the seq, the frame, the prediction
 * against the rules state mirrored with the server's own rules (weaponState.ts), and the
 * bookkeeping when the verdict comes. The web page, the headless bots and a game's own client use
 * the same pieces.
 */
import { validateShot, type ShotScene, type ShotTargets, type ShotTiming, type ValidationConfig } from '../validate/shot';
import { createVerdict, type ShooterState, type Verdict } from '../validate/verdict';
import { createShotMessage, encodeShot, ShotAction, SHOT_MAX_BYTES, shotBytes, type ShotMessage } from '../protocol/shot';
import { hasPattern, weaponById } from '../weapons';
import { predictPellets } from '../validate/spread';
import { WeaponState } from './weaponState';
import { later } from './stamps';

/** Predicts one message with the shared pipeline against a client's view. The verdict is scratch, valid until the next call. */
export class ShotPredictor {
  readonly verdict: Verdict = createVerdict();
  private readonly timing: ShotTiming = { receiveTimeMs: 0, rttMs: 0, interpDelayMs: 0, newestTickMs: 0, streamFloorMs: Number.NaN };

  constructor(private readonly scene: ShotScene, private readonly validation: ValidationConfig, private readonly targets: ShotTargets) {}

  /**
   * `serverNow`: the client's server clock; the message is expected half a round trip later. The
   * server's newest tick then is about its arrival, where the client's own predicted ring reaches.
   * `streamFloorMs`: the newest time the messages it sent before this one stated (NaN: none).
   */
  predict(bytes: Uint8Array, shooter: ShooterState, serverNow: number, rttMs: number, interpDelayMs: number, newestTickMs: number, streamFloorMs = Number.NaN): Verdict {
    const t = this.timing;
    t.streamFloorMs = streamFloorMs;
    t.rttMs = rttMs;
    t.receiveTimeMs = serverNow + rttMs / 2;
    t.interpDelayMs = interpDelayMs;
    t.newestTickMs = newestTickMs;
    return validateShot(this.verdict, this.scene, this.validation, bytes, shooter, t, this.targets);
  }
}

/** Where the client's clock stands when it acts. */
export interface ClientClock {
  /** The client's estimate of the server clock now, ms (its messages' action time). */
  serverNowMs: number;
  /** Its round-trip estimate, ms. */
  rttMs: number;
  /** The interpolation delay it renders others with, ms (as the server was told at join). */
  interpDelayMs: number;
  /** The newest server time it holds a pose for (its view's newest snapshot, or its own predicted ring). */
  newestTickMs: number;
  /**
   * The newest time its other messages stated before this one: its inputs' stamps and the send
   * times (ping.serverTimeMs) of the pings it answered (NaN: none). Its own actions are added here.
   */
  streamFloorMs: number;
}

/** A weapon message ready to send and what the server is expected to say. */
export interface Prediction {
  /** The frame to send (a fresh copy: keep it or send it as it is). */
  bytes: Uint8Array;
  seq: number;
  /** The message's fields (scratch, as the verdict): to send it as an object instead of the frame. */
  message: ShotMessage;
  /** The predicted verdict (scratch: read it before the next prediction). */
  verdict: Verdict;
}

export class PredictingShooter {
  readonly weapons: WeaponState;
  readonly predictor: ShotPredictor;
  /** The last seq used (each message takes the next). */
  seq = 0;
  /** The newest claimed time of an action the prediction carried out. */
  private actionFloorMs = Number.NaN;
  private readonly msg: ShotMessage = createShotMessage();
  private readonly frame = new Uint8Array(SHOT_MAX_BYTES);

  constructor(scene: ShotScene & { targets: ShotTargets }, private readonly rules: ValidationConfig) {
    this.weapons = new WeaponState(rules);
    this.predictor = new ShotPredictor(scene, rules, scene.targets);
  }

  /** The client's slot in the view (the welcome's, or the snapshot pool's). */
  set slot(s: number) {
    this.weapons.slot = s;
  }

  /** Whether the client knows itself alive (a dead shooter's message is predicted as the server will judge it). */
  set alive(a: boolean) {
    this.weapons.head.alive = a;
  }

  /**
   * A fire of the weapon in hand along S -> E, seen at `renderTimeMs` (claiming `target`, -1 for
   * none). For a weapon with a spread pattern S -> E is the aim and the message carries the pellets
   * the pattern gives this pull (the prediction's verdict.pellets says where each went).
   */
  fire(clock: ClientClock, renderTimeMs: number, sx: number, sy: number, sz: number, ex: number, ey: number, ez: number, target = -1): Prediction {
    const m = this.message(ShotAction.FIRE, this.weapons.head.equipped, clock);
    m.claimedTarget = target;
    m.renderTimeMs = renderTimeMs;
    m.sx = sx; m.sy = sy; m.sz = sz; m.ex = ex; m.ey = ey; m.ez = ez;
    const weapon = weaponById(this.rules.weapons, m.weapon);
    if (weapon !== undefined && hasPattern(weapon)) {
      m.pelletCount = predictPellets(m.pellets, this.rules.spreadSeed ?? 0, this.weapons.head, weapon, m.timeMs, sx, sy, sz, ex, ey, ez);
    }
    return this.send(clock);
  }

  /** A switch to `weapon` (a carried one). */
  switchTo(clock: ClientClock, weapon: number): Prediction {
    this.message(ShotAction.SWITCH, weapon, clock);
    return this.send(clock);
  }

  /** A reload of the weapon in hand. */
  reload(clock: ClientClock): Prediction {
    this.message(ShotAction.RELOAD, this.weapons.head.equipped, clock);
    return this.send(clock);
  }

  /** The server's verdict for `seq` arrived (or null: the message was lost). */
  settle(seq: number, verdict: { kind: number; reason: number } | null): void {
    this.weapons.settle(seq, verdict);
  }

  /** A new life began on the server (seen in the state). */
  respawn(): void {
    this.weapons.respawn();
  }

  private message(action: number, weapon: number, clock: ClientClock): ShotMessage {
    const m = this.msg;
    m.action = action;
    m.weapon = weapon;
    m.seq = this.seq + 1;
    m.claimedTarget = action === ShotAction.FIRE ? -1 : 0;
    m.timeMs = clock.serverNowMs;
    m.renderTimeMs = 0;
    m.sx = 0; m.sy = 0; m.sz = 0; m.ex = 0; m.ey = 0; m.ez = 0;
    m.pelletCount = 0;
    return m;
  }

  private send(clock: ClientClock): Prediction {
    const m = this.msg;
    this.seq = m.seq;
    const bytes = encodeShot(this.frame, m).subarray(0, shotBytes(m.pelletCount));
    const st = this.weapons.head;
    const floor = later(this.actionFloorMs, clock.streamFloorMs);
    const p = this.predictor.predict(bytes, st, clock.serverNowMs, clock.rttMs, clock.interpDelayMs, clock.newestTickMs, floor);
    this.weapons.sent(m.seq, m.action, m.weapon, m.timeMs, p.fired, p.after);
    if (p.fired) this.actionFloorMs = later(this.actionFloorMs, m.timeMs);
    return { bytes: bytes.slice(), seq: m.seq, message: m, verdict: p };
  }
}
