/** A test player's rocket: switch to the launcher and fire it over a real room (fog-of-war tests). */
import { expect } from 'vitest';
import { ShotAction } from '../../shared/protocol/shot';
import { WeaponId } from '../../shared/weapons';
import type { TestPlayer, TestServer } from './server';

/** `p` takes the rocket launcher (seq 1) and fires it (seq 2) from its eye toward (tx, ty, tz), seen `interpMs` back; returns the rocket's id. */
export async function fireRocket(s: TestServer, p: TestPlayer, interpMs: number, tx: number, ty: number, tz: number): Promise<number> {
  const sw = await p.act(ShotAction.SWITCH, WeaponId.ROCKET, 1);
  expect(sw.reasonName).toBe('OK_SWITCH');
  await p.untilDrawn(WeaponId.ROCKET);
  const me = p.snapshots.at(-1)!.poses.get(p.slot)!;
  const sx = me.x, sy = me.y + s.server.rig.eyeHeight, sz = me.z;
  const v = await p.shoot({ seq: 2, weapon: WeaponId.ROCKET, claimedTarget: -1, renderTimeMs: await p.renderNow(interpMs), sx, sy, sz, ex: tx, ey: ty, ez: tz });
  expect(v.reasonName).toBe('OK_LAUNCH');
  return v.projectile!;
}
