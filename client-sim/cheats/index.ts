/** The cheat profiles by name, in the order cheaters are assigned them (cheater k gets k mod count). */
import type { Profile } from '../bot';
import { wallShotProfile } from './wallShot';
import { rangeExtensionProfile } from './rangeExtension';
import { backtrackProfile } from './backtrack';
import { fireRateProfile } from './fireRate';
import { originSpoofProfile } from './originSpoof';
import { deadShooterProfile } from './deadShooter';
import { seqReplayProfile } from './seqReplay';
import { aimSnapProfile } from './aimSnap';

export const CHEAT_PROFILES: Readonly<Record<string, () => Profile>> = {
  wallShot: wallShotProfile,
  rangeExtension: rangeExtensionProfile,
  backtrack: backtrackProfile,
  fireRate: fireRateProfile,
  originSpoof: originSpoofProfile,
  deadShooter: deadShooterProfile,
  seqReplay: seqReplayProfile,
  aimSnap: aimSnapProfile,
};

export const CHEAT_PROFILE_NAMES: readonly string[] = Object.keys(CHEAT_PROFILES);

export { wallShotProfile, rangeExtensionProfile, backtrackProfile, fireRateProfile, originSpoofProfile, deadShooterProfile, seqReplayProfile, aimSnapProfile };
