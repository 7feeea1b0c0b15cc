/**
 * The projectile golden batch: seeded rockets and grenades flown through a level of boxes among
 * four walking players on the mannequin rig (steps, bounces, rolling, catch-up against rewound
 * players) and the blasts that end them, every answer folded into one FNV-1a 64 hash. Like
 * ./batch it takes the shared API as an argument, so the same code runs against the sources in
 * Node and the built browser entry in Chromium and gjs (test/projectileDeterminism.test.ts).
 *
 * Only + - * / and Math.sqrt here too.
 */
import type * as Api from '../../shared/index';

/** The committed hash of the batch: every engine must give it. */
export const PROJECTILE_GOLDEN_HASH = 'b05bed6562c3586d';

export interface ProjectileGoldenResult {
  hash: string;
  numbers: number;
  flights: number;
  playerImpacts: number;
  levelImpacts: number;
  fuses: number;
  bounces: number;
  victims: number;
  shielded: number;
}

export function projectileBatch(api: typeof Api, rigBytes: Uint8Array): ProjectileGoldenResult {
  const rng = api.mulberry32(0x9012);
  const u = (lo: number, hi: number): number => lo + (hi - lo) * rng();
  const out: number[] = [];

  // Level: a floor, four walls and 30 boxes, every face wound outward.
  const pos: number[] = [];
  const idx: number[] = [];
  const box = (x0: number, y0: number, z0: number, x1: number, y1: number, z1: number): void => {
    const c = [[x0, y0, z0], [x1, y0, z0], [x1, y0, z1], [x0, y0, z1], [x0, y1, z0], [x1, y1, z0], [x1, y1, z1], [x0, y1, z1]];
    const f = [[0, 1, 2], [0, 2, 3], [4, 6, 5], [4, 7, 6], [0, 5, 1], [0, 4, 5], [1, 6, 2], [1, 5, 6], [2, 7, 3], [2, 6, 7], [3, 4, 0], [3, 7, 4]];
    for (const t of f) {
      const b = pos.length / 3;
      for (const k of t) pos.push(c[k]![0]!, c[k]![1]!, c[k]![2]!);
      idx.push(b, b + 2, b + 1);
    }
  };
  box(-20, -1, -20, 20, 0, 20);
  box(-21, 0, -20, -20, 6, 20); box(20, 0, -20, 21, 6, 20); box(-20, 0, -21, 20, 6, -20); box(-20, 0, 20, 20, 6, 21);
  for (let k = 0; k < 30; k++) {
    const x = u(-18, 16), z = u(-18, 16), y = rng() < 0.6 ? 0 : u(0.5, 3);
    box(x, y, z, x + u(0.3, 2), y + u(0.3, 2.5), z + u(0.3, 2));
  }
  const world = api.World.fromTriangles(new Float64Array(pos), new Uint32Array(idx));

  // Four players walking for 96 ticks at 64 Hz.
  const rig = api.rigFromBuffer(rigBytes);
  const policy = api.createRewindPolicy(250, api.OutOfWindow.CLAMP);
  const dt = 1000 / 64;
  const histories: Api.PlayerHistory[] = [];
  const pose = api.createPlayerPose();
  const start: number[] = [];
  for (let p = 0; p < 4; p++) {
    histories.push(new api.PlayerHistory(128));
    start.push(u(-8, 8), u(-8, 8));
  }
  for (let k = 0; k < 96; k++) {
    for (let p = 0; p < 4; p++) {
      pose.x = start[p * 2]! + (k * 2) / 64; pose.y = 0; pose.z = start[p * 2 + 1]! - (k * 1.5) / 64;
      pose.qx = 0; pose.qy = 0; pose.qz = 0; pose.qw = 1;
      pose.clip = p % rig.clips.length; pose.time = Math.fround((k * dt) / 1000);
      pose.alive = true; pose.epoch = 1;
      histories[p]!.record(k, k * dt, pose);
    }
  }
  const vol = new api.VolumeRewinder(new api.Rewinder(rig, { policy }));
  const newest = 95 * dt;
  const rocket = api.WEAPONS[api.WeaponId.ROCKET]!.projectile!;
  const grenade = api.WEAPONS[api.WeaponId.GRENADE]!.projectile!;
  const s = api.createProjectileState(), ev = api.createFlightEvent(), splash = api.createSplashHits(8);
  const r: ProjectileGoldenResult = { hash: '', numbers: 0, flights: 0, playerImpacts: 0, levelImpacts: 0, fuses: 0, bounces: 0, victims: 0, shielded: 0 };
  for (let q = 0; q < 240; q++) {
    const spec = q % 2 === 0 ? rocket : grenade;
    const shooter = q % 4, target = (q + 1 + (q % 3)) % 4;
    histories[target]!.sampleAt(pose, newest, policy);
    const sx = pose.x + u(-10, 10), sy = u(1, 3), sz = pose.z + u(-10, 10);
    const lift = spec === grenade ? u(0, 4) : 0;
    if (!api.launchProjectile(s, spec, shooter, sx, sy, sz, pose.x - sx + u(-0.3, 0.3), 1 - sy + lift, pose.z - sz + u(-0.3, 0.3))) continue;
    r.flights++;
    // The first span caught up against rewound players, then ticks against the present ones.
    const from = api.catchUpStartMs(newest - u(0, 200), newest);
    let kind = api.catchUpProjectile(ev, s, spec, from, newest, dt, world, vol, histories);
    out.push(kind, ev.player, ev.bounces, s.x, s.y, s.z, s.vx, s.vy, s.vz, s.ageMs);
    r.bounces += ev.bounces;
    for (let i = 0; i < 400 && kind === api.FlightEventKind.NONE; i++) {
      kind = api.stepProjectile(ev, s, spec, dt, world, vol, histories, newest);
      r.bounces += ev.bounces;
      if (ev.player >= 0 || ev.bounces > 0) out.push(i, ev.player, ev.zone, ev.bounces, s.x, s.y, s.z);
    }
    out.push(kind, ev.x, ev.y, ev.z, ev.ageMs, ev.nx, ev.ny, ev.nz, s.bounces, s.mode);
    if (kind === api.FlightEventKind.PLAYER) r.playerImpacts++;
    if (kind === api.FlightEventKind.LEVEL) r.levelImpacts++;
    if (kind === api.FlightEventKind.FUSE) r.fuses++;
    if (kind === api.FlightEventKind.PLAYER || kind === api.FlightEventKind.LEVEL || kind === api.FlightEventKind.FUSE) {
      const n = api.explode(splash, world, vol, histories, newest - u(0, 100), ev.x, ev.y, ev.z, spec.splash!, -1);
      r.victims += n;
      r.shielded += splash.blocked;
      out.push(n, splash.blocked);
      for (let i = 0; i < n; i++) out.push(splash.player[i]!, splash.hitbox[i]!, splash.distance[i]!, splash.damage[i]!, splash.x[i]!, splash.y[i]!, splash.z[i]!, splash.via[i]!);
    }
  }
  const f = new Float64Array(out);
  r.hash = api.fnv1a64(new Uint8Array(f.buffer));
  r.numbers = f.length;
  return r;
}
