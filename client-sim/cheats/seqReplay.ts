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
      if (judged === null) return false;
      if (replay) {
        bot.fire(null, Intent.INVALID, 'SEQ_REPLAYED', judged.bytes.slice());
      } else {
        const a = acquire(bot, now, true);
        if (a === null) return false;
        const shot = bot.makeShot(a.eye, a.point[0]!, a.point[1]!, a.point[2]!, bot.shotLength(), a.t);
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
