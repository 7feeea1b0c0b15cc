/**
 * Forged and replayed sequence numbers: alternately resend the exact bytes of an earlier shot that
 * the server has already judged (a replay: its hit would count twice), or send a fresh shot under
 * an already used, lower number (a forgery). Expected: SEQ_REPLAYED. Only shots whose verdict came
 * back are reused, so a shot the link lost cannot make a "replay" the server never saw.
 */
import { encodeShot, SHOT_BYTES } from '../../shared/protocol/shot';
import { Intent, type Bot, type Profile } from '../bot';
import { acquire, Cadence } from './common';

export function seqReplayProfile(): Profile {
  const cadence = new Cadence(300);
  let replay = true;
  return {
    name: 'seqReplay',
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown() || !cadence.due(now)) return false;
      let judged = null;
      for (let i = bot.shots.length - 1; i >= 0 && judged === null; i--) {
        const s = bot.shots[i]!;
        if (s.verdict !== null && s.intent === Intent.VALID) judged = s;
      }
      if (judged === null) {
        // Nothing judged yet: fire a plain valid shot along the view (a miss is fine) to replay later.
        if (!bot.canFire(now)) return false;
        const eye = bot.eye(new Float64Array(3));
        bot.fire(bot.makeShot(eye, eye[0]! + bot.viewX * 10, eye[1]! + bot.viewY * 10, eye[2]! + bot.viewZ * 10, bot.shotLength(), bot.renderTime(now)), Intent.VALID);
        bot.bookShot(now);
        return true;
      }
      if (replay) {
        bot.fire(null, Intent.INVALID, 'SEQ_REPLAYED', judged.bytes.slice());
      } else {
        const a = acquire(bot, now, true);
        const eye = a?.eye ?? bot.eye(new Float64Array(3));
        const t = a?.t ?? bot.renderTime(now);
        const px = a !== null ? a.point[0]! : eye[0]! + bot.viewX * 10;
        const py = a !== null ? a.point[1]! : eye[1]! + bot.viewY * 10;
        const pz = a !== null ? a.point[2]! : eye[2]! + bot.viewZ * 10;
        const shot = bot.makeShot(eye, px, py, pz, bot.shotLength(), t);
        bot.seq--; // makeShot took a fresh number; give it back and forge an old one
        shot.seq = Math.max(0, judged.seq - bot.rng.int(0, 3));
        bot.fire(shot, Intent.INVALID, 'SEQ_REPLAYED', encodeShot(new Uint8Array(SHOT_BYTES), shot));
      }
      replay = !replay;
      cadence.done(now);
      return true;
    },
  };
}
