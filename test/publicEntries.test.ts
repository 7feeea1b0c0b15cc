/**
 * hitreg's own users stay on its public entries: the arena room (server/arena/) imports only
 * hitreg/server (server/match/index.ts), the browser entry (shared/index.ts), Colyseus and its own
 * folder; the web page only the browser entries; the team-room example only the package's names.
 * What they need, a studio's room can have too. And server/match/ reaches nothing of the arena.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Every module specifier imported or re-exported by the .ts files under `dir`, with the file. */
function imports(dir: string): { file: string; spec: string }[] {
  const out: { file: string; spec: string }[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules') walk(p);
      } else if (e.name.endsWith('.ts')) {
        const text = readFileSync(p, 'utf8');
        for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/g)) out.push({ file: relative(ROOT, p), spec: m[1]! });
        for (const m of text.matchAll(/import\('([^']+)'\)/g)) out.push({ file: relative(ROOT, p), spec: m[1]! });
      }
    }
  };
  walk(join(ROOT, dir));
  return out;
}

const outside = (list: { file: string; spec: string }[], allowed: (spec: string) => boolean) => list.filter((i) => !allowed(i.spec)).map((i) => `${i.file}: ${i.spec}`);

describe('public entries only', () => {
  it('the arena room: hitreg/server, hitreg, Colyseus, its own folder', () => {
    const list = imports('server/arena');
    expect(list.length).toBeGreaterThan(10);
    expect(outside(list, (s) => s === '../match/index' || s === '../../shared/index' || s.startsWith('@colyseus/') || /^\.\/[A-Za-z]+$/.test(s))).toEqual([]);
  });

  it('the web page: the browser entries (hitreg, hitreg/audit), three.js, the Colyseus SDK', () => {
    expect(outside(imports('web/src'), (s) => s === '../../shared/index' || s === '../../shared/audit/index' || s.startsWith('three') || s === '@colyseus/sdk' || /^\.\/[A-Za-z]+$/.test(s))).toEqual([]);
  });

  it('the team-room example: hitreg, hitreg/server, hitreg/audit by name', () => {
    const list = imports('examples/team-room/src');
    expect(list.map((i) => i.spec)).toEqual(expect.arrayContaining(['hitreg', 'hitreg/server', 'hitreg/audit']));
    expect(outside(list, (s) => ['hitreg', 'hitreg/server', 'hitreg/audit'].includes(s) || s.startsWith('@colyseus/') || s.startsWith('node:') || /^\.\/[A-Za-z]+\.js$/.test(s))).toEqual([]);
  });

  it('the server entry reaches nothing of the arena, the audit science or the operations code', () => {
    for (const dir of ['server/match', 'server/matchlog']) {
      expect(outside(imports(dir), (s) => s.startsWith('../../shared/') || s.startsWith('./') || s.startsWith('node:') || s === '../match/recorder' || s === '../matchlog/recorder' || s === '../matchlog/writer')).toEqual([]);
    }
  });
});
