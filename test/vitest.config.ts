// Vitest configuration: tests live under test/, named after what they test.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: keep the pool small so socket tests and CPU-heavy property tests do not starve.
    maxWorkers: 2,
  },
});
