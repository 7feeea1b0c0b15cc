/**
 * `npm run review -- [--store file.sqlite|postgres://...] [--port N] [--host H] [--password P] [--level level.glb]`:
 * the review page (./routes.ts) on a server of its own, without a game server, and prints its URL.
 * Beside /review/ it serves what the replay viewer needs: the built web client (dist/web:
 * /replay.html and its files) and the world and rig by content hash (the default level or --level,
 * the RIG setting's rig), so an offending shot's link opens in the viewer here too.
 *
 * The store defaults to DATABASE_URL, else ./evidence.sqlite; the password to --password, else
 * MONITOR_PASSWORD, else a random one printed with the URL (user `admin`). It listens on 127.0.0.1
 * unless --host says otherwise. Exit codes: 0 after SIGINT/SIGTERM, 2 when it cannot start.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { assetRoutes, webRoutes } from '../../http/assets';
import { loadWorld, DEFAULT_LEVEL_PATH } from '../../level/gltf';
import { rigFromEnv } from '../../rig/rigFile';
import { MONITOR_PASSWORD_MIN_LENGTH } from '../../ops/ranges';
import type { RouteHandler } from '../../ops/limits';
import { hidePassword } from '../db';
import { defaultStoreTarget, EvidenceStore } from '../store';
import { ReviewRoutes, REVIEW_USER } from './routes';

const USAGE = 'usage: npm run review -- [--store file.sqlite|postgres://...] [--port N] [--host H] [--password P] [--level level.glb]';
/** Where `npm run build` writes the browser client. */
const WEB_DIR = fileURLToPath(new URL('../../../dist/web', import.meta.url));
export const DEFAULT_REVIEW_PORT = 2568;

export interface ReviewServerOptions {
  store: string;
  password: string;
  port?: number;
  host?: string;
  /** The level whose world the viewer fetches (default the server's default level). */
  level?: string;
  /** The built web client (default dist/web); false: the page and the viewer are not served. */
  webDir?: string | false;
}

export interface ReviewServer {
  url: string;
  port: number;
  store: EvidenceStore;
  close(): Promise<void>;
}

/** Opens the store, loads the world and rig, listens; resolves once it takes requests. */
export async function startReviewServer(o: ReviewServerOptions): Promise<ReviewServer> {
  if (o.password.length < MONITOR_PASSWORD_MIN_LENGTH) throw new Error(`the password: use at least ${MONITOR_PASSWORD_MIN_LENGTH} characters`);
  const webDir = o.webDir ?? WEB_DIR;
  const world = await loadWorld(o.level ?? DEFAULT_LEVEL_PATH);
  const rig = await rigFromEnv(process.env);
  const store = await EvidenceStore.open(o.store);
  const review = new ReviewRoutes({ store, password: o.password, webDir });
  const routes = new Map<string, RouteHandler>(assetRoutes(world, rig));
  if (webDir !== false) for (const [path, handler] of webRoutes(webDir)) if (!routes.has(path)) routes.set(path, handler);
  const server: Server = createServer((req, res) => {
    const url = req.url ?? '/';
    const path = url.split('?', 1)[0]!;
    const route = req.method === 'GET' || req.method === 'HEAD' ? routes.get(path) : undefined;
    const answer = ReviewRoutes.owns(path) ? review.handle(req, res) : route !== undefined ? route(req, res) : notFound(res);
    Promise.resolve(answer).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.requestTimeout = 15_000;
  server.headersTimeout = 10_000;
  const host = o.host ?? '127.0.0.1';
  try {
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(o.port ?? DEFAULT_REVIEW_PORT, host, () => {
        server.off('error', fail);
        done();
      });
    });
  } catch (e) {
    await store.close();
    throw e;
  }
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}/review/`, port, store,
    close: async () => {
      await new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      });
      await store.close();
    },
  };
}

function notFound(res: import('node:http').ServerResponse): void {
  res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
  res.end('not found: the review page is at /review/\n');
}

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let v: { store?: string; port?: string; host?: string; password?: string; level?: string };
  try {
    v = parseArgs({ args: argv, strict: true, options: { store: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' }, password: { type: 'string' }, level: { type: 'string' } } }).values;
  } catch (e) {
    console.error(`review: ${(e as Error).message.split('\n', 1)[0]}. ${USAGE}`);
    return 2;
  }
  const port = v.port === undefined ? DEFAULT_REVIEW_PORT : Number(v.port);
  if (!/^\d{1,5}$/.test(v.port ?? '0') || port > 65535) {
    console.error(`review: --port takes 0..65535 (0: any free port). ${USAGE}`);
    return 2;
  }
  const given = v.password ?? env.MONITOR_PASSWORD?.trim();
  const password = given || randomBytes(12).toString('base64url');
  const target = v.store ?? defaultStoreTarget(env);
  let running: ReviewServer;
  try {
    running = await startReviewServer({ store: target, password, port, ...(v.host !== undefined ? { host: v.host } : {}), ...(v.level !== undefined ? { level: v.level } : {}) });
  } catch (e) {
    console.error(`review: cannot start over ${hidePassword(target)}: ${(e as Error).message.split('\n', 1)[0]}`);
    return 2;
  }
  console.log(`review page ${running.url} (user ${REVIEW_USER}${given ? '' : `, password ${password}`}) over ${running.store.where}`);
  return new Promise<number>((done) => {
    const stop = (): void => {
      void running.close().then(() => done(0), () => done(1));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (invokedDirectly) {
  main(process.argv.slice(2)).then((code) => process.exit(code), (e: unknown) => {
    console.error(`review: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(2);
  });
}
