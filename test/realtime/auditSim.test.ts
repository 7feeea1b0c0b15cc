// The audit on a match recorded by the real room: the client simulator plays honest bots and
// cheaters over real WebSockets against an in-process server whose rooms write their match log
// (MatchLogRecorder, the default recorder); the audit then replays every shot bit for bit and
// flags the cheaters (each by the statistics its cheat distorts) and none of the honest bots. An
// honest bot's shots rejected as SHOOTER_DEAD because it died while they were on the wire are races,
// not rejections: how many there are depends on latency and machine load.
import { spawn } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSimulation } from '../../client-sim/simulate';
import { Intent, type ShotLog } from '../../client-sim/bot';
import { auditMatchLog, closeAuditWorkers } from '../../server/behaviour/audit';
import { DEFAULT_THRESHOLDS } from '../../server/behaviour/flags';
import { DEFAULT_CALIBRATION } from '../../server/behaviour/calibration';
import { readFrames } from '../../shared/matchlog/frame';
import { RecordType } from '../../shared/matchlog/records';
import { createShotInput, readShotRecord } from '../../shared/matchlog/shotRecord';
import { createVerdict } from '../../shared/validate/verdict';
import { waitFor } from '../helpers/wait';

const dir = mkdtempSync(join(tmpdir(), 'audit-sim-'));
afterAll(async () => {
  await closeAuditWorkers();
  rmSync(dir, { recursive: true, force: true });
});

describe('audit of a simulated match (real room, real sockets)', () => {
  it('replays with zero mismatches; cheaters flagged, honest bots not', async () => {
    const logs: ShotLog[] = [];
    const report = await runSimulation({
      bots: 6, cheaters: 5, seconds: 16, seed: 7, rttMs: 80, jitterMs: 10, loss: 0,
      profiles: ['aimSnap', 'wallShot', 'backtrack', 'rangeExtension', 'backdate'],
      // Tough players: deaths are rare, so every bot keeps playing (and cheating) the whole match.
      server: { matchLogDir: dir, maxHealth: 1000 },
      onShots: (l) => logs.push(...l),
    });
    const files = readdirSync(dir).filter((f) => f.endsWith('.hrml'));
    expect(files).toHaveLength(1);
    expect(report.matchLog).toBe(join(dir, files[0]!));
    const path = join(dir, files[0]!);

    // Which slot each bot played, matched by the exact bytes of its shots in the log, and how many
    // of each slot's logged shots were cheats (the sim's own intent for those bytes).
    const bytes = new Uint8Array(readFileSync(path));
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const byPayload = new Map(logs.map((l) => [Buffer.from(l.bytes).toString('hex'), l]));
    const profileOfSlot = new Map<number, string>();
    const cheatShots = new Map<number, number>();
    const input = createShotInput();
    const verdict = createVerdict();
    for (const f of readFrames(bytes).frames) {
      if (f.type !== RecordType.SHOT) continue;
      expect(readShotRecord(input, verdict, view, f.payloadOffset, f.payloadLength)).toBe(true);
      const l = input.payload && byPayload.get(Buffer.from(input.payload).toString('hex'));
      if (!l) continue;
      profileOfSlot.set(input.shooter, l.profile);
      if (l.intent === Intent.INVALID || l.intent === Intent.INHUMAN) cheatShots.set(input.shooter, (cheatShots.get(input.shooter) ?? 0) + 1);
    }
    const slotOf = (profile: string) => [...profileOfSlot].find(([, p]) => p === profile)?.[0];
    const honest = [...profileOfSlot].filter(([, p]) => p === 'honest').map(([s]) => s);
    expect(honest.length).toBeGreaterThanOrEqual(5);
    // Aim snaps, backtracking and range extension cheat at any visible target: they always get to
    // cheat in 16 s. A wall shot needs a player standing behind a wall within reach; how often that
    // happens depends on where the bots walk, which socket timing (and so machine load) changes: on
    // a loaded machine it can happen fewer than three times, or never. So the expected flags are
    // those of the players who cheated enough in this log for the rules to apply (minReasonShots).
    for (const profile of ['aimSnap', 'backtrack', 'rangeExtension', 'backdate']) expect(cheatShots.get(slotOf(profile) ?? -1) ?? 0, profile).toBeGreaterThanOrEqual(10);
    const cheaters = [...cheatShots].filter(([, n]) => n >= DEFAULT_THRESHOLDS.minReasonShots).map(([s]) => s).sort((a, b) => a - b);
    const configured = [...profileOfSlot].filter(([, p]) => p !== 'honest').map(([s]) => s);

    for (const workers of [1, 2]) {
      // The rule flags only: the behaviour score's thresholds describe human players (calibrated on
      // the synthetic humans of server/behaviour/synth/synthPlayers.ts), and the simulator's bots are not
      // human-like (a constant 170 degrees/s turn, a trigger on a 3-degree tolerance while still
      // turning), so they are out of its population.
      const r = await auditMatchLog(path, { workers, calibration: null });
      expect(r.problems).toEqual([]);
      expect(r.mismatches).toEqual([]);
      expect(r.shots).toBe(report.server!.shots);
      const flagged = r.flagged.map((f) => f.player).sort((a, b) => a - b);
      const why = JSON.stringify(r.players.map((p) => ({ p: p.player, profile: profileOfSlot.get(p.player), cheatShots: cheatShots.get(p.player) ?? 0, shots: p.shots, hits: p.hits, reasons: p.byReason, raced: p.raced, over: p.overruled, flags: p.flags.map((f) => f.detail) })));
      // Every player who cheated is flagged; nobody else but a configured cheater with a cheat or two is.
      expect(flagged.filter((s) => !cheaters.includes(s)).every((s) => configured.includes(s)), why).toBe(true);
      expect(cheaters.filter((s) => !flagged.includes(s)), why).toEqual([]);
      for (const s of honest) expect(flagged, why).not.toContain(s);
      const rulesOf = (profile: string) => r.players.find((p) => profileOfSlot.get(p.player) === profile)!.flags.map((f) => f.rule);
      // Instant noiseless head shots: every hit in the head, whatever the timing. (The aim-snap rule,
      // a turn of over 1500 deg/s from tick to tick, also fires unloaded, on 75-90% of its hits, but
      // reads the client's frames and the server's ticks as they interleave: on a loaded machine it
      // fell under its 30% limit in 1 of 9 runs.)
      expect(rulesOf('aimSnap')).toContain('headshots');
      expect(rulesOf('backtrack')).toContain('reason');
      expect(rulesOf('rangeExtension')).toContain('reason');
      // Every shot claimed 400 ms before it was fired, after inputs the room had already stepped:
      // refused (BACKDATED), every one, a reason no honest client gives in numbers.
      expect(rulesOf('backdate')).toContain('reason');
      if (cheaters.includes(slotOf('wallShot') ?? -1)) expect(rulesOf('wallShot')).toContain('reason');
    }
  });

  it('honest bots 180 ms from the server on a lossy link: no network measure of the behaviour score flags them', async () => {
    const farDir = join(dir, 'far');
    mkdirSync(farDir);
    // Long enough for most bots to fire the 5 shots a player measure needs (they hold fire while
    // their render buffer starves, which a far server makes more frequent).
    // The measures read input timing; the bots, their links and the server share this process, so
    // its own stalls bunch the inputs too (a loaded run read shortHolds at 2.8 against 2.7). They are
    // compared when the event loop kept its 99th percentile within 20 ms, as humanMeasures does.
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    await runSimulation({ bots: 6, cheaters: 0, seconds: 24, seed: 11, rttMs: 180, jitterMs: 20, loss: 0.01, server: { matchLogDir: farDir, maxHealth: 1000 } });
    loop.disable();
    const stallP99Ms = loop.percentile(99) / 1e6;
    const file = readdirSync(farDir).find((f) => f.endsWith('.hrml'))!;
    const r = await auditMatchLog(join(farDir, file));
    expect(r.mismatches).toEqual([]);
    const network = ['depthExcess', 'shortHolds', 'inputBunching'];
    const scored = r.players.filter((p) => p.behaviour !== undefined && p.shots >= 5);
    expect(scored.length).toBeGreaterThanOrEqual(3);
    if (stallP99Ms > 20) {
      console.log(`event loop p99 ${stallP99Ms.toFixed(0)} ms: the network measures are not compared this run`);
      return;
    }
    for (const p of scored) {
      for (const m of p.behaviour!.measures.filter((x) => network.includes(x.name))) {
        // When shots' arrival lag was read against other players' connections, it alone scored 6 to 14
        // on every bot of a match like this one.
        expect(m.score, `player ${p.player} ${m.name} ${m.stat}`).toBeLessThan(DEFAULT_CALIBRATION.scoreThreshold);
      }
    }
  });

  it('a server killed with SIGKILL mid-match leaves a log that replays up to its last complete record', async () => {
    const killDir = join(dir, 'killed');
    mkdirSync(killDir);
    const simModule = new URL('../../client-sim/simulate.ts', import.meta.url).pathname;
    // Fog off: the wallShot cheater aims at players behind walls, which a fog of war would not send it.
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `
      import { runSimulation } from ${JSON.stringify(simModule)};
      await runSimulation({ bots: 4, cheaters: 2, seconds: 60, seed: 3, rttMs: 60, jitterMs: 5, loss: 0,
        profiles: ['wallShot', 'rangeExtension'], server: { fog: 'off', matchLogDir: ${JSON.stringify(killDir)} } });
    `], { stdio: 'ignore' });
    // Wait until the log holds a few hundred kilobytes (seconds of play), then kill the server mid-write.
    // (and more than 10 shots: bots on a loaded machine fire less per second).
    let file = '';
    await waitFor(() => {
      const f = readdirSync(killDir).find((x) => x.endsWith('.hrml'));
      if (f && statSync(join(killDir, f)).size > 200_000) {
        const frames = readFrames(new Uint8Array(readFileSync(join(killDir, f)))).frames;
        if (frames.filter((x) => x.type === RecordType.SHOT).length > 10) file = join(killDir, f);
      }
      return file !== '' || child.exitCode !== null;
    }, 'a log of 200 kB with 11 shots', 60_000).catch(() => undefined);
    child.kill('SIGKILL');
    await new Promise((r) => child.on('exit', r));
    expect(file, 'the simulated match wrote its log').not.toBe('');
    const r = await auditMatchLog(file, { workers: 2 });
    expect(r.mismatches).toEqual([]);
    expect(r.frames.corrupt).toEqual([]);
    expect(r.problems.map((p) => p.kind)).toContain('no-end-record');
    // Only the end may be missing or torn: nothing else is wrong with the log.
    expect(r.problems.filter((p) => p.kind !== 'no-end-record' && p.kind !== 'truncated')).toEqual([]);
    expect(r.shots).toBeGreaterThan(10);
    expect(r.ticks).toBeGreaterThan(100);
  });
});
