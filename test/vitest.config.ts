// Vitest configuration: tests live under test/, named after what they test. Tests that measure
// wall-clock behaviour of real servers and bots (test/realtime/) run after these, alone, with
// vitest.realtime.config.ts: a CPU-heavy property test in the other worker would skew what they
// measure.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/**/*.test.ts'],
    exclude: ['test/realtime/**', '**/node_modules/**'],
    globalSetup: ['test/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: keep the pool small so socket tests and CPU-heavy property tests do not starve.
    maxWorkers: 2,
  },
});
