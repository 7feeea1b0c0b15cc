/**
 * What the parts of a FogFilter's fog of war (its flights, marks and ends) read of the filter: the
 * slots, the FogOfWar for point tests, who is sent everyone, who is a viewer now, who is sent whom.
 */
import type { FogOfWar } from '../../shared/fog/index';

export interface FogJudge {
  readonly capacity: number;
  readonly fog: FogOfWar;
  /** Per viewer slot: 1 when sent everyone. */
  readonly seeAll: Uint8Array;
  /** Whether `slot` is a viewer in the fog now (its player is in the match and was fed). */
  hasViewer(slot: number): boolean;
  /** Whether the player in `enemySlot` is being sent to the one in `viewerSlot` (self: always). */
  isSent(viewerSlot: number, enemySlot: number): boolean;
}
