/**
 * An evidence store for the review page's tests, filled the way an operator fills one: one real
 * synthetic match (server/behaviour/synth, slot 1 aiming silently), three distinct copies of it
 * (test/bench/fleetLogs.ts: other room and player ids, so three log ids) in a directory, audited
 * by `npm run audit -- <dir> --store <file>` run in this process. `alice` aims silently in the
 * first two copies (slot 1) and plays honestly in the third (slot 2); `<img>` is an id a page must
 * show as text.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { vi } from 'vitest';
import { loadWorld, DEFAULT_LEVEL_PATH } from '../../server/level/gltf';
import { synthesizeMatch } from '../../server/behaviour/synth/synthMatch';
import { Behaviour } from '../../client-sim/human/profiles';
import { main as auditCli } from '../../server/behaviour/cli';
import { closeAuditWorkers } from '../../server/behaviour/audit';
import { distinctCopy } from '../bench/fleetLogs';

/** Player ids by slot in each copy (slot 0's verified). */
export const REVIEW_COPIES = [
  ['bobby', 'alice', 'carla', '<img>'],
  ['carla', 'alice', 'bobby', 'ernie'],
  ['carla', 'ernie', 'alice', '<img>'],
] as const;

export interface ReviewStore {
  /** The SQLite file. */
  store: string;
  /** The logs audited into it, by copy. */
  logs: string[];
}

/** Fills `<dir>/evidence.sqlite` from three logs under `<dir>/logs`; resolves when the audit has recorded them. */
export async function fillReviewStore(dir: string): Promise<ReviewStore> {
  const base = join(dir, 'base.hrml');
  const world = await loadWorld();
  await synthesizeMatch({
    world, levelPath: DEFAULT_LEVEL_PATH, path: base, seed: 7, players: 4, durationS: 20, cheats: { 1: Behaviour.SILENT_AIM }, strength: 1,
    identities: [0, 1, 2, 3].map((slot) => ({ slot, playerId: 'xxxxx', verified: slot === 0 })),
  });
  const bytes = new Uint8Array(readFileSync(base));
  const logDir = join(dir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const logs = REVIEW_COPIES.map((ids, j) => {
    const path = join(logDir, `match-${j + 1}.hrml`);
    writeFileSync(path, distinctCopy(bytes, j + 1, (slot) => ids[slot]!));
    return path;
  });
  const store = join(dir, 'evidence.sqlite');
  const lines: string[] = [];
  const spy = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => { lines.push(a.join(' ')); });
  try {
    const code = await auditCli([logDir, '--store', store, '--workers', '1']);
    const summary = lines.find((l) => l.startsWith('store ')) ?? '(no store line)';
    if (code !== 0 || !/: 3 recorded, 0 already there, 0 not evidence$/.test(summary)) throw new Error(`the audit did not record the three logs (exit ${code}): ${summary}`);
  } finally {
    spy.mockRestore();
    await closeAuditWorkers();
  }
  return { store, logs };
}
