/**
 * docs/measurements.md from the benchmarks' JSON lines: the machine, Node, OS and date at the top,
 * then one section per bench with a table of its rows. `npm run bench -- --markdown` (run.ts) writes
 * it; the file says so and is never edited by hand. A bench whose rows this file does not know is
 * still written, as a table of its fields.
 */
import { cpus, totalmem, type as osType, release } from 'node:os';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export type Row = Record<string, unknown> & { bench: string };

/** What the page says about the run besides the rows. */
export interface RunInfo {
  startedAt: Date;
  finishedAt: Date;
  loadBefore: number[];
  loadAfter: number[];
  /** A free-text note on the run (`--note`), e.g. what else the machine was doing. */
  note?: string;
}

const num = (v: unknown, digits = 0): string =>
  typeof v === 'number' && Number.isFinite(v) ? v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : String(v ?? '');

function table(head: string[], rows: string[][], right: boolean[] = head.map((_, i) => i > 0)): string {
  const lines = [`| ${head.join(' | ')} |`, `|${right.map((r) => (r ? '---:' : '---')).join('|')}|`];
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  return lines.join('\n');
}

function osName(): string {
  try {
    const m = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'));
    if (m) return `${m[1]} (${osType()} ${release()})`;
  } catch { /* not Linux */ }
  return `${osType()} ${release()}`;
}

function commit(): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    // Changes to the docs do not move a number.
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', '.', ':!docs', ':!*.md'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() !== '';
    return dirty ? `${sha} with uncommitted changes` : sha;
  } catch {
    return 'unknown';
  }
}

function world(rows: Row[]): string {
  const out: string[][] = [];
  const ours: string[][] = [];
  const multi: string[][] = [];
  for (const r of rows) {
    const impl = r.impl as Record<string, Record<string, number>>;
    const base = impl.hitreg?.nsPerQuery ?? NaN;
    for (const [name, v] of Object.entries(impl)) {
      out.push([String(r.scene), name, num(v.nsPerQuery), num(v.cpuNsPerQuery), `${num(v.nsPerQuery / base, 2)}x`, num(v.buildMs, 1), num(v.bytesPerTriangle, 1), num(v.gcs)]);
    }
    ours.push([String(r.scene), num(r.triangles), num(r.sahBuildMs, 1), num(r.loadMs, 1), num(r.nodes), num(r.depth), `${num(100 * Number(r.agreement), 3)}%`]);
    const m = r.multiHit as Record<string, number> | undefined;
    if (m) multi.push([String(r.scene), num(m.allHitsNsPerQuery), num(m.firstHitNsPerQuery), `${num(m.allHitsVsFirstHit, 2)}x`, num(m.allHitsCpuNsPerQuery), num(m.meanHits, 2), num(m.maxHits), num(m.overflowed), num(m.allHitsGcs)]);
  }
  const multiTable = multi.length === 0 ? [] : [
    '',
    'Every hit (`World.allHits`, 64 entries) against the first hit on the same segments, interleaved.',
    '',
    table(['scene', 'allHits ns/query', 'firstHit ns/query', 'ratio', 'allHits CPU ns/query', 'hits/segment', 'most', 'overflowed', 'GCs'], multi, [false, true, true, true, true, true, true, true, true]),
  ];
  return [
    `First hit of ${num(rows[0]?.queries)} seeded incoherent segments per level, every answer cross-checked against the peers (three-mesh-bvh, Rapier); median of interleaved rounds. Build: the whole \`World\` for hitreg, the BVH or collider for the peers.`,
    '',
    table(['scene', 'implementation', 'ns/query', 'CPU ns/query', 'vs hitreg', 'build ms', 'bytes/triangle', 'GCs in loop'], out, [false, false, true, true, true, true, true, true]),
    '',
    'hitreg alone: the SAH tree\'s build, and `World.fromBuffer` loading and checking the bytes as a client does.',
    '',
    table(['scene', 'triangles', 'SAH tree ms', 'load ms', 'nodes', 'depth', 'agreement'], ours, [false, true, true, true, true, true, true]),
    ...multiTable,
  ].join('\n');
}

function rewind(rows: Row[]): string {
  const multi: string[][] = [];
  for (const r of rows) {
    for (const m of (r.multiHit as Record<string, number>[] | undefined) ?? []) {
      multi.push([`${r.hz} Hz`, num(m.players), num(m.allHitsNsPerShot), num(m.firstHitNsPerShot), `${num(m.allHitsVsFirstHit, 2)}x`, num(m.allHitsCpuNsPerShot), num(m.firstHitCpuNsPerShot),
        num(m.playersHitPerShot, 2), `${num(m.posedPerShotAllHits, 2)} / ${num(m.posedPerShotFirstHit, 2)}`]);
    }
  }
  return [
    'Lag compensation: the per-player history sized for the 250 ms window, and `Rewinder.firstHit` against 64 players (broadphase included), median of rounds.',
    '',
    table(['tick rate', 'history bytes/player/s', 'ns/shot', 'CPU ns/shot', 'players posed/shot', 'hit rate', 'GCs'],
      rows.map((r) => [`${r.hz} Hz`, num(r.bytesPerPlayerPerSecond), num(r.nsPerShot64Players), num(r.cpuNsPerShot64Players), num(r.posedPerShot, 2), `${num(100 * Number(r.hitRate), 1)}%`, num(r.gcs)])),
    ...(multi.length === 0 ? [] : [
      '',
      'Every player on the shot (`Rewinder.allHits`) against the first (`firstHit`), same shots, interleaved.',
      '',
      table(['tick rate', 'players', 'allHits ns/shot', 'firstHit ns/shot', 'ratio', 'allHits CPU ns/shot', 'firstHit CPU ns/shot', 'players hit/shot', 'posed/shot (allHits / firstHit)'], multi),
    ]),
  ].join('\n');
}

function volume(rows: Row[]): string {
  const out: string[][] = [];
  for (const r of rows) {
    for (const [name, k] of Object.entries(r.queries as Record<string, Record<string, number>>)) {
      out.push([num(r.players), `\`${name}\``, num(k.nsPerQuery), num(k.cpuNsPerQuery), num(k.posedPerQuery, 2), num(k.playersPerQuery, 2), num(k.gcs)]);
    }
  }
  return [
    'Volume queries on rewound players (`VolumeRewinder`), each aimed at one of 16 or 64 players running around a 60 m arena, at a random time in the 250 ms window: a sphere of 2 to 25 cm cast 100 m from 15 to 25 m away (`firstHit` on the same segments for scale), a 0.5 to 1.5 m sphere, a 1 m capsule of 20 cm, a box of half extents 0.2 to 0.8 m in any rotation, each within a metre of the body; median of interleaved rounds.',
    '',
    table(['players', 'query', 'ns/query', 'CPU ns/query', 'players posed/query', 'players reported/query', 'GCs'], out, [true, false, true, true, true, true, true]),
  ].join('\n');
}

function projectile(rows: Row[]): string {
  const out: string[][] = [];
  for (const r of rows) {
    const c = r.cases as Record<string, Record<string, number>>;
    if (c.step) out.push([num(r.players), '`stepProjectile` (one projectile, one 1/64 s tick)', num(c.step.ns), num(c.step.cpuNs), `${num(c.step.perCall, 1)} impacts / 1,000 steps`, num(c.step.gcs)]);
    if (c.explode) out.push([num(r.players), '`explode` (4 m or 5 m blast)', num(c.explode.ns), num(c.explode.cpuNs), `${num(c.explode.perCall, 2)} victims, ${num(c.explode.blockedPerCall, 2)} shielded`, num(c.explode.gcs)]);
  }
  return [
    'Projectiles among 16 or 64 players running around a 60 m arena with 60 pillars and slabs: 256 rockets and grenades in flight, each stepped every tick against the present players (finished ones launched again at a player 5 to 20 m away); blasts within 2 m of a player at a random time in the 250 ms window, the level shielding; median of interleaved rounds.',
    '',
    table(['players', 'call', 'ns/call', 'CPU ns/call', 'what happened', 'GCs'], out, [true, false, true, true, false, true]),
  ].join('\n');
}

function room(rows: Row[]): string {
  const out: string[][] = [];
  for (const r of rows) {
    if (r.case === 'validateShot') out.push([`\`validateShot\`, ${r.players} players on the default level (weapon rules, time checks, visibility)`, `${num(Number(r.nsPerShot) / 1000, 2)} µs per shot`]);
    else if (r.case === 'movementStep') out.push([`movement step (swept-sphere walls, ground probe), ${r.players} players`, `${num(Number(r.nsPerStep) / 1000, 2)} µs per player per tick`]);
    else if (r.case === 'wireBytes') out.push(['wire sizes: weapon message / input / ping', `${r.shot} / ${r.input} / ${r.ping} B`]);
    else out.push([String(r.case), JSON.stringify(r)]);
  }
  return table(['case', 'measured'], out, [false, true]);
}

function pellets(rows: Row[]): string {
  return [
    'One trigger pull judged by `validateShot` on the default level, players on two half rings (6 m and 10 m) around the shooter, each pull aimed at a random one: the rifle is one segment; the shotgun rebuilds its 8-pellet pattern and replays each pellet; the sniper walks every wall and player along its segment (penetration); the knife sweeps a 0.25 m sphere along its 2 m swing against the rewound players and tests the thin segment to the contact against the level (on the rings nobody is within its reach; `knife, crowd` draws the rings in to 1.2 and 1.6 m, every player within reach).',
    '',
    table(['weapon', 'players', 'µs per pull', 'pellets', 'hits per pull', 'walls passed per pull', 'heap B per pull'],
      rows.map((r) => [String(r.weapon), num(r.players), num(Number(r.nsPerPull) / 1000, 2), num(r.pellets), num(r.hitsPerPull, 2), num(r.wallsPerPull, 2), r.heapBytesPerPull === null ? '-' : num(r.heapBytesPerPull, 1)])),
  ].join('\n');
}

function audit(rows: Row[]): string {
  const rec = rows.find((r) => r.bench === 'audit-record');
  const replay = rows.filter((r) => r.bench === 'audit');
  const first = replay[0];
  const lines: string[] = [];
  if (first) lines.push(`A seeded 16-player match: ${num(first.shots)} shots, ${num(first.ticks)} ticks, ${num(first.logMb, 1)} MB of match log, replayed and re-judged bit for bit.`);
  if (rec) lines.push(`Recording it: ${num(rec.tickUs, 2)} µs per 16-player tick, ${num(rec.shotUs, 2)} µs per shot (in memory; disk writes are asynchronous).`);
  lines.push('', table(['workers', 'shots/s', 'per worker', 'ticks/s', 'wall ms', 'mismatches', 'heap MB'],
    replay.map((r) => [num(r.workers), num(r.shotsPerSecond), num(r.perWorker), num(r.ticksPerSecond), num(r.wallMs), num(r.mismatches), num(r.heapMb)])));
  return lines.join('\n');
}

function sim(rows: Row[]): string {
  const pct = (v: unknown) => `${num(100 * Number(v), 2)}%`;
  const o = (r: Row) => r.originOffsetM as { p50: number; p99: number; max: number };
  const flagged = (n: unknown, of: unknown) => (n === null || of === null ? 'no audit' : `${n} of ${of}`);
  return [
    'Seeded matches over modelled TCP links (100 ms round trip, 20 ms jitter, 1% loss) against a server in the same process; the wall clock runs them, so a loaded machine shows in the tick rate and the latencies. `honest`: `npm run sim -- --bots 16 --seconds 60 --rtt 100 --jitter 20 --loss 0.01 --seed 1`; `launchers`: the honest run with `--launchers 1` (every bot takes a rocket or grenade launcher at middle range); `cheaters`: the honest run with `--bots 12 --cheaters 19 --cheaters-still` (every cheat profile once); `rooms`: the honest run on a walled level, `--level rooms --spawns spread` (nine rooms joined by doorways, players spread over them; the default level is open ground whose cover a jump sees over), at 100 and 200 ms, with `--fog off` at both, at 200 ms with bots that take no backfills (`--backfill off`; the others join with `fogBackfill: true`), at both with the fog\'s tight tier at the plain regions (`--fog-tight 0`: a pair the grown regions show is decided on its plain regions; what that buys back at more rays), at both with no viewer made precise (`--fog-precision 0`: the cached verdicts alone; by default the server makes viewers precise while its fog update takes under 1 ms), at 100 ms with a 2 ms precision budget (`--fog-precision 2`), and at both with the fog deciding every pair on its own regions every tick (`--fog-caches off`: no visible hold, no grown regions for a hidden verdict; what the caches give up). Agreement: the share of honest weapon messages whose predicted verdict the server confirmed; the races are shots raced by a death in flight.',
    '',
    table(['run', 'players', 'honest messages', 'agreement (races)', 'without races', 'honest refused', 'rule-breaking accepted', 'shot start from eye path p50 / p99 / max', 'ticks/s seen', 'tick p99', 'verdict p99', 'audit flagged: honest / cheaters'],
      rows.map((r) => [String(r.run), `${r.bots} + ${r.cheaters}`, num(r.honestMessages), `${pct(r.agreementAll)} (${r.raceShots})`, pct(r.agreementRaceFree), num(r.honestRejected),
        `${num(r.ruleCheatAccepted)} of ${num(r.ruleCheatMessages)}`, `${num(o(r).p50, 3)} / ${num(o(r).p99, 2)} / ${num(o(r).max, 2)} m`,
        `${num(r.ticksPerSecond, 1)} of ${r.tickRate}`, `${num(r.tickMsP99, 2)} ms`, `${num(r.verdictLatencyMsP99)} ms`,
        `${flagged(r.honestFlagged, r.honestPlayers)} / ${flagged(r.cheatersFlagged, r.cheaterPlayers)}`]),
      [false, true, true, true, true, true, true, true, true, true, true, true]),
    ...rows.filter((r) => Number(r.impactsResolved) > 0).map((r) => {
      const d = r.impactDistanceM as { p50: number; p90: number; max: number };
      const ends = Object.entries(r.impactsByEnd as Record<string, { resolved: number; agreed: number }>).map(([k, v]) => `${k} ${v.agreed}/${v.resolved}`).join(', ');
      return `\nProjectile impacts in the \`${r.run}\` run: ${num(r.impactsResolved)} of ${num(r.launches)} honest launches had both ends known; the shooter's predicted end agreed with the server's (same end, same player struck, centres within 0.5 m) for ${pct(r.impactAgreement)} (by end: ${ends}); the blast reached the same players for ${num(r.impactSameVictims)}; centres apart p50 ${num(d.p50, 3)} m, p90 ${num(d.p90, 3)} m, max ${num(d.max, 2)} m.`;
    }),
    ...rows.filter((r) => Array.isArray(r.ruleCheatAcceptedList) && r.ruleCheatAcceptedList.length > 0)
      .map((r) => `\nRule-breaking messages accepted in the \`${r.run}\` run (profile: verdict): ${(r.ruleCheatAcceptedList as string[]).join('; ')}.`),
    ...(rows.some((r) => r.fog === 'on' || r.fog === 'off') ? ['', 'Fog of war in the same runs (the server\'s setting; measures defined in client-sim/README.md): pop-ins on the honest screens (and of them those only the body\'s outline showed, over the withheld samples it was looked at in; and the client\'s own count: enemies drawn already in sight, of those that appeared), the share of enemy-ticks behind cover the clients were not sent, the backfills the clients took into an enemy\'s run (and dropped: the next snapshot did not begin that enemy\'s run), how long before an honest screen first saw an enemy a wallhack drawing every received one had it (p50 / p90), and the honest deaths after reaching cover on the victim\'s screen; and the server\'s side: the share of viewer-updates decided precisely within the fog\'s 1 ms budget (more of them: more withheld; how many fit depends on the machine\'s speed and load) and its mean timed update.', '',
      table(['run', 'fog', 'pop-ins (outline only, of looked at)', 'appeared in sight', 'withheld of behind cover', 'backfills taken (dropped)', 'wallhack lead p50 / p90', 'died behind cover', 'viewers precise (fog update)'],
        rows.filter((r) => r.fog === 'on' || r.fog === 'off').map((r) => {
          const lead = r.wallhackLeadMs as { p50: number | null; p90: number | null } | null;
          return [String(r.run), String(r.fog), `${num(r.popIn)} (${num(r.outlinePopIn)} of ${num(r.outlineSamples)})`, `${num(r.appearedInSight)} of ${num(r.appearances)}`, pct(r.withheldShare), r.backfill === false ? 'off' : `${num(r.backfillsTaken)} (${num(r.backfillsDropped)})`, lead ? `${num(lead.p50)} / ${num(lead.p90)} ms` : '', `${pct(r.diedBehindCoverRate)} of ${num(r.deaths)}`,
            r.preciseShare === null || r.preciseShare === undefined ? '' : `${pct(r.preciseShare)} (${num(r.fogUpdateMs, 2)} ms)`];
        }), [false, false, true, true, true, true, true, true, true])] : []),
  ].join('\n');
}

function peek(rows: Row[]): string {
  return [
    "A held angle against a peek (client-sim/peek.ts; 3 peeks a row, no jitter or loss): each bot's own screen tested every frame; the advantage is when the holder first saw the peeker less when the peeker first saw the holder, median. Riot's model: both one-way delays + the holder's interpolation delay + one tick; these clients render behind their clock estimate, so the holder's one way sits inside its delay (render-clock model: the peeker's one way + the delay + a tick). Peeker server lag: from the peeker seeing the holder until the server's history had it there (its one way, the server's input queue, the tick).",
    '',
    table(['round trip', 'fog', 'advantage', 'head only', "Riot's model", 'render-clock model', 'interpolation', 'peeker server lag'],
      rows.map((r) => [`${num(r.rttMs)} ms`, String(r.fog), `${num(r.peekersAdvantageMs)} ms`, `${num(r.headAdvantageMs)} ms`, `${num(r.modelMs)} ms`, `${num(r.modelRenderClockMs)} ms`, `${num(r.interpDelayMs)} ms`, `${num(r.peekerServerLagMs)} ms`])),
  ].join('\n');
}

function fleet(rows: Row[]): string {
  return [
    'Finished match logs enqueued on a BullMQ queue in Redis and audited into a SQLite evidence store by 2 worker processes; the first is killed with SIGKILL when half the jobs are done and started again. The logs are distinct copies of 8 synthetic matches of 4 players x 6 s, plus 5 poisoned ones (not a log, empty, a header cut short, truncated, a flipped byte). Lost: enqueued logs neither audited nor failed; duplicates: store rows beyond one per log and player.',
    '',
    table(['logs', 'audited', 'failed (poisoned)', 'lost', 'duplicates', 'jobs/s', 'job p99', 'workers killed', 'jobs taken back'],
      rows.map((r) => [num(r.logs), num(r.audited), `${num(r.failed)} (${num(r.poisonFailed)} of ${num(r.poison)})`, num(r.lost), num(r.duplicates), num(r.jobsPerSecond, 1), `${num(r.jobP99Ms)} ms`, num(r.killed), num(r.stalled)]),
      [true, true, true, true, true, true, true, true, true]),
  ].join('\n');
}

function faults(rows: Row[]): string {
  const out: string[] = [];
  for (const r of rows) {
    const red = r.redisOutage as Record<string, unknown> | undefined;
    const st = r.stalledClients as Record<string, unknown> | undefined;
    const disk = r.diskFull as Record<string, unknown> | undefined;
    if (red) {
      const j = red.joinsDuringOutage as { attempts: number; refusedRetryable: number; hung: number };
      out.push(`**Redis outage.** A 2-process cluster with 6 bots playing; its Redis killed with SIGKILL after 12 s of play and restarted empty ${num(red.outageSeconds)} s later, ${num(red.runs)} times, then once FLUSHALL.`, '',
        table(['recovery s (slowest)', 'each restart', 'after FLUSHALL', 'joins during outages', 'refused 503 + Retry-After', 'hung', 'ticks/s seen (min)', 'processes up', 'bots dropped', 'unhandled error lines'],
          [[num(red.secondsToRecover, 2), (red.secondsToRecoverRuns as number[]).map((x) => num(x, 2)).join(' / '), num(red.secondsToRecoverFlushall, 2), num(j.attempts), num(j.refusedRetryable), num(j.hung),
            num(red.ticksPerSecondMin, 1), num(red.processesAlive), num(red.botsDisconnected), num(red.unhandledErrorLines)]]), '');
    }
    if (st) {
      out.push(`**Stalled clients.** ${num(st.waves)} rounds of ${num(Number(st.stalled) / Number(st.waves))} clients that join and stop reading (sending pongs unasked), streamed ${num(st.fillerKBps)} KB/s each, beside ${num(st.bots)} playing bots in ${num(st.rooms)} rooms; server RSS after each round: ${(st.rssAfterWaveMb as number[]).map((x) => num(x, 1)).join(', ')} MB.`, '',
        table(['stalled', 'disconnected', 'cut by the rule', 'bots dropped', 'RSS growth MB', 'last round added MB', 'heap before / after GC MB'],
          [[num(st.stalled), num(st.disconnected), num(st.cut), num(st.botsLeft), num(st.rssGrowthMb, 1), num(st.rssLastWaveGrowthMb, 1), `${num(st.heapBeforeMb, 1)} / ${num(st.heapAfterGcMb, 1)}`]]), '');
    }
    if (disk) {
      out.push(disk.skipped !== undefined ? `**Full disk.** Not run: ${String(disk.skipped)}.` : `**Full disk.** ${num(disk.players)} players in one room, match logs on a ${num(Number(disk.sizeBytes) / 1024)} KiB tmpfs, played on after the first failed write.`, '');
      if (disk.skipped === undefined) {
        out.push(table(['unwritten bytes (/metrics)', 'failed writes', 'ticks/s after full', 'audit says truncated', 'why'],
          [[num(disk.unwrittenBytes), num(disk.writeFailures), num(disk.ticksPerSecondAfterFull, 1), String(disk.auditSaysTruncated), String(disk.why)]]));
      }
    }
  }
  return out.join('\n');
}

function fog(rows: Row[]): string {
  const r0 = rows[0];
  const pct = (v: unknown) => `${num(100 * Number(v), 1)}%`;
  return [
    `FogOfWar.update (shared/fog) once per tick at 64 Hz on the default level (open ground) and on the rooms level (nine walled rooms joined by doorways, players spread over it), players walking it (seeded), each viewer's one-way 20-80 ms, interpolation 100 ms, patch 15.6 ms, safety 25 ms (viewers \`backfill\`: clients that take backfills at a 16 ms margin, bodies over their last patch; \`npm run bench:fog -- --backfill [--level rooms]\`); opening ${num(r0?.openingM, 2)} m, hold ${num(r0?.visibleHoldTicks)} updates, hidden slack ${num(r0?.hiddenSlackM, 2)} m; caches \`tight 0\`: hiddenTight 0 (a pair the grown regions show is decided on its plain regions; \`npm run bench:fog -- --tight 0\`); viewers made precise while an update takes under the 1 ms budget, as FogFilter does (column precise: the share of viewers precise; their pairs decided on their plain regions, no hold for a verdict found from the regions' edges; \`no precise\`: none, the cached verdicts alone, \`-- --precision 0\`); \`cap N\`: no more pairs tested in an update once it has cast N rays, FogFilter's default (the pair under test finishes; pairs left untested are sent that update; \`npm run bench:fog -- --max-rays N\`). Occluded: enemy pairs with no clear line from the eye to 9 points of the body envelope now; withheld of occluded: the share of those the fog withheld. Uncached: every pair's full rule every tick.`,
    '',
    table(['level', 'viewers', 'players', 'caches', 'µs per tick', 'p99 µs', 'rays per tick', 'pairs tested per tick', 'sent (of enemy pairs)', 'occluded', 'withheld of occluded', 'precise', 'gcs'],
      rows.map((r) => [String(r.level ?? 'default'), r.backfill === true ? 'backfill' : 'plain', num(r.players), r.uncached ? 'off' : r.hiddenTight === 0 ? 'tight 0' : r.precisionMs === 0 ? 'no precise' : typeof r.maxRaysPerUpdate === 'number' ? `cap ${num(r.maxRaysPerUpdate)}` : 'on', num(r.usPerTick), num(r.p99UsPerTick), num(r.raysPerTick), num(r.pairsTestedPerTick), pct(r.visibleShare), pct(r.occludedShare), pct(r.withheldOfOccluded), r.preciseShare === undefined ? '' : pct(r.preciseShare), num(r.gcs)])),
  ].join('\n');
}

function loadFog(rows: Row[]): string {
  return [
    'One server process with one room of 64 bots over real WebSockets (Redis presence), the default level, 64 Hz; the tick as the server measured it. Cores `shared`: the server and the bots (one process) share the machine, so a tick can wait for the bots\' process to be scheduled out; `pinned` (`--pin`): the server alone on core 0 and the bots on the others, so the tick is the server\'s own work (on two cores the bots then have one, which they fill: their inputs come late and in bursts).',
    '',
    table(['cores', 'fog', 'players', 'seconds', 'tick p50 ms', 'tick p99 ms', 'tick max ms', 'ticks/s min (server / seen by a client)', 'server CPU', 'bots CPU', 'errors'],
      rows.map((r) => [String(r.cores ?? 'shared'), String(r.fog), num(r.players), num(r.seconds), num(r.tickMsP50, 2), num(r.tickMsP99, 2), num(r.tickMsMax, 2), `${num(r.ticksPerSecondMin, 1)} / ${num(r.ticksPerSecondSeenMin, 1)}`, `${num(r.serverCpuPct)}%`, r.botCpuPct === undefined ? '' : `${num(r.botCpuPct)}%`, num(r.errors)])),
  ].join('\n');
}

function generic(rows: Row[]): string {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((k) => k !== 'bench');
  return table(keys, rows.map((r) => keys.map((k) => (typeof r[k] === 'object' ? JSON.stringify(r[k]) : num(r[k], Number.isInteger(r[k]) ? 0 : 2)))));
}

const SECTIONS: { name: string; command: string; benches: string[]; render: (rows: Row[]) => string }[] = [
  { name: 'World queries', command: 'npm run bench:world', benches: ['world'], render: world },
  { name: 'Rewind', command: 'npm run bench:rewind', benches: ['rewind'], render: rewind },
  { name: 'Volume queries', command: 'npm run bench:volume', benches: ['volume'], render: volume },
  { name: 'Projectiles and explosions', command: 'npm run bench:projectile', benches: ['projectile'], render: projectile },
  { name: 'Shot judge and movement', command: 'npm run bench:room', benches: ['room'], render: room },
  { name: 'Pellets and penetration', command: 'npm run bench:pellets', benches: ['pellets'], render: pellets },
  { name: 'Audit replay', command: 'npm run bench:audit', benches: ['audit-record', 'audit'], render: audit },
  { name: 'Fog of war', command: 'npm run bench:fog', benches: ['fog'], render: fog },
  { name: 'Simulated matches', command: 'npm run bench:sim', benches: ['sim'], render: sim },
  { name: 'A 64-player room, fog on and off', command: 'npm run load -- --processes 1 --rooms 1 --bots-per-room 64 --seconds 30 --fog on|off [--pin] (npm run bench:loadfog)', benches: ['load-fog'], render: loadFog },
  { name: "Peeker's advantage", command: 'npm run sim -- --peek --peeks 3', benches: ['peek'], render: peek },
  { name: 'Faults', command: 'npm run bench:faults', benches: ['faults'], render: faults },
  { name: 'Fleet audits', command: 'npm run bench:fleet -- --logs 1000 --workers 2 --kill', benches: ['fleet'], render: fleet },
];

/** The whole page. */
export function measurementsMarkdown(rows: Row[], info: RunInfo): string {
  const cpu = cpus();
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');
  const head = [
    '# Measurements',
    '',
    '<!-- Generated by `npm run bench -- --markdown` (test/bench/run.ts, test/bench/measurements.ts). Do not edit by hand: run the command again. -->',
    '',
    'Generated by `npm run bench -- --markdown` from the JSON lines of the benchmarks (`npm run bench -- --json`); never edited by hand. Every bench is seeded; the numbers are medians. They move by about ±10% between runs on one machine and more on a shared one: compare runs made on the same machine minutes apart.',
    '',
    ...[
      ['Date', `${info.startedAt.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC')} (the run took ${Math.round((info.finishedAt.getTime() - info.startedAt.getTime()) / 1000)} s)`],
      ['Machine', `${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${cpu.length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB of memory`],
      ['Load average (1, 5, 15 min)', `${load(info.loadBefore)} before the run, ${load(info.loadAfter)} after`],
      ['Node', process.version],
      ['OS', osName()],
      ['Commit', commit()],
      ...(info.note ? [['Note', info.note]] : []),
    ].map(([k, v]) => `- **${k}:** ${v}`),
  ];
  const sections: string[] = [];
  const known = new Set(SECTIONS.flatMap((s) => s.benches));
  for (const s of SECTIONS) {
    const mine = rows.filter((r) => s.benches.includes(r.bench));
    if (mine.length > 0) sections.push(`## ${s.name}\n\n\`${s.command}\`\n\n${s.render(mine)}`);
  }
  for (const name of [...new Set(rows.map((r) => r.bench))].filter((b) => !known.has(b))) {
    sections.push(`## ${name}\n\n${generic(rows.filter((r) => r.bench === name))}`);
  }
  return `${[head.join('\n'), ...sections].join('\n\n')}\n`;
}
