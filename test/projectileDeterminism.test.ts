/**
 * Projectile math is bit-identical across JavaScript engines: the projectile golden batch
 * (test/golden/projectileBatch.ts: flights, bounces, catch-up and blasts among rewound players)
 * gives the committed PROJECTILE_GOLDEN_HASH in Node from the sources and from the built browser
 * entry dist/lib/index.js, in Chromium and in SpiderMonkey (gjs, when installed).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as api from '../shared/index';
import { MANNEQUIN_RIG_PATH } from '../server/rig/paths';
import { projectileBatch, PROJECTILE_GOLDEN_HASH, type ProjectileGoldenResult } from './golden/projectileBatch';
import { launchChromium } from './helpers/chromium';
import { DIST, GJS, runBatchInGjs, serveBatch } from './helpers/goldenEngines';



describe('projectile golden batch', () => {
  it('in Node, from the sources and from the built entry: the committed hash, with every kind of event', async () => {
    const node = projectileBatch(api, new Uint8Array(readFileSync(MANNEQUIN_RIG_PATH)));
    console.log(`projectile batch (node ${process.version}): ${JSON.stringify(node)}`);
    expect(node.playerImpacts).toBeGreaterThan(10);
    expect(node.levelImpacts).toBeGreaterThan(10);
    expect(node.fuses).toBeGreaterThan(10);
    expect(node.bounces).toBeGreaterThan(50);
    expect(node.victims).toBeGreaterThan(20);
    expect(node.shielded).toBeGreaterThan(0);
    expect(node.hash).toBe(PROJECTILE_GOLDEN_HASH);
    const built = await import(join(DIST, 'index.js'));
    expect(projectileBatch(built, new Uint8Array(readFileSync(join(DIST, 'assets', 'mannequin.hrrg')))).hash).toBe(PROJECTILE_GOLDEN_HASH);
  });

  it('the built entry in Chromium gives the committed hash', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await serveBatch(page, 'projectileBatch.ts');
      const result = (await page.evaluate(`(async () => {
        const api = await import('/index.js');
        const { projectileBatch } = await import('/batch.js');
        const rig = new Uint8Array(await (await fetch('/assets/mannequin.hrrg')).arrayBuffer());
        return projectileBatch(api, rig);
      })()`)) as ProjectileGoldenResult;
      console.log(`projectile batch (Chromium): ${result.hash}`);
      expect(result.hash).toBe(PROJECTILE_GOLDEN_HASH);
    } finally {
      await browser.close();
    }
  });

  it.skipIf(GJS === undefined)('the built entry in gjs gives the committed hash', async () => {
    const result = await runBatchInGjs<ProjectileGoldenResult>('projectileBatch.ts', 'projectileBatch');
    console.log(`projectile batch (gjs): ${result.hash}`);
    expect(result.hash).toBe(PROJECTILE_GOLDEN_HASH);
  });
});
