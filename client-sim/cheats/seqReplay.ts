/**
 * Sequence-number games: alternately resend the exact bytes of an earlier shot the server has
 * judged (a replay: its hit would count twice), or send a fresh shot under an already used number
 * (reuse). Expected: SEQ_REPLAYED. Only shots whose verdict came back are reused, so a shot the
 * link lost cannot make a "replay" the server never saw. Strength: reuse attempts per second
 * (2 + 6 strength).
 */
import { Intent, type Bot, type Profile, type ShotLog } from '../bot';
import { Acquired, Cadence, checkStrength, fireTime } from './common';

export function seqReplayProfile(strength = 0.5): Profile {
  const s = checkStrength('seqReplay', strength);
  const cadence = new Cadence(1000 / (2 + 6 * s));
  const a = new Acquired();
  let replay = true;
  return {
    name: 'seqReplay', strength: s,
    frame(bot: Bot, now: number): boolean {
      if (!bot.aliveKnown() || !cadence.due(now)) return false;
      let judged: ShotLog | null = null;
      const shots = bot.shots;
      for (let i = shots.length - 1; i >= 0 && judged === null; i--) {
        const l = shots[i]!;
        if (l.verdict !== null && l.intent === Intent.VALID && l.action === 0) judged = l;
      }
      if (judged === null) return false; // plays ordinarily until a shot of its own is judged
      if (replay) {
        bot.send(null, Intent.INVALID, 'SEQ_REPLAYED', judged.bytes);
      } else {
        const at = fireTime(bot, now);
        if (!(at === at)) return false;
        const eye = bot.eyeNow;
        const found = a.find(bot, now, true);
        const t = found ? a.t : bot.renderTime(now);
        const m = found
          ? bot.fireMessage(eye, a.point[0]!, a.point[1]!, a.point[2]!, bot.shotLength(), t, at, a.target)
          : bot.fireMessage(eye, eye[0]! + bot.aim.viewX * 10, eye[1]! + bot.aim.viewY * 10, eye[2]! + bot.aim.viewZ * 10, bot.shotLength(), t, at);
        m.seq = Math.max(1, judged.seq - bot.rng.int(0, 3));
        bot.send(m, Intent.INVALID, 'SEQ_REPLAYED');
      }
      replay = !replay;
      cadence.done(now);
      return true;
    },
  };
}
