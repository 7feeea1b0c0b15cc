/**
 * The plain-HTTP GET routes of one game server, by path, for the request gate (server/ops/limits.ts):
 * Prometheus text at /metrics (when metrics are on), the world and rig by content hash, and the
 * built web client at `/` and its files (assets.ts). A path taken by an earlier route keeps it.
 */
import type { World } from '../../shared/world/world';
import type { Rig } from '../../shared/rig/rig';
import type { RouteHandler } from '../ops/limits';
import type { ServerMetrics } from '../ops/metrics';
import { assetRoutes, webRoutes } from './assets';

export interface ServerRoutes {
  routes: Map<string, RouteHandler>;
  /** True when the web client is served at `/`. */
  webPage: boolean;
}

/** `webDir`: the built client's directory, or false for no page. */
export function serverRoutes(metrics: ServerMetrics | null, world: World, rig: Rig, webDir: string | false): ServerRoutes {
  const routes = new Map<string, RouteHandler>();
  if (metrics !== null) {
    routes.set('/metrics', async (_req, res) => {
      const body = await metrics.text();
      res.writeHead(200, { 'content-type': metrics.contentType, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  }
  // The world and rig by content hash (clients fetch them after the welcome), and the web client.
  for (const [path, handler] of assetRoutes(world, rig)) routes.set(path, handler);
  let webPage = false;
  if (webDir !== false) {
    for (const [path, handler] of webRoutes(webDir)) if (!routes.has(path)) routes.set(path, handler);
    webPage = routes.has('/');
  }
  return { routes, webPage };
}
