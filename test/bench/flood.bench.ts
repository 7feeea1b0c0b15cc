/**
 * `npm run bench:flood`: the server's limits against an anonymous room-creation flood, measured
 * from outside. Starts the built server (`node dist/server/main.js`, default limits, its own match
 * log directory) as a child process, joins one real player from 127.0.0.1, and meanwhile sends
 * --requests `POST /matchmake/create/arena` at --rate per second from 127.0.0.2, never connecting.
 * Prints the answers by status, the most rooms live at once (from /metrics), the match logs on
 * disk, the server's CPU time, and the player's gaps between state patches (p50/p99/max) during
 * the flood, beside the same player's gaps with no flood. With --json, one JSON line.
 *
 *   npm run bench:flood [-- --json] [-- --requests 2000] [-- --rate 100]
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@colyseus/sdk';
import { benchArgs } from './args';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function post(port: number, from: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, localAddress: from, method: 'POST', path: '/matchmake/create/arena', headers: { 'content-type': 'application/json', 'content-length': 2 }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(-1));
    req.end('{}');
  });
}

async function roomsLive(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return Number(text.split('\n').find((l) => l.startsWith('hitreg_rooms '))?.split(' ')[1] ?? NaN);
}

/** Patch gaps of one player over `ms`: p50, p99, max. */
async function patchGaps(url: string, ms: number): Promise<{ patches: number; p50: number; p99: number; max: number }> {
  const room = await new Client(url).create('arena', {});
  room.onMessage('*', () => {});
  const gaps: number[] = [];
  let last = 0;
  room.onStateChange(() => {
    const t = performance.now();
    if (last > 0) gaps.push(t - last);
    last = t;
  });
  await new Promise((r) => setTimeout(r, ms));
  void room.leave(true).catch(() => {});
  gaps.sort((a, b) => a - b);
  const q = (p: number) => Math.round(10 * (gaps[Math.min(gaps.length - 1, Math.floor(p * gaps.length))] ?? NaN)) / 10;
  return { patches: gaps.length, p50: q(0.5), p99: q(0.99), max: q(1) };
}

export async function run(opts: { json: boolean; requests?: number; rate?: number }): Promise<void> {
  const requests = Math.round(opts.requests ?? 2000);
  const rate = opts.rate ?? 100;
  const logs = mkdtempSync(join(tmpdir(), 'hitreg-flood-'));
  const server = spawn(process.execPath, ['dist/server/main.js'], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', MATCH_LOG_DIR: logs, LOG_FORMAT: 'json', LOG_LEVEL: 'info', STATUS_INTERVAL_MS: '0' },
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let buf = '';
      server.stdout!.setEncoding('utf8').on('data', (d: string) => {
        buf += d;
        const m = /"url":"(ws:\/\/[^"]+)"/.exec(buf);
        if (m) resolve(m[1]!);
      });
      server.on('exit', (code) => reject(new Error(`server exited with ${code} before listening (build first: npm run build)`)));
    });
    const port = Number(new URL(url.replace('ws:', 'http:')).port);
    const seconds = requests / rate;
    const quiet = await patchGaps(url, Math.min(20_000, seconds * 1000));

    const codes: Record<string, number> = {};
    let maxRooms = 0;
    const cpu0 = cpuSeconds(server.pid!);
    const t0 = performance.now();
    const flood = (async () => {
      const pending: Promise<void>[] = [];
      for (let i = 0; i < requests; i++) {
        pending.push(post(port, '127.0.0.2').then((s) => { codes[s] = (codes[s] ?? 0) + 1; }));
        if (i % Math.max(1, Math.round(rate)) === 0) maxRooms = Math.max(maxRooms, await roomsLive(port));
        const wait = t0 + ((i + 1) * 1000) / rate - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      await Promise.all(pending);
    })();
    const during = await patchGaps(url, Math.min(20_000, seconds * 1000));
    await flood;
    maxRooms = Math.max(maxRooms, await roomsLive(port));
    const floodSeconds = (performance.now() - t0) / 1000;
    const cpu = (cpuSeconds(server.pid!) - cpu0) / floodSeconds;
    const result = {
      bench: 'flood', requests, rate, codes, maxRoomsLive: maxRooms, matchLogs: readdirSync(logs).length,
      serverCpu: Math.round(cpu * 100) / 100, patchGapsMs: { quiet, flood: during },
    };
    if (opts.json) console.log(JSON.stringify(result));
    else {
      console.log(`flood: ${requests} anonymous creates at ${rate}/s from one address: ${Object.entries(codes).map(([k, v]) => `${v} x ${k}`).join(', ')}`);
      console.log(`  rooms live at most ${maxRooms}; match logs on disk ${result.matchLogs} (the two players' rooms); server CPU ${(cpu * 100).toFixed(0)}% of a core`);
      console.log(`  a player's patch gaps, ms: quiet p50 ${quiet.p50} p99 ${quiet.p99} max ${quiet.max}; during the flood p50 ${during.p50} p99 ${during.p99} max ${during.max}`);
    }
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(logs, { recursive: true, force: true });
  }
}

/** User + system CPU seconds of a process so far (Linux /proc). */
function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const a = benchArgs('flood.bench.ts', ['requests', 'rate']);
  await run(a);
}
