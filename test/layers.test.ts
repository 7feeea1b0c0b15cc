// The layers import one way. Every static import of the sources is resolved to a file and checked
// against the rules below: the deterministic core and the log's codec know nothing above them, the
// integrity audit knows nothing of the behaviour science, the public server entry knows neither,
// only the synthetic harness borrows the simulator's human model, and the evidence kept across
// matches sits on top of the behaviour science, reached only by the audit's command line, the
// server's enqueuer and the loader of its review page (server/ops/review.ts, a dynamic import).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(new URL('..', import.meta.url).pathname);
const SOURCES = execFileSync('git', ['ls-files', 'shared', 'server', 'client-sim', 'web/src'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n').filter((f) => /\.(ts|mts|mjs)$/.test(f) && !f.endsWith('.d.ts'));

/** Static import and re-export specifiers of a file (module-level `import ... from`, `export ... from`, `import '...'`). */
function specifiers(src: string): string[] {
  const out: string[] = [];
  const re = /^\s*(?:import|export)\s(?:[^'";]*?\sfrom\s)?\s*['"]([^'"]+)['"]/gm;
  for (let m = re.exec(src); m !== null; m = re.exec(src)) out.push(m[1]!);
  return out;
}

/** Repository paths each source file imports (relative specifiers only). */
const edges: { from: string; to: string }[] = SOURCES.flatMap((f) => specifiers(readFileSync(join(ROOT, f), 'utf8'))
  .filter((s) => s.startsWith('.'))
  .map((s) => ({ from: f, to: relative(ROOT, resolve(ROOT, dirname(f), s)) })));

/** The rules: files under `from` must not import anything under any of `not` (unless under `except`). */
const RULES: { from: string; not: string[]; except?: string[]; why: string }[] = [
  { from: 'shared/', not: ['server/', 'client-sim/', 'web/'], why: 'shared/ runs in the browser, on the server and in audits alike' },
  { from: 'shared/matchlog/', not: ['shared/audit/', 'shared/client/'], why: "the log's codec sits below the replay" },
  { from: 'server/matchlog/', not: ['server/audit/', 'server/behaviour/', 'server/arena/'], why: "the room's log writer knows no audit" },
  { from: 'server/match/', not: ['server/audit/', 'server/behaviour/', 'server/arena/', 'server/ops/'], why: 'hitreg/server is the public server entry' },
  { from: 'server/audit/', not: ['server/behaviour/', 'server/arena/'], why: 'the integrity audit knows no behaviour measure' },
  { from: 'server/', not: ['client-sim/'], except: ['server/behaviour/synth/'], why: 'only the synthetic players borrow the human model' },
  { from: 'server/', not: ['server/behaviour/'], except: ['server/behaviour/', 'server/evidence/'], why: 'the behaviour science is the top layer, but for the evidence kept of it' },
  {
    from: 'server/', not: ['server/evidence/'], except: ['server/evidence/', 'server/behaviour/cli.ts', 'server/behaviour/synth/detectCli.ts', 'server/ops/auditQueue.ts', 'server/ops/review.ts'],
    why: 'the evidence store is above the audit: only the audit command line (--store), detect --labels, the enqueuer of closed logs and the review page\'s loader reach it',
  },
];

describe('one-way layers', () => {
  it('finds the imports it checks', () => {
    expect(SOURCES.length).toBeGreaterThan(150);
    expect(edges.some((e) => e.from === 'server/behaviour/audit.ts' && e.to === 'server/audit/audit')).toBe(true);
  });

  for (const rule of RULES) {
    it(`${rule.from} imports nothing of ${rule.not.join(', ')}${rule.except ? ` (but ${rule.except.join(', ')})` : ''}: ${rule.why}`, () => {
      const bad = edges.filter((e) => e.from.startsWith(rule.from) && !(rule.except ?? []).some((x) => e.from.startsWith(x)) && rule.not.some((n) => e.to.startsWith(n)));
      expect(bad.map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
    });
  }
});
