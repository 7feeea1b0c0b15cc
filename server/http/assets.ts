/**
 * What the game server serves over plain HTTP beside the room: the world's bytes and the rig's by
 * content hash (`/assets/world/<hash>.hrwb`, `/assets/rig/<hash>.hrrg`: ETag = the hash, cached as
 * immutable, so a client fetches each level once however often it joins) and, when it has been
 * built (`npm run build` writes dist/web/), the browser client at `/`.
 *
 * Every response is computed once: bodies are held in memory and gzipped on first request (off the
 * event loop, zlib's thread pool), so a request costs a map look-up and a write. Only GET and HEAD
 * reach these routes (server/ops/limits.ts routes them before Colyseus sees the request).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { gzip } from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { World } from '../../shared/world/world';
import type { Rig } from '../../shared/rig/rig';
import { rigDataToBuffer } from '../../shared/rig/rigBinary';
import { rigAssetPath, worldAssetPath } from '../../shared/protocol/messages';
import type { RouteHandler } from '../ops/limits';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.glb': 'model/gltf-binary',
  '.hrwb': 'application/octet-stream',
  '.hrrg': 'application/octet-stream',
  '.hrml': 'application/octet-stream',
};

/** Below this a body is sent as it is (gzip would not pay for its header and the CPU). */
const GZIP_MIN_BYTES = 1024;

interface Body {
  bytes: Uint8Array;
  type: string;
  etag: string;
  cache: string;
  gz: Promise<Uint8Array> | null;
}

function gzipped(body: Body): Promise<Uint8Array> {
  body.gz ??= new Promise((resolve, reject) => gzip(body.bytes, { level: 6 }, (e, out) => (e ? reject(e) : resolve(out))));
  return body.gz;
}

function handlerFor(body: Body): RouteHandler {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const headers: Record<string, string | number> = {
      'content-type': body.type, etag: body.etag, 'cache-control': body.cache, vary: 'accept-encoding',
      // The page and the assets are fetched from the same origin; a page elsewhere may fetch the assets too.
      'access-control-allow-origin': '*',
    };
    const inm = req.headers['if-none-match'];
    if (inm !== undefined && inm.split(',').some((t) => t.trim() === body.etag || t.trim() === `W/${body.etag}`)) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    let bytes = body.bytes;
    const accepts = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    if (accepts && bytes.length >= GZIP_MIN_BYTES) {
      bytes = await gzipped(body);
      headers['content-encoding'] = 'gzip';
    }
    headers['content-length'] = bytes.length;
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : bytes);
  };
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The world and rig routes, by content hash. */
export function assetRoutes(world: World, rig: Rig, rigBytes?: Uint8Array): Map<string, RouteHandler> {
  const routes = new Map<string, RouteHandler>();
  const worldBody: Body = { bytes: new Uint8Array(world.toBuffer()), type: TYPES['.hrwb']!, etag: `"${world.hash}"`, cache: IMMUTABLE, gz: null };
  routes.set(worldAssetPath(world.hash), handlerFor(worldBody));
  const rigBody: Body = { bytes: rigBytes ?? rigDataToBufferOf(rig), type: TYPES['.hrrg']!, etag: `"${rig.hash}"`, cache: IMMUTABLE, gz: null };
  routes.set(rigAssetPath(rig.hash), handlerFor(rigBody));
  return routes;
}

function rigDataToBufferOf(rig: Rig): Uint8Array {
  if (rig.data === undefined) throw new Error(`assetRoutes: rig ${rig.hash} carries no shipped data (not made by loadRig); pass its bytes (rigDataToBuffer(data))`);
  return rigDataToBuffer(rig.data);
}

/**
 * The built browser client under `dir` (dist/web): every file at its path, `/` as index.html, but
 * review.html (the review page's routes serve it at /review/).
 * Vite names its bundles by content (static/), so those are immutable; the page itself is revalidated.
 * Returns an empty map when the client has not been built.
 */
export function webRoutes(dir: string): Map<string, RouteHandler> {
  const routes = new Map<string, RouteHandler>();
  if (!existsSync(join(dir, 'index.html'))) return routes;
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        walk(p);
        continue;
      }
      const rel = '/' + relative(dir, p).split('\\').join('/');
      // The review page is served under /review/, behind the monitor's password (server/evidence/review/).
      if (rel === '/review.html') continue;
      const bytes = readFileSync(p);
      const hashed = rel.startsWith('/static/');
      const body: Body = {
        bytes, type: TYPES[extname(p)] ?? 'application/octet-stream',
        etag: `"${statSync(p).mtimeMs.toString(36)}-${bytes.length.toString(36)}"`,
        cache: hashed ? IMMUTABLE : 'no-cache', gz: null,
      };
      routes.set(rel, handlerFor(body));
      if (rel === '/index.html') routes.set('/', handlerFor(body));
    }
  };
  walk(dir);
  return routes;
}
