// Vitest configuration: tests live under test/, named after what they test. Tests that measure
// wall-clock behaviour of real servers and bots (test/realtime/) run after these, alone, with
// vitest.realtime.config.ts: a CPU-heavy property test in the other worker would skew what they
// measure. The tests that drive Chromium run here as a second group, after every other file and one
// at a time: software WebGL takes a core, and two Chromiums would starve each other on two cores.
import { defineConfig } from 'vitest/config';

const BROWSER = ['test/webClient.test.ts', 'test/webProjectiles.test.ts', 'test/determinism.test.ts', 'test/replayViewer.test.ts', 'test/reviewPage.test.ts', 'test/webFog.test.ts', 'test/fogFlightLog.test.ts'];
const EXCLUDE = ['test/realtime/**', '**/node_modules/**'];

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    globalSetup: ['test/globalSetup.ts'],
    // A limit for a test that hangs, not a speed check: the brute-force property tests take about
    // 20-40 s each on a quiet machine and over 60 s with the other core busy.
    testTimeout: 180_000,
    hookTimeout: 60_000,
    // Two cores: keep the pool small so socket tests and CPU-heavy property tests do not starve.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'node', include: ['test/**/*.test.ts'], exclude: [...EXCLUDE, ...BROWSER], sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'browser', include: BROWSER, exclude: EXCLUDE, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
