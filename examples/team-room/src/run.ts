/**
 * The team room end to end: a Colyseus server with TeamRoom on an ephemeral port, four soldiers over
 * real WebSockets (alice and carol on team 0, bob and dave on team 1), a scripted fight, then the
 * match log audited with hitreg/audit. Prints one JSON line:
 *   { shots, verdicts: { reason: n }, predictedAgree, auditMismatches, ghostHits, projectiles: { launched, exploded }, auditFlights, auditDeaths }
 * and exits 1 when something that must hold does not (a ghost hit, a replay mismatch, a shot at a
 * teammate or at a departed player that did damage).
 */
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineRoom, defineServer } from '@colyseus/core';
import { WebSocketTransport } from '@colyseus/ws-transport';
import { HitZone, rigFromBuffer } from 'hitreg';
import { verifyMatchLog } from 'hitreg/audit';
import { TeamRoom } from './room.js';
import { Soldier, type Judged } from './client.js';
import { buildLevel } from './level.js';

const world = buildLevel();
const rig = rigFromBuffer(readFileSync(fileURLToPath(import.meta.resolve('hitreg/assets/mannequin.hrrg'))));
const logDir = mkdtempSync(join(tmpdir(), 'team-room-'));
const logs: string[] = [];
const counters = { ghostHits: 0 };
TeamRoom.setup = { world, rig, logDir, onLog: (p) => logs.push(p), counters };

const http = createServer();
const server = defineServer({ rooms: { team: defineRoom(TeamRoom) }, transport: new WebSocketTransport({ server: http }), greet: false, gracefullyShutdown: false });
await server.listen(0, '127.0.0.1');
const address = http.address();
const url = `ws://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;

const failures: string[] = [];
const expect = (ok: boolean, what: string): void => {
  if (!ok) failures.push(what);
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

try {
  const alice = await Soldier.join(url, world, rig, { team: 0, name: 'alice' });
  const bob = await Soldier.join(url, world, rig, { team: 1, name: 'bob' });
  const carol = await Soldier.join(url, world, rig, { team: 0, name: 'carol' });
  const dave = await Soldier.join(url, world, rig, { team: 1, name: 'dave' });
  const everyone = [alice, bob, carol, dave];
  const ids = everyone.map((s) => s.room.sessionId);
  for (const s of everyone) await s.ready(ids.filter((id) => id !== s.room.sessionId));
  const [aliceId, bobId, carolId, daveId] = ids as [string, string, string, string];
  const chest = (shooter: Soldier, id: string): [number, number, number] => shooter.zonePoint(shooter.drawn(id)!, HitZone.UPPER_TORSO);

  // Hits: alice at bob's chest, three times (bob lives: 3 x 30 x the torso multiplier < 100).
  for (let i = 0; i < 3; i++) {
    const j = await alice.fireAt(chest(alice, bobId), bobId);
    expect(j.verdict.reasonName === 'OK_HIT' && j.verdict.targetId === bobId, `alice's shot ${i + 1} at bob: ${j.verdict.reasonName}`);
    await sleep(150);
  }
  // Misses: into the sky, and into the crate wall (a bullet hole).
  const [ax, ay, az] = alice.eye();
  expect((await alice.fireAt([ax, ay + 30, az + 10], null)).verdict.reasonName === 'OK_MISS', 'a shot into the sky misses');
  await sleep(150);
  const wall = await alice.fireAt([6, 1.2, 6], null);
  expect(wall.verdict.reasonName === 'OK_MISS' && wall.verdict.t > 0, `a shot into the crates misses and stops there: ${wall.verdict.reasonName}`);
  await sleep(150);
  // Friendly fire 'noDamage': carol is hit, takes nothing.
  const friendly = await alice.fireAt(chest(alice, carolId), carolId);
  expect(friendly.verdict.reasonName === 'OK_FRIENDLY' && friendly.verdict.damage === 0, `a shot at carol (a teammate): ${friendly.verdict.reasonName}`);
  // A crouched shooter: bob's eye is lower; he shoots from there and hits alice.
  bob.move(0, 0, 0, -1, true);
  await bob.until(() => bob.eye()[1] < 1.2, 'bob crouched');
  await sleep(250);
  const crouched = await bob.fireAt(chest(bob, aliceId), aliceId);
  expect(crouched.verdict.reasonName === 'OK_HIT', `bob, crouched, at alice: ${crouched.verdict.reasonName}`);
  // A departed player: dave leaves; alice shoots where she last drew him, well after.
  const daveSpot = chest(alice, daveId);
  await dave.leave();
  await alice.until(() => alice.drawn(daveId, Number.POSITIVE_INFINITY) === null, 'dave gone from alice\'s view');
  await sleep(400);
  const ghost = await alice.fireAt(daveSpot, daveId);
  expect(ghost.verdict.reasonName === 'OK_MISS' && ghost.verdict.damage === 0, `a shot at where dave stood after he left: ${ghost.verdict.reasonName}`);
  // A weapon switch and a shot with the sidearm, all as objects.
  expect((await alice.switchTo(1)).verdict.reasonName === 'OK_SWITCH', 'alice switches to the sidearm');
  const sidearm = await alice.fireAt(chest(alice, bobId), bobId);
  expect(sidearm.verdict.reasonName === 'OK_HIT' && sidearm.verdict.damage > 0, `the sidearm at bob: ${sidearm.verdict.reasonName}`);
  // A rocket at bob and a grenade at his feet: each launched (OK_LAUNCH), flown by the match, and
  // its end (impact or fuse) announced with the damage it did.
  const launched: number[] = [];
  for (const [weapon, aimAt] of [[2, (p: [number, number, number]) => p], [3, (p: [number, number, number]) => [p[0], 0.1, p[2]] as [number, number, number]]] as const) {
    await alice.until(() => alice.drawn(bobId) !== null, 'bob in view');
    expect((await alice.switchTo(weapon)).verdict.reasonName === 'OK_SWITCH', `alice switches to weapon ${weapon}`);
    await alice.until(() => alice.drawn(bobId) !== null, 'bob in view');
    const shot = await alice.fireAt(aimAt(chest(alice, bobId)), bobId);
    expect(shot.verdict.reasonName === 'OK_LAUNCH' && shot.verdict.projectile >= 0, `weapon ${weapon} launched: ${shot.verdict.reasonName}`);
    launched.push(shot.verdict.projectile);
    await alice.until(() => alice.projectiles.some((e) => e.id === shot.verdict.projectile), `projectile ${shot.verdict.projectile} ended`);
  }
  const ended = alice.projectiles.filter((e) => launched.includes(e.id));
  expect(ended.every((e) => e.exploded), 'the rocket and the grenade exploded');
  expect(ended.some((e) => e.hits.some((h) => h.targetId === bobId && h.damage > 0)), 'a blast or a direct hit damaged bob');
  // A message that cannot be a weapon message: refused with the field at fault, nothing changes.
  const before = bob.judged.length;
  bob.sendMalformed();
  await bob.until(() => bob.replies.some((r) => r.reasonName === 'MALFORMED'), 'the malformed message refused');
  const malformed = bob.replies.find((r) => r.reasonName === 'MALFORMED')!;
  expect(malformed.problem === 'seq must be an integer 0..4294967295' && bob.judged.length === before, `a malformed message is refused with the field at fault: ${malformed.problem}`);

  const ghostHits = counters.ghostHits;
  const judged: Judged[] = everyone.flatMap((s) => s.judged);
  const fires = judged.filter((j) => j.predicted.reason !== 'OK_SWITCH');
  const projectiles = { launched: launched.length, exploded: ended.filter((e) => e.exploded).length };
  const agree = fires.filter((j) => j.predicted.kind === j.verdict.kind && j.predicted.target === j.verdict.targetId && j.predicted.zone === j.verdict.zone).length;
  for (const s of everyone) await s.leave();
  await sleep(200);
  await server.gracefullyShutdown(false);
  http.close();

  // The audit: every verdict replayed from the log alone, bit for bit, against this level and rig.
  const audit = verifyMatchLog(new Uint8Array(readFileSync(logs[0]!)), world, rig);
  expect(audit.problems.length === 0, `the log is whole: ${audit.problems.join('; ')}`);
  const replies = everyone.flatMap((s) => s.replies);
  const verdicts: Record<string, number> = {};
  for (const r of replies) verdicts[r.reasonName] = (verdicts[r.reasonName] ?? 0) + 1;
  const summary = {
    shots: replies.length, verdicts, predictedAgree: fires.length > 0 ? agree / fires.length : 0,
    auditMismatches: audit.mismatches.length + audit.projectiles.mismatches.length, ghostHits, projectiles,
    auditFlights: audit.projectiles.flights, auditDeaths: audit.projectiles.deaths.explained,
  };
  expect(ghostHits === 0, 'no ghost hits');
  expect(summary.auditMismatches === 0, 'the audit replays every verdict');
  expect(audit.shots === replies.length, `the log holds every message judged (${audit.shots} of ${replies.length})`);
  console.log(JSON.stringify(summary));
  if (failures.length > 0) {
    console.error(`team-room: ${failures.join('; ')}`);
    process.exitCode = 1;
  }
} catch (e) {
  console.error('team-room:', e);
  process.exitCode = 1;
  await server.gracefullyShutdown(false).catch(() => undefined);
  http.close();
} finally {
  rmSync(logDir, { recursive: true, force: true });
}
