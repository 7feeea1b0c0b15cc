/**
 * The Redis the tests may use (REDIS_URL, default redis://127.0.0.1:6379; they write only under a
 * key prefix of their own and delete it) and the check that says clearly when none answers.
 */
import { probeRedis } from '../../server/ops/scale';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Throws "this test needs Redis: ..." when no Redis answers at REDIS_URL. */
export async function needRedis(): Promise<void> {
  try {
    await probeRedis(REDIS_URL);
  } catch (e) {
    throw new Error(`this test needs Redis: ${(e as Error).message}`);
  }
}
