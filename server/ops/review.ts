/**
 * The game server's review page (optional, off by default; EVIDENCE_STORE in server/ops/env.ts):
 * the evidence store opened and the review routes (server/evidence/review/) mounted under /review/,
 * behind the monitor's password, so there is no review page without one. The store's modules (and
 * node:sqlite or pg) are loaded only when it is on.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface EvidenceOptions {
  /** The evidence store: a SQLite file path or a postgres:// URL. */
  store: string;
}

export interface ReviewMount {
  /** The request is the review page's. */
  owns(path: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Where the store is (password hidden). */
  where: string;
  close(): Promise<void>;
}

/** Opens the store and builds the routes; throws when there is no monitor password or the store cannot be opened. */
export async function openReview(options: EvidenceOptions, password: string | null, webDir: string | false): Promise<ReviewMount> {
  if (password === null) throw new Error('evidence.store serves the review page at /review/ behind the monitor\'s password: also give monitor: { password } (MONITOR_PASSWORD)');
  if (typeof options.store !== 'string' || options.store.trim() === '') throw new Error('evidence.store: give a SQLite file path or a postgres:// URL');
  const [{ EvidenceStore }, { ReviewRoutes }] = await Promise.all([import('../evidence/store'), import('../evidence/review/routes')]);
  const store = await EvidenceStore.open(options.store);
  const routes = new ReviewRoutes({ store, password, webDir });
  return { owns: (path) => ReviewRoutes.owns(path), handle: (req, res) => routes.handle(req, res), where: store.where, close: () => store.close() };
}
