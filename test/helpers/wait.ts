/**
 * Waiting in tests: on a condition, polled with a generous overall bound, never for a fixed time (a
 * loaded machine runs everything late, so a fixed sleep either wastes time or is too short).
 * `sleep` remains for pacing what a client or a writer produces, where no assertion counts on it.
 */

/** Resolves after `ms`: only for pacing, never to wait for something to happen. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `test` every 10 ms (after each answer, when it is async) until it holds, for conditions no
 * event announces (server-side state, a file's size, a store's keys); rejects after timeoutMs.
 */
export async function waitFor(test: () => boolean | Promise<boolean>, what = 'condition', timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await test())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}
