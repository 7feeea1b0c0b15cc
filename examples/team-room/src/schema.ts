/**
 * The team room's synced state: its own names and its own layout, not hitreg's. Position in
 * metres, facing as a horizontal direction (no angles anywhere), a crouch flag, health and team.
 */
import { schema, t, type SchemaType } from '@colyseus/schema';

export const Soldier = schema({
  name: t.string(),
  team: t.uint8(),
  x: t.float64(),
  y: t.float64(),
  z: t.float64(),
  /** Facing: a horizontal direction (the body turns with it). */
  faceX: t.float64(),
  faceZ: t.float64(),
  crouched: t.boolean(),
  health: t.float64(),
  alive: t.boolean(),
  /** Bumps at each respawn: clients never interpolate across one. */
  life: t.uint16(),
}, 'Soldier');
export type Soldier = SchemaType<typeof Soldier>;

export const TeamState = schema({
  /** Server ms of the newest tick (what clients interpolate poses by). */
  time: t.float64(),
  tick: t.uint32(),
  soldiers: t.map(Soldier),
}, 'TeamState');
export type TeamState = SchemaType<typeof TeamState>;
