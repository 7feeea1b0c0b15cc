/**
 * `npm run sim -- --bots N --seconds S --rtt MS --jitter MS --loss P --cheaters K [--json] [--url ws://...] [--seed N]`
 * Runs the simulator (simulate.ts) and prints the report; with --json the last line is one JSON
 * object. A progress bar is drawn when stderr is a terminal. Exits 1 when a target is missed
 * (agreementAll < 99%, an honest message rejected, a rule-breaking cheat accepted, a server error).
 */
import cliProgress from 'cli-progress';
import { runSimulation, type SimOptions } from './simulate';
import { formatReport } from './report';
import { CHEAT_PROFILE_NAMES } from './cheats/index';

const USAGE = `usage: npm run sim -- [--bots N] [--seconds S] [--rtt MS] [--jitter MS] [--loss P] [--cheaters K]
                      [--seed N] [--rtt-spread MS] [--url ws://host:port] [--profiles a,b:0.5,...] [--strength S] [--cheaters-still] [--no-audit]
                      [--interp MS] [--tick-rate HZ] [--patch-ms MS] [--json]
  --loss is a probability (0.01 = 1%); --rtt-spread gives each bot its own round trip in rtt +- MS; --patch-ms patches the in-process server's state on a timer instead of once per tick;
  --strength (0..1) applies to every profile named without its own (name:S); --cheaters-still: cheaters do not move (each refusal is then the rule under test, not their own-movement prediction); profiles: ${CHEAT_PROFILE_NAMES.join(', ')}`;

function fail(msg: string): never {
  console.error(`${msg}\n${USAGE}`);
  process.exit(2);
}

function parse(argv: string[]): { opts: SimOptions; json: boolean } {
  const opts: SimOptions = {};
  let json = false;
  const num = (name: string, v: string | undefined): number => {
    const x = Number(v);
    if (v === undefined || !Number.isFinite(x)) fail(`${name} needs a number`);
    return x;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const v = argv[i + 1];
    switch (a) {
      case '--bots': opts.bots = num(a, v); i++; break;
      case '--cheaters': opts.cheaters = num(a, v); i++; break;
      case '--seconds': opts.seconds = num(a, v); i++; break;
      case '--rtt': opts.rttMs = num(a, v); i++; break;
      case '--jitter': opts.jitterMs = num(a, v); i++; break;
      case '--rtt-spread': opts.rttSpreadMs = num(a, v); i++; break;
      case '--loss': opts.loss = num(a, v); i++; break;
      case '--seed': opts.seed = num(a, v); i++; break;
      case '--interp': opts.interpDelayMs = num(a, v); i++; break;
      case '--tick-rate': opts.server = { ...opts.server, tickRate: num(a, v) }; i++; break;
      case '--url': if (v === undefined) fail('--url needs ws://host:port'); opts.url = v; i++; break;
      case '--profiles': if (v === undefined) fail('--profiles needs names'); opts.profiles = v.split(','); i++; break;
      case '--strength': opts.strength = num(a, v); i++; break;
      case '--no-audit': opts.audit = false; break;
      case '--cheaters-still': opts.cheatersStill = true; break;
      case '--patch-ms': opts.server = { ...opts.server, patchRateMs: num(a, v) }; i++; break;
      case '--json': json = true; break;
      case '-h': case '--help': console.log(USAGE); process.exit(0);
      // eslint-disable-next-line no-fallthrough
      default: fail(`unknown argument ${a}`);
    }
  }
  return { opts, json };
}

async function main(): Promise<void> {
  const { opts, json } = parse(process.argv.slice(2));
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
