/**
 * `npm run sim -- --bots N --seconds S --rtt MS --jitter MS --loss P --cheaters K [--fog on|off] [--json] [--url ws://...] [--seed N]`
 * Runs the simulator (simulate.ts) and prints the report; `--peek` runs the scripted peek (peek.ts)
 * at round trips 20 to 200 ms with fog off and on instead and prints its table (one JSON line with
 * --json: `{ peek: PeekRow[] }`; exit 0); with --json the last line is one JSON
 * object. A progress bar is drawn when stderr is a terminal. Exits 1 when a target is missed
 * (agreementAll < 99%, an honest message rejected, a rule-breaking cheat accepted, a server error);
 * 2 when the simulation cannot run: bad arguments, no server at --url, or the server going away
 * during the match (one line, no report).
 */
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { interpDelayFor, runSimulation, type SimOptions } from './simulate';
import { peekTable } from './peek';
import { formatReport } from './reportText';
import { CHEAT_PROFILE_NAMES } from './cheats/index';
import { roomsLevel } from '../server/level/rooms';

const USAGE = `usage: npm run sim -- [--bots N] [--seconds S] [--rtt MS] [--jitter MS] [--loss P] [--cheaters K]
                      [--seed N] [--launchers SHARE] [--rtt-spread MS] [--burst N] [--bandwidth KBIT] [--stall MS:EVERY_MS] [--url ws://host:port] [--profiles a,b:0.5,...] [--strength S] [--cheaters-still] [--no-audit]
                      [--interp MS] [--tick-rate HZ] [--patch-ms MS] [--trade-slack MS] [--fog on|off] [--fog-caches on|off] [--fog-tight K] [--fog-hold N] [--fog-precision MS] [--backfill on|off] [--level rooms|PATH] [--spawns centre|spread] [--peeks N] [--json]
       npm run sim -- --peek [--peeks N] [--jitter MS] [--loss P] [--seed N] [--tick-rate HZ] [--json]
  --fog sets the in-process server's fog of war; --fog-caches off makes it decide every pair on its own regions every tick (no visible hold, no grown regions for a hidden verdict: what the caches cost in what is withheld); --fog-tight K (0..1) sets its hiddenTight (shared/fog/config: 0 decides on the plain regions what the grown ones do not); --fog-hold N sets its visibleHoldTicks (0: a visible pair is re-tested every tick); --fog-precision MS the update time its precise viewers may fill (0: none precise); --level plays on a glTF level or on 'rooms' (server/level/rooms.ts: nine walled rooms joined by doorways); --spawns spread spawns players over the whole level (default centre: near the centre, in sight of each other); --peeks is the number of scripted peeks (default 3 after a run, 5 per row with --peek; 0: none);
  --peek: the held angle against a peek at round trips 20, 50, 100, 150, 200 ms, fog off and on (jitter and loss 0 unless given);
  --loss is the per-message loss probability each way (0.01 = 1%; a loss costs a TCP retransmission timeout, >= 200 ms, doubling on repeats);
  --burst is the mean number of consecutive transmissions lost (Gilbert-Elliott; default independent losses); --bandwidth caps each direction per bot, kbit/s;
  --stall 600:3000 holds each bot's streams for 600 ms every 3 s (a lost segment and its retransmissions), then delivers everything at once;
  --rtt-spread gives each bot its own round trip in rtt +- MS; --patch-ms patches the in-process server's state on a timer instead of once per tick;
  --trade-slack turns trades on in the in-process server (its rules' tradeSlackMs: a dead shooter's shots stated within half its round trip plus MS of the kill are judged; 40 suits 64 Hz);
  --profiles without --cheaters: one cheater per profile named; --strength (0..1) applies to every profile named without its own (name:S); --cheaters-still: cheaters do not move (each refusal is then the rule under test, not their own-movement prediction); profiles: ${CHEAT_PROFILE_NAMES.join(', ')}`;

function fail(msg: string): never {
  console.error(`${msg}\n${USAGE}`);
  process.exit(2);
}

function parse(argv: string[]): { opts: SimOptions; json: boolean; peek: boolean } {
  let v;
  try {
    ({ values: v } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        bots: { type: 'string' }, cheaters: { type: 'string' }, seconds: { type: 'string' }, rtt: { type: 'string' },
        jitter: { type: 'string' }, 'rtt-spread': { type: 'string' }, loss: { type: 'string' }, burst: { type: 'string' }, bandwidth: { type: 'string' }, stall: { type: 'string' }, seed: { type: 'string' }, launchers: { type: 'string' },
        interp: { type: 'string' }, 'tick-rate': { type: 'string' }, url: { type: 'string' }, profiles: { type: 'string' },
        'patch-ms': { type: 'string' }, 'trade-slack': { type: 'string' }, strength: { type: 'string' }, 'no-audit': { type: 'boolean' },
        'cheaters-still': { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
        fog: { type: 'string' }, 'fog-caches': { type: 'string' }, 'fog-tight': { type: 'string' }, 'fog-hold': { type: 'string' }, 'fog-precision': { type: 'string' }, backfill: { type: 'string' }, peek: { type: 'boolean' }, peeks: { type: 'string' }, spawns: { type: 'string' }, level: { type: 'string' },
      },
    }));
  } catch (e) {
    fail((e as Error).message.split('. To specify', 1)[0]!);
  }
  if (v.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const num = (name: string, x: string | undefined): number | undefined => {
    if (x === undefined) return undefined;
    const n = Number(x);
    if (x.trim() === '' || !Number.isFinite(n)) fail(`--${name} needs a number (got ${JSON.stringify(x)})`);
    return n;
  };
  const opts: SimOptions = {};
  const set = <K extends keyof SimOptions>(k: K, x: SimOptions[K] | undefined): void => {
    if (x !== undefined) opts[k] = x;
  };
  set('bots', num('bots', v.bots));
  set('cheaters', num('cheaters', v.cheaters));
  set('seconds', num('seconds', v.seconds));
  set('rttMs', num('rtt', v.rtt));
  set('jitterMs', num('jitter', v.jitter));
  set('rttSpreadMs', num('rtt-spread', v['rtt-spread']));
  set('loss', num('loss', v.loss));
  set('burst', num('burst', v.burst));
  const kbit = num('bandwidth', v.bandwidth);
  if (kbit !== undefined) opts.bandwidthBytesPerS = (kbit * 1000) / 8;
  if (v.stall !== undefined) {
    const m = /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(v.stall);
    if (m === null || !(Number(m[2]) > Number(m[1]))) fail(`--stall needs MS:EVERY_MS with EVERY_MS > MS (got ${JSON.stringify(v.stall)})`);
    opts.stalls = { forMs: Number(m![1]), everyMs: Number(m![2]) };
  }
  set('seed', num('seed', v.seed));
  set('interpDelayMs', num('interp', v.interp));
  set('launcherShare', num('launchers', v.launchers));
  if (v.url !== undefined) {
    if (!/^wss?:\/\/[^\s/]+/.test(v.url)) fail(`--url needs ws://host:port (got ${JSON.stringify(v.url)})`);
    opts.url = v.url;
  }
  if (v.profiles !== undefined) opts.profiles = v.profiles.split(',');
  set('strength', num('strength', v.strength));
  if (v['no-audit'] === true) opts.audit = false;
  if (v['cheaters-still'] === true) opts.cheatersStill = true;
  if (v.backfill !== undefined) {
    if (v.backfill !== 'on' && v.backfill !== 'off') fail(`--backfill needs on or off (got ${JSON.stringify(v.backfill)})`);
    opts.backfill = v.backfill === 'on';
  }
  if (v.fog !== undefined) {
    if (v.fog !== 'on' && v.fog !== 'off') fail(`--fog needs on or off (got ${JSON.stringify(v.fog)})`);
    opts.fog = v.fog;
  }
  if (v['fog-caches'] !== undefined) {
    if (v['fog-caches'] !== 'on' && v['fog-caches'] !== 'off') fail(`--fog-caches needs on or off (got ${JSON.stringify(v['fog-caches'])})`);
    opts.fogCaches = v['fog-caches'] === 'on';
  }
  if (v['fog-tight'] !== undefined) {
    const k = Number(v['fog-tight']);
    if (v['fog-tight'].trim() === '' || !(k >= 0 && k <= 1)) fail(`--fog-tight needs a number from 0 to 1 (got ${JSON.stringify(v['fog-tight'])})`);
    opts.fogTight = k;
  }
  if (v['fog-hold'] !== undefined) {
    const k = Number(v['fog-hold']);
    if (v['fog-hold'].trim() === '' || !(Number.isInteger(k) && k >= 0 && k <= 64)) fail(`--fog-hold needs a whole number from 0 to 64 (got ${JSON.stringify(v['fog-hold'])})`);
    opts.fogHold = k;
  }
  if (v['fog-precision'] !== undefined) {
    const k = Number(v['fog-precision']);
    if (v['fog-precision'].trim() === '' || !(k >= 0 && k <= 1000)) fail(`--fog-precision needs a number of ms from 0 to 1000 (got ${JSON.stringify(v['fog-precision'])})`);
    opts.fogPrecisionMs = k;
  }
  set('peeks', num('peeks', v.peeks));
  if (v.spawns !== undefined) {
    if (v.spawns !== 'centre' && v.spawns !== 'spread') fail(`--spawns needs centre or spread (got ${JSON.stringify(v.spawns)})`);
    opts.spawns = v.spawns;
  }
  const tickRate = num('tick-rate', v['tick-rate']);
  const patchRateMs = num('patch-ms', v['patch-ms']);
  if (tickRate !== undefined || patchRateMs !== undefined) {
    opts.server = { ...(tickRate !== undefined ? { tickRate } : {}), ...(patchRateMs !== undefined ? { patchRateMs } : {}) };
  }
  const tradeSlackMs = num('trade-slack', v['trade-slack']);
  if (tradeSlackMs !== undefined) opts.server = { ...opts.server, validation: { tradeSlackMs } };
  if (v.level !== undefined) {
    if (v.level.trim() === '') fail('--level needs rooms or a .glb path');
    const level = v.level === 'rooms' ? roomsLevel() : v.level;
    opts.server = { ...opts.server, level };
    opts.level = level;
  }
  return { opts, json: v.json === true, peek: v.peek === true };
}

/** --peek: the table of the scripted peek, a row per round trip and fog setting. */
async function peekMain(opts: SimOptions, json: boolean): Promise<void> {
  const tickRate = opts.server?.tickRate;
  const rows = await peekTable({
    jitterMs: opts.jitterMs ?? 0, loss: opts.loss ?? 0, peeks: opts.peeks ?? 5, seed: opts.seed ?? 1,
    interpFor: (rtt, patchMs, windowMs, maxInterpMs) => opts.interpDelayMs ?? interpDelayFor(rtt, opts.jitterMs ?? 0, patchMs, windowMs, maxInterpMs),
    server: tickRate !== undefined ? { tickRate } : {},
  });
  const f = (x: number | null): string => (x === null ? '-' : x.toFixed(0).padStart(5));
  console.log('rtt  fog  peeks  advantage  head-only  Riot model  render-clock model  interp  peeker server lag  lag + interp');
  for (const r of rows) {
    const sum = r.peekerServerLagMs === null ? null : r.peekerServerLagMs + r.interpDelayMs;
    console.log(`${String(r.rttMs).padStart(3)}  ${r.fog.padEnd(3)}  ${String(r.peeks).padStart(5)}  ${f(r.peekersAdvantageMs)} ms   ${f(r.headAdvantageMs)} ms   ${f(r.modelMs)} ms    ${f(r.modelRenderClockMs)} ms          ${f(r.interpDelayMs)} ms  ${f(r.peekerServerLagMs)} ms           ${f(sum)} ms`);
  }
  if (json) console.log(JSON.stringify({ peek: rows }));
  process.exit(0);
}

async function main(): Promise<void> {
  const { opts, json, peek } = parse(process.argv.slice(2));
  if (peek) return peekMain(opts, json);
  opts.peeks ??= 3;
  let bar: cliProgress.SingleBar | null = null;
  if (process.stderr.isTTY) {
    bar = new cliProgress.SingleBar({ stream: process.stderr, format: 'sim [{bar}] {percentage}% | {value}/{total} s | shots {shots}', hideCursor: true }, cliProgress.Presets.shades_classic);
    bar.start(opts.seconds ?? 20, 0, { shots: 0 });
    opts.onProgress = (el, total, shots) => bar!.update(Math.round(el / 100) / 10, { shots });
  }
  const report = await runSimulation(opts);
  bar?.stop();
  console.log(formatReport(report));
  const ok = report.agreementAll >= 0.99 && report.honestRejected === 0 && report.ruleCheatAccepted === 0 && (report.serverErrors ?? 0) === 0;
  console.log(ok ? 'targets: met' : 'targets: MISSED (agreementAll >= 99%, no honest message rejected, no rule-breaking cheat accepted, no server error)');
  if (json) console.log(JSON.stringify(report));
  process.exit(ok ? 0 : 1);
}

main().catch((e) => {
  console.error(`sim failed: ${e instanceof Error ? (process.env.DEBUG ? e.stack : e.message) : String(e)}`);
  process.exit(2);
});
