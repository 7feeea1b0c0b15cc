/**
 * Verdict math is bit-identical across JavaScript engines: the golden batch (test/golden/batch.ts:
 * seeded world queries, rewinds over the mannequin rig and validateShot calls) gives the committed
 * GOLDEN_HASH in Node from the sources, and in Chromium (Debian's, through playwright-core) and in
 * SpiderMonkey (Debian's gjs, when installed) from the built browser entry dist/lib/index.js.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import * as api from '../shared/index';
import { MANNEQUIN_RIG_PATH } from '../server/rig/paths';
import { goldenBatch, GOLDEN_HASH, type GoldenResult } from './golden/batch';
import { launchChromium } from './helpers/chromium';
import { DIST, GJS, runBatchInGjs, serveBatch } from './helpers/goldenEngines';


/** The batch as an ES module with no shared code in it (the page passes it the built entry). */

let node: GoldenResult;

describe('golden batch', () => {
  it('in Node, from the sources: the committed hash, with real hits in every part', () => {
    node = goldenBatch(api, new Uint8Array(readFileSync(MANNEQUIN_RIG_PATH)));
    console.log(`golden batch (node ${process.version}): ${JSON.stringify(node)}`);
    expect(node.worldHits).toBeGreaterThan(300);
    expect(node.rewindHits).toBeGreaterThan(300);
    expect(node.verdictHits).toBeGreaterThan(50);
    expect(node.verdictReasons).toBeGreaterThan(4);
    expect(node.pelletHits).toBeGreaterThan(200);
    expect(node.wallsPassed).toBeGreaterThan(50);
    expect(node.swingHits).toBeGreaterThan(50);
    expect(node.swings - node.swingHits).toBeGreaterThan(50);
    expect(node.hash).toBe(GOLDEN_HASH);
  });

  it('in Node, from the built browser entry and the rig asset: the same hash', async () => {
    const built = await import(join(DIST, 'index.js'));
    const rigBytes = new Uint8Array(readFileSync(join(DIST, 'assets', 'mannequin.hrrg')));
    expect(goldenBatch(built, rigBytes).hash).toBe(GOLDEN_HASH);
  });
});

describe('golden batch in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('the built entry in Chromium gives the committed hash', async () => {
    const page = await browser.newPage();
    await serveBatch(page, 'batch.ts');
    // A string, so the test runner's transform leaves the page's dynamic imports alone.
    const result = (await page.evaluate(`(async () => {
      const api = await import('/index.js');
      const { goldenBatch } = await import('/batch.js');
      const rig = new Uint8Array(await (await fetch('/assets/mannequin.hrrg')).arrayBuffer());
      return { ...goldenBatch(api, rig), ua: navigator.userAgent };
    })()`)) as GoldenResult & { ua: string };
    console.log(`golden batch (${result.ua.match(/Chrome\/[\d.]+/)?.[0]}): ${result.hash}`);
    expect(result.hash).toBe(GOLDEN_HASH);
    expect(result.numbers).toBe(node?.numbers ?? result.numbers);
    await page.close();
  });
});

describe.skipIf(GJS === undefined)('golden batch in SpiderMonkey (gjs)', () => {
  it('the built entry in gjs gives the committed hash', async () => {
    const result = await runBatchInGjs<GoldenResult>('batch.ts', 'goldenBatch');
    console.log(`golden batch (gjs): ${result.hash}`);
    expect(result.hash).toBe(GOLDEN_HASH);
  });
});
