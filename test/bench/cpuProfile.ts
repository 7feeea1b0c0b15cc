/**
 * Where a process's time went, from the V8 CPU profiles `node --cpu-prof` writes at exit: self time
 * per function (the samples in which it was the running frame), summed over every profile given,
 * as a share of all non-idle samples; and the same grouped into the parts of a game server
 * (npm packages by name, the project's code by function, V8's own GC and program entries).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
}

export interface ProfileEntry {
  name: string;
  /** Share of non-idle time, percent. */
  pct: number;
}

export interface ProfileSummary {
  /** Non-idle sampled time, ms (all profiles). */
  busyMs: number;
  functions: ProfileEntry[];
  parts: ProfileEntry[];
}

/** The part of the server a frame belongs to: an npm package, Node's internals, V8, or the project's own code. */
function partOf(url: string, fn: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  if (url === '') return fn.startsWith('(') ? fn : '(native)';
  return 'hitreg';
}

export function summarizeProfiles(paths: string[], top = 20): ProfileSummary {
  const byFn = new Map<string, number>();
  const byPart = new Map<string, number>();
  let busy = 0;
  for (const path of paths) {
    const p = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
    const nodes = new Map<number, ProfileNode>();
    for (const n of p.nodes) nodes.set(n.id, n);
    const selfUs = new Map<number, number>();
    const samples = p.samples ?? [];
    const deltas = p.timeDeltas ?? [];
    // Each sample's duration is the delta to the next sample.
    for (let i = 0; i < samples.length; i++) selfUs.set(samples[i]!, (selfUs.get(samples[i]!) ?? 0) + (deltas[i + 1] ?? 0));
    for (const [id, us] of selfUs) {
      const n = nodes.get(id)!;
      const fn = n.callFrame.functionName || '(anonymous)';
      if (fn === '(idle)') continue;
      const file = n.callFrame.url.replace(/^file:\/\/.*?\/(node_modules|dist|server|shared|client-sim)\//, '$1/');
      const key = `${fn} ${file}${file ? `:${n.callFrame.lineNumber + 1}` : ''}`;
      byFn.set(key, (byFn.get(key) ?? 0) + us);
      const part = partOf(n.callFrame.url, fn);
      byPart.set(part, (byPart.get(part) ?? 0) + us);
      busy += us;
    }
  }
  const list = (m: Map<string, number>): ProfileEntry[] => [...m.entries()]
    .sort((a, b) => b[1] - a[1]).slice(0, top)
    .map(([name, us]) => ({ name, pct: Math.round((1000 * us) / Math.max(busy, 1)) / 10 }));
  return { busyMs: Math.round(busy / 1000), functions: list(byFn), parts: list(byPart) };
}
