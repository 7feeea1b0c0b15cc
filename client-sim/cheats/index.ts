/**
 * The cheat profiles by name, in the order cheaters are assigned them (cheater k gets k mod count),
 * each a factory taking its strength (0..1). Rule-breaking profiles send messages the server must
 * refuse (each with its expected reason); inhuman ones stay inside the rules and are left to the
 * audit.
 */
import type { Profile } from '../bot';
import { originSpoofProfile } from './originSpoof';
import { rangeExtensionProfile } from './rangeExtension';
import { backtrackProfile } from './backtrack';
import { renderSkewProfile } from './renderSkew';
import { fireRateProfile } from './fireRate';
import { drawSkipProfile } from './drawSkip';
import { seqReplayProfile } from './seqReplay';
import { speedHackProfile } from './speedHack';
import { wallShotProfile } from './wallShot';
import { wallGrazeProfile } from './wallGraze';
import { cornerPeekProfile } from './cornerPeek';
import { deadShooterProfile } from './deadShooter';
import { aimSnapProfile } from './aimSnap';
import { triggerbotProfile } from './triggerbot';
import { aimLockProfile } from './aimLock';
import { backtrackMaxProfile } from './backtrackMax';
import { fakeLagProfile } from './fakeLag';
import { prefireProfile } from './prefire';
import { backdateProfile } from './backdate';
import { noSpreadProfile } from './noSpread';
import { pelletStackProfile } from './pelletStack';
import { thickWallbangProfile } from './thickWallbang';
import { seedForgeProfile } from './seedForge';
import { spreadCancelProfile } from './spreadCancel';
import { meleeReachProfile } from './meleeReach';
import { projectileSpeedProfile } from './projectileSpeed';
import { projectileOriginProfile } from './projectileOrigin';
import { splashThroughWallProfile } from './splashThroughWall';
import { Behaviour, INHUMAN_PROFILES } from '../human/profiles';

export type ProfileFactory = (strength?: number) => Profile;

/** Profiles whose cheat messages break a rule: the server must refuse every one. */
export const RULE_PROFILES: Readonly<Record<string, ProfileFactory>> = {
  originSpoof: originSpoofProfile,
  rangeExtension: rangeExtensionProfile,
  backtrack: backtrackProfile,
  renderSkew: renderSkewProfile,
  fireRate: fireRateProfile,
  drawSkip: drawSkipProfile,
  seqReplay: seqReplayProfile,
  speedHack: speedHackProfile,
  wallShot: wallShotProfile,
  wallGraze: wallGrazeProfile,
  cornerPeek: cornerPeekProfile,
  deadShooter: deadShooterProfile,
  backdate: backdateProfile,
  noSpread: noSpreadProfile,
  pelletStack: pelletStackProfile,
  thickWallbang: thickWallbangProfile,
  seedForge: seedForgeProfile,
  meleeReach: meleeReachProfile,
  projectileSpeed: projectileSpeedProfile,
  projectileOrigin: projectileOriginProfile,
  splashThroughWall: splashThroughWallProfile,
};

/**
 * The client's players of the human model's inhuman profiles (human/profiles.ts INHUMAN_PROFILES,
 * the list the synthetic players play), each under its command-line name. They stay inside the
 * rules and play as no person can: the audit must flag them. The flick profile has no client
 * player (a bot's view turns step by step with every input; aimLock covers the fast turn).
 */
const INHUMAN_PLAYERS: Readonly<Partial<Record<Behaviour, readonly [string, ProfileFactory]>>> = {
  [Behaviour.SILENT_AIM]: ['aimSnap', aimSnapProfile],
  [Behaviour.TRIGGERBOT]: ['triggerbot', triggerbotProfile],
  [Behaviour.AIM_LOCK]: ['aimLock', aimLockProfile],
  [Behaviour.EDGE_BACKTRACK]: ['backtrackMax', backtrackMaxProfile],
  [Behaviour.FAKE_LAG]: ['fakeLag', fakeLagProfile],
  [Behaviour.PREFIRE]: ['prefire', prefireProfile],
};

/**
 * Inhuman cheats the human model has no profile for: spreadCancel plays the shotgun's predictable
 * pattern, and the synthetic players fire the rifle only.
 */
const CLIENT_INHUMAN: Readonly<Record<string, ProfileFactory>> = {
  spreadCancel: spreadCancelProfile,
};

/** The inhuman cheats by command-line name, in the model's report order, then the client-only ones. */
export const INHUMAN_CHEATS: Readonly<Record<string, ProfileFactory>> = {
  ...Object.fromEntries(
    INHUMAN_PROFILES.flatMap((b) => {
      const p = INHUMAN_PLAYERS[b];
      return p === undefined ? [] : [p];
    }),
  ),
  ...CLIENT_INHUMAN,
};

export const CHEAT_PROFILES: Readonly<Record<string, ProfileFactory>> = { ...RULE_PROFILES, ...INHUMAN_CHEATS };
export const CHEAT_PROFILE_NAMES: readonly string[] = Object.keys(CHEAT_PROFILES);

/**
 * Parses a profile spec: "name" or "name:strength" (strength in [0, 1]); `fallback` is the strength
 * when none is given (undefined: the profile's own default).
 */
export function parseProfile(spec: string, fallback?: number): { name: string; strength: number | undefined } {
  const [name, st, ...rest] = spec.split(':');
  if (name === undefined || CHEAT_PROFILES[name] === undefined || rest.length > 0) {
    throw new Error(`unknown cheat profile "${spec}"; choose from ${CHEAT_PROFILE_NAMES.join(', ')} (optionally name:strength, strength in [0, 1])`);
  }
  const strength = st === undefined ? fallback : Number(st);
  if (strength !== undefined && !(strength >= 0 && strength <= 1)) throw new Error(`profile "${spec}": strength must be a number in [0, 1]`);
  return { name, strength };
}

export function createProfile(spec: string, fallback?: number): Profile {
  const { name, strength } = parseProfile(spec, fallback);
  return CHEAT_PROFILES[name]!(strength);
}
