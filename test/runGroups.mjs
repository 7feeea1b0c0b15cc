// `npm test`: the typecheck, the unit group and the realtime group, each run even when one before it
// failed (a unit failure must not hide the realtime results); one summary line says which failed,
// and the exit code is non-zero when any did. Run by npm, so node_modules/.bin is first on PATH.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const groups = [
  { name: 'typecheck', command: 'npm', args: ['run', '--silent', 'typecheck'] },
  { name: 'unit', command: 'vitest', args: ['run', '--config', 'test/vitest.config.ts'] },
  { name: 'realtime', command: 'vitest', args: ['run', '--config', 'test/vitest.realtime.config.ts'] },
];

const results = [];
for (const g of groups) {
  const t0 = performance.now();
  const r = spawnSync(g.command, g.args, { cwd: root, stdio: 'inherit' });
  const seconds = ((performance.now() - t0) / 1000).toFixed(0);
  if (r.error) console.error(`test group ${g.name}: could not start ${g.command}: ${r.error.message}`);
  // Interrupted (Ctrl-C reaches the whole process group): stop here rather than start the next group.
  if (r.signal === 'SIGINT' || r.signal === 'SIGTERM') process.kill(process.pid, r.signal);
  results.push({ name: g.name, ok: r.status === 0, status: r.status ?? r.signal ?? 'not started', seconds });
}

const failed = results.filter((r) => !r.ok);
const parts = results.map((r) => `${r.name} ${r.ok ? 'passed' : `FAILED (${r.status})`} ${r.seconds}s`);
console.log(`\ntest groups: ${parts.join(', ')}${failed.length > 0 ? ` -- failed: ${failed.map((r) => r.name).join(', ')}` : ''}`);
process.exit(failed.length > 0 ? 1 : 0);
