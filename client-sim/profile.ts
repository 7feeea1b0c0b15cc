/**
 * What a cheat profile (./cheats) is to the bot it drives: its frame, and the hooks by which it may
 * hold pongs and inputs back. Generic in the bot so this contract does not import it (./bot: Profile).
 */

/** A cheat profile: its frame runs every frame while the match is on; true when it handled the trigger. */
export interface CheatProfile<B> {
  readonly name: string;
  /** 0..1: how far past a tolerance (rule-breaking) or how far from human (inhuman) it goes. */
  readonly strength: number;
  frame(bot: B, now: number): boolean;
  /** A ping arrived: return false to hold the pong (the profile sends it later). */
  ping?(bot: B, bytes: Uint8Array, now: number): boolean;
  /** Before an input is sent: return false to hold it back this frame. */
  input?(bot: B, now: number): boolean;
  /** Profile-specific counters for the report. */
  stats?(): Record<string, number>;
  /** Renders this much further back than an honest bot (declared at join), ms. */
  readonly extraInterpDelayMs?: number;
}
