/**
 * The review page's HTTP side, under /review/, every request behind HTTP basic auth (user `admin`,
 * the monitor's password): the page (the built web/review.html), the JSON endpoints over the
 * evidence store, and each match log's bytes for the replay viewer. The game server mounts it when
 * a store is configured (server/ops/review.ts); `npm run review` (./cli.ts) serves it alone.
 *
 *   GET  /review/                              the page
 *   GET  /review/api/players?limit=N           players ranked by their score across matches (../cross.ts)
 *   GET  /review/api/player/<id>?verified=B    one player: its score across matches, matches, offending shots, labels
 *   POST /review/api/label                     { playerId, verified, label, note?, reviewer? } -> 201
 *   GET  /review/log/<log id>.hrml             the log's bytes, read from the path the store keeps
 *
 * A label is written only when the whole body checks out (./input.ts), the player is in the store
 * and the request comes from this origin as JSON; otherwise a 4xx with its reason and nothing
 * written. A log is served only when the file at its path still hashes to the log id.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_CROSS_CALIBRATION_URL, loadCrossCalibration, type CrossMatchCalibration } from '../../behaviour/crossCalibration';
import { crossHorizon, crossOfMatches, rankByCrossMatch, whyUnscored } from '../cross';
import type { EvidenceStore } from '../store';
import { labelFrom, playerKeyFrom, rankLimitFrom } from './input';

export const REVIEW_PREFIX = '/review/';
/** The basic-auth user, as for the monitor. */
export const REVIEW_USER = 'admin';
/** The monitor's realm (@colyseus/core basicAuth's default), so a browser signed in to one is to the other. */
const REALM = 'Restricted';
/** Largest request body read when nothing read it before (the game server's request gate does). */
const MAX_BODY_BYTES = 16 * 1024;
/** Largest log served to the viewer. */
const MAX_LOG_BYTES = 1 << 30;
const LOG_PATH = /^\/review\/log\/([0-9a-f]{64})\.hrml$/;
const PLAYER_PATH = /^\/review\/api\/player\/([^/]+)$/;

export interface ReviewOptions {
  store: EvidenceStore;
  /** The password of user `admin`. */
  password: string;
  /** The built web client (dist/web) holding review.html; false: no page, the endpoints only. */
  webDir: string | false;
  /** The calibration of the score across matches (default the shipped server/behaviour/crossCalibration.json). */
  crossCalibration?: CrossMatchCalibration;
}

type Answer = { status: number; body: unknown; headers?: Record<string, string> };
const err = (status: number, error: string, headers?: Record<string, string>): Answer => ({ status, body: { error }, ...(headers ? { headers } : {}) });

const SECURITY_HEADERS = { 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'referrer-policy': 'same-origin' };
const PAGE_CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'self'; form-action 'none'";

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

export class ReviewRoutes {
  private readonly passwordDigest: Buffer;
  private readonly userDigest = digest(REVIEW_USER);
  private readonly page: Buffer | null;
  private readonly cal: CrossMatchCalibration;

  constructor(private readonly options: ReviewOptions) {
    this.passwordDigest = digest(options.password);
    this.cal = options.crossCalibration ?? loadCrossCalibration(DEFAULT_CROSS_CALIBRATION_URL);
    this.page = options.webDir === false ? null : readOptional(join(options.webDir, 'review.html'));
  }

  /** The request is the review page's (under /review/, or /review itself). */
  static owns(path: string): boolean {
    return path === '/review' || path.startsWith(REVIEW_PREFIX);
  }

  /** The basic-auth user when the request carries the right password, else null. */
  private user(req: IncomingMessage): string | null {
    const h = req.headers.authorization;
    if (typeof h !== 'string' || !/^basic /i.test(h)) return null;
    const decoded = Buffer.from(h.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return null;
    const userOk = timingSafeEqual(digest(decoded.slice(0, colon)), this.userDigest);
    const passOk = timingSafeEqual(digest(decoded.slice(colon + 1)), this.passwordDigest);
    return userOk && passOk ? REVIEW_USER : null;
  }

  /** Answers one request under /review (never throws; a store that fails is a 503). */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
    const method = req.method ?? 'GET';
    const user = this.user(req);
    if (user === null) {
      req.resume();
      send(res, method, err(401, 'authentication required', { 'www-authenticate': `Basic realm="${REALM}", charset="UTF-8"` }));
      return;
    }
    try {
      if (path === '/review') return send(res, method, { status: 301, body: { error: 'moved to /review/' }, headers: { location: '/review/' } });
      if (method === 'POST' && path === '/review/api/label') return send(res, method, await this.label(req, user));
      if (method !== 'GET' && method !== 'HEAD') {
        req.resume();
        return send(res, method, err(405, `${method.slice(0, 16)} is not served here`, { allow: path === '/review/api/label' ? 'POST' : 'GET, HEAD' }));
      }
      if (path === '/review/') return this.sendPage(res, method);
      if (path === '/review/api/players') return send(res, method, await this.players(query));
      const player = PLAYER_PATH.exec(path);
      if (player !== null) return send(res, method, await this.player(player[1]!, query));
      const log = LOG_PATH.exec(path);
      if (log !== null) return await this.sendLog(res, method, log[1]!);
      if (path === '/review/api/label') return send(res, method, err(405, 'POST a label here', { allow: 'POST' }));
      send(res, method, err(404, 'nothing here: see /review/'));
    } catch (e) {
      send(res, method, err(503, `the evidence store did not answer: ${String((e as Error)?.message ?? e).split('\n', 1)[0]}`));
    }
  }

  private async players(query: URLSearchParams): Promise<Answer> {
    const limit = rankLimitFrom(query.get('limit'));
    if (!limit.ok) return err(400, limit.reason);
    const players = await rankByCrossMatch(this.options.store, this.cal, { limit: limit.value });
    const { source, fpTarget, thresholds } = this.cal;
    return { status: 200, body: { store: this.options.store.where, ranking: rankingText(this.cal), calibration: { source, fpTarget, horizon: crossHorizon(this.cal), thresholds }, players } };
  }

  private async player(encodedId: string, query: URLSearchParams): Promise<Answer> {
    const key = playerKeyFrom(encodedId, query.get('verified'));
    if (!key.ok) return err(400, key.reason);
    const { store } = this.options;
    const matches = await store.playerMatches(key.value);
    if (matches.length === 0) return err(404, 'no such player in the evidence store');
    const offending = await store.offendingShots(key.value);
    const reachable = new Map<string, boolean>();
    for (const m of matches) if (!reachable.has(m.logId)) reachable.set(m.logId, await isFile(m.path));
    const cross = crossOfMatches(matches, this.cal);
    const share = new Map(cross.byMatch.map((b) => [b.match, b.z]));
    return {
      status: 200,
      body: {
        player: key.value,
        cross: { matches: cross.matches, score: cross.matches > 0 ? cross.score : null, threshold: cross.matches > 0 ? cross.threshold : null, flagged: cross.flagged, drivers: cross.drivers.map((d) => ({ measure: d.measure, score: d.score, z: d.z })), ruleFlags: cross.ruleFlags },
        matches: matches.map((m) => ({
          ...m,
          // In the score across matches: its share of the drivers' z-scores; else why not (unscored, or older than the latest scored).
          cross: share.has(m.logId) ? { share: share.get(m.logId)! } : { left: whyUnscored(m) ?? 'older' },
          // Relative to the site's root: the page and the viewer resolve it there.
          log: reachable.get(m.logId) === true ? `review/log/${m.logId}.hrml` : null,
          offending: offending.filter((o) => o.logId === m.logId && o.slot === m.slot).map(({ logId: _, ...o }) => o),
        })),
        labels: await store.labels(key.value),
      },
    };
  }

  private async label(req: IncomingMessage, user: string): Promise<Answer> {
    const type = String(req.headers['content-type'] ?? '');
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      req.resume();
      return err(415, 'send the label as application/json');
    }
    const cross = crossOrigin(req);
    if (cross !== null) {
      req.resume();
      return err(403, cross);
    }
    const body = await bodyOf(req);
    if (body === null) return err(413, `the body is over ${MAX_BODY_BYTES} bytes`, { connection: 'close' });
    const input = labelFrom(body);
    if (!input.ok) return err(400, input.reason);
    const { playerId, verified, label, note, reviewer } = input.value;
    if (!(await this.options.store.hasPlayer({ playerId, verified }))) return err(404, 'no such player in the evidence store');
    const record = await this.options.store.addLabel({ playerId, verified, label, note, reviewer: reviewer ?? user });
    return { status: 201, body: { label: record } };
  }

  private sendPage(res: ServerResponse, method: string): void {
    if (this.page === null) return send(res, method, err(503, 'the review page is not built: run npm run build (the JSON endpoints under /review/api/ work)'));
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8', 'content-length': this.page.length, 'cache-control': 'no-cache', 'content-security-policy': PAGE_CSP });
    res.end(method === 'HEAD' ? undefined : this.page);
  }

  private async sendLog(res: ServerResponse, method: string, logId: string): Promise<void> {
    const path = await this.options.store.matchPath(logId);
    if (path === null) return send(res, method, err(404, 'no such match in the evidence store'));
    const file = resolve(path);
    const st = await stat(file).catch(() => null);
    if (st === null || !st.isFile()) return send(res, method, err(404, `the log is not on this server at ${file}`));
    if (st.size > MAX_LOG_BYTES) return send(res, method, err(413, `the log is over ${MAX_LOG_BYTES} bytes`));
    const bytes = await readFile(file).catch(() => null);
    if (bytes === null) return send(res, method, err(404, `the log at ${file} cannot be read`));
    if (createHash('sha256').update(bytes).digest('hex') !== logId) return send(res, method, err(409, `the file at ${file} is no longer the log that was audited (its bytes hash otherwise)`));
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'application/octet-stream', 'content-length': bytes.length, 'cache-control': 'private, max-age=3600' });
    res.end(method === 'HEAD' ? undefined : bytes);
  }
}

/** How the players are ranked, in words (the answer's `ranking`). */
export function rankingText(cal: CrossMatchCalibration): string {
  const k = crossHorizon(cal);
  return `by the score across each player's matches (its latest ${k} with behaviour measures; npm run detect -- --matches): `
    + `flagged first (the score at its threshold for that many matches, set so that ${100 * cal.fpTarget}% of honest players are flagged at any of their first ${k}), then by the score minus its threshold`;
}

function send(res: ServerResponse, method: string, a: Answer): void {
  const text = JSON.stringify(a.body);
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(a.status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store', ...a.headers });
  res.end(method === 'HEAD' ? undefined : text);
}

function readOptional(file: string): Buffer | null {
  try {
    return readFileSync(file);
  } catch {
    return null;
  }
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(resolve(path)).catch(() => null))?.isFile() === true;
}

/**
 * Why a state-changing request is refused as coming from another site, or null: a browser sends
 * Sec-Fetch-Site and Origin with a POST, and both must say this origin (a form elsewhere cannot
 * POST application/json without a preflight, which nothing here answers).
 */
function crossOrigin(req: IncomingMessage): string | null {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `a ${String(site)} request may not label players`;
  const origin = req.headers.origin;
  if (origin === undefined) return null;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return 'the Origin header is not a URL';
  }
  return host === req.headers.host ? null : `a request from ${origin.slice(0, 100)} may not label players`;
}

/** The request's body: what the request gate read (`req.body`), else read here; null past MAX_BODY_BYTES. */
async function bodyOf(req: IncomingMessage): Promise<string | null> {
  const read = (req as IncomingMessage & { body?: unknown }).body;
  if (typeof read === 'string') return read;
  return new Promise((done) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      // Past the cap: answered at once, the rest read and dropped (the answer closes the connection).
      if (size > MAX_BODY_BYTES) done(null);
      else chunks.push(c);
    });
    req.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => done(null));
  });
}
