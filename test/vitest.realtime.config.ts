// Vitest configuration for the tests that measure wall-clock behaviour (tick rate seen by a client,
// simulated matches with bots, their audit): one file at a time, so nothing else competes for the
// two cores while they measure.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/realtime/**/*.test.ts'],
    globalSetup: ['test/globalSetup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    maxWorkers: 1,
  },
});
