// Vitest configuration: tests live under test/, named after what they test. The tests that drive
// Chromium run as a second group, after every other file: software WebGL takes a core, and the
// tests that measure tick rates and clocks must not share the machine with it.
import { defineConfig } from 'vitest/config';

const BROWSER = ['test/webClient.test.ts', 'test/determinism.test.ts', 'test/replayViewer.test.ts'];

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    globalSetup: ['test/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: keep the pool small so socket tests and CPU-heavy property tests do not starve.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'node', include: ['test/**/*.test.ts'], exclude: BROWSER, sequence: { groupOrder: 0 } } },
      // One file at a time: two Chromiums rendering in software would starve each other on two cores.
      { extends: true, test: { name: 'browser', include: BROWSER, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
