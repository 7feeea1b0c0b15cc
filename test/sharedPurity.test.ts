// shared/ runs unchanged in the browser and on the server, and verdicts computed there must be
// bit-identical in every JavaScript engine. This test reads every source file under shared/ and
// fails on: imports of Node modules, Colyseus or the DOM; use of window/document/Date/performance/
// process; and Math functions whose results ECMAScript leaves implementation-defined (sin, cos,
// pow, log, ...; the ** operator is Math.pow's twin). Comments are stripped first, and string
// contents are blanked for the identifier checks (module specifiers are read before that).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url).pathname;
const SHARED = join(ROOT, 'shared');
const SOURCE = /\.(ts|mts|cts|tsx|js|mjs|cjs|jsx)$/;

const FORBIDDEN_MODULES = new Set([
  'fs', 'path', 'os', 'crypto', 'worker_threads', 'child_process', 'net', 'http', 'https', 'http2', 'dgram',
  'tls', 'cluster', 'perf_hooks', 'process', 'v8', 'vm', 'zlib', 'stream', 'buffer', 'events', 'util', 'url',
  'readline', 'module', 'async_hooks', 'timers', 'dns', 'inspector', 'ws', 'colyseus', 'colyseus.js',
]);
const FORBIDDEN_GLOBALS = ['window', 'document', 'Date', 'performance', 'process', 'navigator', 'globalThis',
  'self', 'requestAnimationFrame', 'setTimeout', 'setInterval'];
const FORBIDDEN_MATH = ['sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'atan2', 'pow', 'exp', 'expm1', 'log',
  'log2', 'log10', 'log1p', 'hypot', 'random', 'sinh', 'cosh', 'tanh', 'asinh', 'acosh', 'atanh', 'cbrt'];

/**
 * Removes // and block comments. With `blankStrings`, also replaces the contents of '...', "..." and
 * `...` literals by spaces (template ${...} parts are kept as code). Regular expression literals are
 * rare in shared/ and are treated as code.
 */
export function stripSource(src: string, blankStrings: boolean): string {
  let out = '';
  let i = 0;
  const n = src.length;
  // Nesting of code and template-literal text: `a ${ b } c` is template, code, template.
  // For code frames, the number of open braces inside that frame.
  const stack: { template: boolean; depth: number }[] = [{ template: false, depth: 0 }];
  const blank = (ch: string) => (blankStrings && ch !== '\n' ? ' ' : ch);
  while (i < n) {
    const top = stack[stack.length - 1];
    const c = src[i];
    const d = src[i + 1];
    if (top.template) {
      if (c === '\\') {
        out += blank(c) + blank(d ?? '');
        i += 2;
      } else if (c === '`') {
        out += c;
        i++;
        stack.pop();
      } else if (c === '$' && d === '{') {
        out += '${';
        i += 2;
        stack.push({ template: false, depth: 0 });
      } else {
        out += blank(c);
        i++;
      }
      continue;
    }
    if (c === '/' && d === '/') {
      while (i < n && src[i] !== '\n') i++;
    } else if (c === '/' && d === '*') {
      i += 2;
      while (i < n && !(src[i] === '*' && src[i + 1] === '/')) {
        if (src[i] === '\n') out += '\n';
        i++;
      }
      i += 2;
    } else if (c === '"' || c === "'") {
      out += c;
      i++;
      while (i < n && src[i] !== c && src[i] !== '\n') {
        if (src[i] === '\\') {
          out += blank(src[i]) + blank(src[i + 1] ?? '');
          i += 2;
        } else {
          out += blank(src[i]);
          i++;
        }
      }
      out += c;
      i++;
    } else if (c === '`') {
      out += c;
      i++;
      stack.push({ template: true, depth: 0 });
    } else if (c === '{') {
      top.depth++;
      out += c;
      i++;
    } else if (c === '}' && top.depth === 0 && stack.length > 1) {
      // End of a ${ ... } part: back to the template text.
      out += c;
      i++;
      stack.pop();
    } else {
      if (c === '}') top.depth--;
      out += c;
      i++;
    }
  }
  return out;
}

/** Every violation in one file's source, as human-readable lines with a line number. */
export function violations(src: string): string[] {
  const found: string[] = [];
  const code = stripSource(src, false);
  const bare = stripSource(src, true);
  const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;
  const specifier = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)(['"`])([^'"`]+)\1/g;
  for (const m of code.matchAll(specifier)) {
    const spec = m[2];
    const base = spec.split('/')[0];
    if (spec.startsWith('node:') || FORBIDDEN_MODULES.has(base) || spec.startsWith('@colyseus/')) {
      found.push(`line ${lineOf(code, m.index!)}: imports '${spec}' (Node, Colyseus or I/O: move it to server/ or client-sim/)`);
    }
  }
  for (const name of FORBIDDEN_GLOBALS) {
    const re = new RegExp(`(?<![.\\w$])${name}(?![\\w$])`, 'g');
    for (const m of bare.matchAll(re)) {
      // Object keys and type-only property names (`{ process: ... }`) are not uses of the global.
      if (/^\s*:/.test(bare.slice(m.index! + name.length)) && /[{,]\s*$/.test(bare.slice(0, m.index!))) continue;
      found.push(`line ${lineOf(bare, m.index!)}: uses '${name}' (no DOM, clock or process in shared/: pass values in)`);
    }
  }
  for (const m of bare.matchAll(/\bMath\s*\.\s*([A-Za-z0-9_$]+)/g)) {
    if (FORBIDDEN_MATH.includes(m[1])) {
      found.push(`line ${lineOf(bare, m.index!)}: calls Math.${m[1]} (engine-dependent result: use + - * / and Math.sqrt)`);
    }
  }
  for (const m of bare.matchAll(/\bMath\b(?!\s*\.)/g)) {
    found.push(`line ${lineOf(bare, m.index!)}: uses Math other than Math.member (aliasing hides what is called)`);
  }
  for (const m of bare.matchAll(/\*\*/g)) {
    found.push(`line ${lineOf(bare, m.index!)}: uses ** (Math.pow: engine-dependent; multiply instead)`);
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) files.push(...sourceFiles(full));
    else if (SOURCE.test(entry)) files.push(full);
  }
  return files;
}

describe('shared/ purity', () => {
  it('the scanner catches each kind of violation and ignores comments and strings', () => {
    expect(violations(`import { readFileSync } from 'node:fs';`)).toHaveLength(1);
    expect(violations(`import path from "path";`)).toHaveLength(1);
    expect(violations(`import { Room } from '@colyseus/core';`)).toHaveLength(1);
    expect(violations(`const w = await import('worker_threads');`)).toHaveLength(1);
    expect(violations(`const c = require('crypto');`)).toHaveLength(1);
    expect(violations(`const now = Date.now();`)).toHaveLength(1);
    expect(violations(`const t = performance.now();`)).toHaveLength(1);
    expect(violations(`if (typeof window !== 'undefined') {}`)).toHaveLength(1);
    expect(violations(`document.body;`)).toHaveLength(1);
    expect(violations(`const e = process.env.X;`)).toHaveLength(1);
    expect(violations(`const a = Math.atan2(y, x);`)).toHaveLength(1);
    expect(violations(`const a = Math . pow(y, 2);`)).toHaveLength(1);
    expect(violations(`const r = Math.random();`)).toHaveLength(1);
    expect(violations(`const { sin } = Math;`)).toHaveLength(1);
    expect(violations(`const s = x ** 2;`)).toHaveLength(1);
    // Allowed: comments, strings, exact Math functions, member names that merely look alike.
    expect(violations(`// Math.sin is not used here; see Date and process\nconst a = Math.sqrt(2);`)).toEqual([]);
    expect(violations(`/* import fs from 'fs' */ const m = Math.min(Math.abs(a), Math.floor(b), Math.fround(c));`)).toEqual([]);
    expect(violations(`throw new Error('no window, no Date.now(), no Math.cos here');`)).toEqual([]);
    expect(violations('const s = `took ${dt} ticks, not a Date`;')).toEqual([]);
    expect(violations('const s = `${a ** 2}`;')).toHaveLength(1);
    expect(violations(`const o = { process: 1 }; o.process = 2; x.document = y;`)).toEqual([]);
    expect(violations(`import { hit } from '../kernels/hit';`)).toEqual([]);
  });

  it('no file under shared/ imports Node, Colyseus or the DOM, reads a clock, or calls engine-dependent Math', () => {
    const files = sourceFiles(SHARED);
    expect(files.length).toBeGreaterThan(0);
    const report: string[] = [];
    for (const file of files) {
      for (const v of violations(readFileSync(file, 'utf8'))) report.push(`${relative(ROOT, file)} ${v}`);
    }
    expect(report, report.join('\n')).toEqual([]);
  });
});
