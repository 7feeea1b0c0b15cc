/**
 * The review tests' common setup: an evidence store filled from three audited logs
 * (./reviewStore.ts) in a temporary directory, a real game server serving the review page over it
 * behind the monitor's `password`, and a second connection to the same store file (what the server
 * wrote is read back through it). close() stops the server, closes the store and removes the directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EvidenceStore } from '../../server/evidence/store';
import { fillReviewStore, type ReviewStore } from './reviewStore';
import { startTestServer, type TestServer } from './server';

export interface ReviewFixture {
  dir: string;
  filled: ReviewStore;
  ts: TestServer;
  store: EvidenceStore;
  close(): Promise<void>;
}

export async function startReviewFixture(prefix: string, password: string): Promise<ReviewFixture> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let ts: TestServer | undefined;
  let store: EvidenceStore | undefined;
  const close = async () => {
    await ts?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const filled = await fillReviewStore(dir);
    ts = await startTestServer({ monitor: { password }, evidence: { store: filled.store } });
    store = await EvidenceStore.open(filled.store);
    return { dir, filled, ts, store, close };
  } catch (e) {
    await close();
    throw e;
  }
}
