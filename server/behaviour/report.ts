/**
 * The audit's self-contained HTML report: a per-player table (counts, ratios, flags), and inline
 * SVG plots: a top-down map of the level with every shot segment coloured by verdict and the
 * bullet holes, a histogram of rewind depth, and a timeline of hits and rejections per player; per
 * player flagged for behaviour, the offending shots (time, measure, evidence), each linked to its
 * segment on the map and its mark on the timeline (SVG element ids, highlighted when targeted);
 * optionally the detection numbers (detectReport.ts); above all, where and why a log that ends early
 * ends (shared/audit/logEnd.ts). No scripts, no external files: the page can be
 * mailed or attached to a ticket as it is.
 */
import { VerdictKind, reasonName } from '../../shared/validate/verdict';
import { HIT_ZONE_NAMES } from '../../shared/rig/rig';
import type { PlayerReport } from './flags';
import { detectionSection, type DetectionSummary } from './synth/detectReport';

/** One shot as the report draws it. */
export interface ReportShot {
  index: number;
  shooter: number;
  seq: number;
  receivedMs: number;
  kind: number;
  reason: number;
  zone: number;
  target: number;
  rewindDepthMs: number;
  /** Segment start/stop (NaN for malformed shots: not drawn). */
  sx: number; sy: number; sz: number; ex: number; ey: number; ez: number;
  /** Deciding hit point (hit or bullet hole); `holed` when it is a world hit (bullet hole). */
  px: number; py: number; pz: number;
  holed: boolean;
}

export interface ReportMismatch {
  index: number;
  offset: number;
  shooter: number;
  seq: number;
  fields: { field: string; recorded: number | boolean; replayed: number | boolean }[];
}

export interface ReportInput {
  logPath: string;
  header: Record<string, unknown>;
  summary: Record<string, string | number | boolean>;
  problems: string[];
  /** Where and why a log that ends early ends (null or absent: closed by its end record). */
  ends?: string | null;
  players: PlayerReport[];
  shots: ReportShot[];
  mismatches: ReportMismatch[];
  rewindWindowMs: number;
  /** Level triangles (9 numbers each) for the map; may be decimated by the caller. */
  triangles: ArrayLike<number>;
  triangleCount: number;
  /** Detection numbers to show above the match (npm run detect). */
  detection?: DetectionSummary;
  /**
   * The match-log viewer's address (e.g. http://localhost:2567/replay.html): each shot on the map,
   * each mismatch and each shot of a flagged player then links to it (`?shot=<player>:<seq>`).
   */
  replayUrl?: string;
}

/** Shot ordinals some flagged player's behaviour points at (always drawn, with anchors). */
function offendingShots(players: PlayerReport[]): Set<number> {
  const out = new Set<number>();
  for (const p of players) {
    for (const o of p.behaviour?.offending ?? []) out.add(o.shot);
    for (const o of p.backdatedShots) out.add(o.shot);
  }
  return out;
}

/** The viewer link of one shot, or '' without a viewer address. */
function replayHref(input: ReportInput, shooter: number, seq: number): string {
  if (!input.replayUrl) return '';
  return `${input.replayUrl}${input.replayUrl.includes('?') ? '&' : '?'}shot=${shooter}:${seq}&logName=${encodeURIComponent(input.logPath.split(/[\\/]/).pop() ?? '')}`;
}

const COLORS: Record<number, string> = { [VerdictKind.HIT]: '#1a9850', [VerdictKind.MISS]: '#8c8c8c', [VerdictKind.REJECTED]: '#d73027' };
const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const f1 = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : '');
const f2 = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : '');

/** Top-down (x right, z down) map: the level's walls and floors, shot segments, bullet holes. */
function mapSvg(input: ReportInput, maxSegments = 20_000, maxTriangles = 30_000): string {
  const tris = input.triangles;
  let minX = Infinity, maxX = -Infinity, minZ = Infinity, maxZ = -Infinity;
  for (let i = 0; i < input.triangleCount * 9; i += 3) {
    const x = tris[i]!, z = tris[i + 2]!;
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (z < minZ) minZ = z;
    if (z > maxZ) maxZ = z;
  }
  if (!(minX < maxX)) { minX = -50; maxX = 50; minZ = -50; maxZ = 50; }
  const w = 900;
  const scale = w / Math.max(maxX - minX, maxZ - minZ);
  const h = Math.ceil((maxZ - minZ) * scale);
  const X = (x: number) => ((x - minX) * scale).toFixed(1);
  const Z = (z: number) => ((z - minZ) * scale).toFixed(1);
  // Steep triangles are walls: drawn dark; the rest are floors/ramps: drawn light.
  let walls = '';
  let floors = '';
  // Big levels: every k-th triangle keeps the page light (the map is for orientation, not survey).
  const step = Math.max(1, Math.ceil(input.triangleCount / maxTriangles));
  for (let t = 0; t < input.triangleCount; t += step) {
    const o = t * 9;
    const ax = tris[o]!, ay = tris[o + 1]!, az = tris[o + 2]!, bx = tris[o + 3]!, by = tris[o + 4]!, bz = tris[o + 5]!, cx = tris[o + 6]!, cy = tris[o + 7]!, cz = tris[o + 8]!;
    const ux = bx - ax, uy = by - ay, uz = bz - az, vx = cx - ax, vy = cy - ay, vz = cz - az;
    const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    const d = `M${X(ax)} ${Z(az)}L${X(bx)} ${Z(bz)}L${X(cx)} ${Z(cz)}Z`;
    if (ny * ny < 0.5 * (nx * nx + ny * ny + nz * nz)) walls += d;
    else floors += d;
  }
  let segs = '';
  let holes = '';
  let marked = '';
  let drawn = 0;
  const offending = offendingShots(input.players);
  for (const s of input.shots) {
    if (!Number.isFinite(s.sx + s.sz + s.ex + s.ez)) continue;
    const mark = offending.has(s.index);
    if (!mark && drawn++ >= maxSegments) continue;
    // Draw up to the deciding hit when there is one, so the map shows where shots stopped.
    const stopX = s.kind === VerdictKind.HIT || s.holed ? s.px : s.ex;
    const stopZ = s.kind === VerdictKind.HIT || s.holed ? s.pz : s.ez;
    const seg = `<path d="M${X(s.sx)} ${Z(s.sz)}L${X(stopX)} ${Z(stopZ)}" stroke="${COLORS[s.kind] ?? '#000'}"${mark ? ` id="shot-${s.index}"` : ''}><title>#${s.index} player ${s.shooter} seq ${s.seq}: ${esc(reasonName(s.reason))}</title></path>`;
    const href = replayHref(input, s.shooter, s.seq);
    const path = href ? `<a href="${esc(href)}">${seg}</a>` : seg;
    if (mark) marked += path;
    else segs += path;
    if (s.holed && s.kind !== VerdictKind.HIT) holes += `<circle cx="${X(s.px)}" cy="${Z(s.pz)}" r="1.6"/>`;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" class="map">
<path d="${floors}" fill="#eef0f3" stroke="#d5d9e0" stroke-width="0.3"/>
<path d="${walls}" fill="#555" stroke="#333" stroke-width="0.5"/>
<g stroke-width="0.7" stroke-opacity="0.55" fill="none">${segs}</g>
<g stroke-width="1.6" stroke-opacity="0.9" fill="none" class="offending">${marked}</g>
<g fill="#000">${holes}</g>
</svg>`;
}

function histogramSvg(input: ReportInput): string {
  const binMs = 10;
  const maxMs = Math.max(input.rewindWindowMs + 2 * binMs, 50);
  const bins = new Array<number>(Math.ceil(maxMs / binMs)).fill(0);
  for (const s of input.shots) {
    if (!Number.isFinite(s.rewindDepthMs)) continue;
    const b = Math.min(bins.length - 1, Math.max(0, Math.floor(s.rewindDepthMs / binMs)));
    bins[b]!++;
  }
  const top = Math.max(1, ...bins);
  const W = 600, H = 200, bw = W / bins.length;
  let bars = '';
  bins.forEach((n, i) => {
    const bh = (n / top) * (H - 20);
    bars += `<rect x="${(i * bw).toFixed(1)}" y="${(H - 20 - bh).toFixed(1)}" width="${(bw - 1).toFixed(1)}" height="${bh.toFixed(1)}"><title>${i * binMs}-${(i + 1) * binMs} ms: ${n} shots</title></rect>`;
  });
  const wx = (input.rewindWindowMs / (bins.length * binMs)) * W;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}">
<g fill="#4575b4">${bars}</g>
<line x1="${wx.toFixed(1)}" x2="${wx.toFixed(1)}" y1="0" y2="${H - 20}" stroke="#d73027" stroke-dasharray="4 3"/>
<text x="${(wx + 4).toFixed(1)}" y="12" font-size="11" fill="#d73027">window ${input.rewindWindowMs} ms</text>
<text x="0" y="${H - 4}" font-size="11">0 ms</text><text x="${W - 60}" y="${H - 4}" font-size="11">${bins.length * binMs} ms</text>
</svg>`;
}

function timelineSvg(input: ReportInput): string {
  const players = input.players.map((p) => p.player);
  const row = new Map(players.map((p, i) => [p, i]));
  let t0 = Infinity, t1 = -Infinity;
  for (const s of input.shots) {
    if (s.receivedMs < t0) t0 = s.receivedMs;
    if (s.receivedMs > t1) t1 = s.receivedMs;
  }
  if (!(t1 > t0)) t1 = t0 + 1;
  const W = 900, RH = 16, L = 70;
  const H = players.length * RH + 24;
  let marks = '';
  const offending = offendingShots(input.players);
  for (const s of input.shots) {
    const mark = offending.has(s.index);
    if (s.kind === VerdictKind.MISS && !mark) continue;
    const y = (row.get(s.shooter) ?? 0) * RH + RH / 2;
    const x = L + ((s.receivedMs - t0) / (t1 - t0)) * (W - L - 10);
    const title = `<title>${((s.receivedMs - t0) / 1000).toFixed(2)} s player ${s.shooter}: ${esc(reasonName(s.reason))}${mark ? ' (offending)' : ''}</title>`;
    marks += mark
      ? `<rect id="tl-${s.index}" x="${(x - 1).toFixed(1)}" y="${(y - 7).toFixed(1)}" width="3" height="14" fill="#fdae61" stroke="#000" stroke-width="0.5">${title}</rect>`
      : `<rect x="${x.toFixed(1)}" y="${(y - 5).toFixed(1)}" width="2" height="10" fill="${COLORS[s.kind]}">${title}</rect>`;
  }
  const labels = players.map((p, i) => `<text x="0" y="${i * RH + RH / 2 + 4}" font-size="11">player ${p}</text>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}">${labels}${marks}
<text x="${L}" y="${H - 4}" font-size="11">0 s</text><text x="${W - 60}" y="${H - 4}" font-size="11">${((t1 - t0) / 1000).toFixed(1)} s</text></svg>`;
}

function playerTable(players: PlayerReport[]): string {
  const rows = players.map((p) => {
    const reasons = Object.entries(p.byReason).filter(([k]) => k !== 'OK_HIT' && k !== 'OK_MISS').map(([k, n]) => `${esc(k)} ${n}`).join(', ');
    const flags = p.flags.map((f) => `<li><b>${esc(f.rule)}</b>: ${esc(f.detail)}</li>`).join('');
    return `<tr class="${p.flags.length ? 'flagged' : ''}"><td>${p.player}</td><td>${p.shots}</td><td>${p.hits}</td><td>${p.misses}</td><td>${p.rejected}</td>
<td>${p.hits ? f1((100 * p.headshots) / p.hits) + '%' : ''}</td><td>${p.hits ? f1((100 * p.edgeHits) / p.hits) + '%' : ''}</td>
<td>${f1(p.medianReactionMs)}</td><td>${p.snapHits}</td><td>${p.behaviour ? (p.behaviour.flagged ? `<a href="#player-${p.player}">${f1(p.behaviour.score)}</a>` : f1(p.behaviour.score)) : ''}</td><td>${p.shots ? f1((100 * p.overruled) / p.shots) + '%' : ''}</td><td>${reasons}</td><td>${flags ? `<ul>${flags}</ul>` : 'none'}</td></tr>`;
  });
  return `<table><thead><tr><th>player</th><th>shots</th><th>hits</th><th>misses</th><th>rejected</th><th>head %</th><th>window edge %</th><th>median reaction ms</th><th>snap hits</th><th>behaviour score</th><th>time overruled</th><th>rejections by reason</th><th>flags</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>`;
}

/** The first shot's receive time (0 without shots): the report's times count from it. */
function firstShotMs(input: ReportInput): number {
  let t0 = Infinity;
  for (const s of input.shots) if (s.receivedMs < t0) t0 = s.receivedMs;
  return t0 < Infinity ? t0 : 0;
}

/** Per player flagged for behaviour: the measures and the offending shots, linked to the map and timeline. */
function behaviourSection(input: ReportInput): string {
  const t0 = firstShotMs(input);
  const parts: string[] = [];
  for (const p of input.players) {
    const b = p.behaviour;
    if (b === null || !b.flagged) continue;
    const measures = b.measures.map((m) => `<tr><td>${esc(m.name)}</td><td>${m.events}</td><td>${m.stat === m.stat ? f1(m.stat) : `${m.beyond} beyond`}</td><td>${f1(m.median)}</td><td>${m.p < 1e-3 ? m.p.toExponential(1) : f2(m.p)}</td></tr>`).join('');
    const rows = b.offending.slice(0, 200).map((o) => `<tr><td>${((o.timeMs - t0) / 1000).toFixed(2)} s</td><td>#${o.shot}</td><td>${esc(o.measure)}</td><td>${f1(o.value)} ${esc(o.unit)} (honest threshold ${f1(o.threshold)})</td><td><a href="#shot-${o.shot}">map</a> <a href="#tl-${o.shot}">timeline</a></td></tr>`).join('');
    parts.push(`<h3 id="player-${p.player}">Player ${p.player}: behaviour score ${f1(b.score)}</h3>
<table><thead><tr><th>measure</th><th>events</th><th>beyond / statistic</th><th>median</th><th>honest tail p</th></tr></thead><tbody>${measures}</tbody></table>
<table><thead><tr><th>time</th><th>shot</th><th>reason</th><th>evidence</th><th>where</th></tr></thead><tbody>${rows}</tbody></table>${b.offending.length > 200 ? `<p>${b.offending.length - 200} more offending shots not listed.</p>` : ''}`);
  }
  return parts.length > 0 ? parts.join('\n') : '<p>No player flagged for behaviour.</p>';
}

/** Per player flagged for backdated claims: those shots, linked to the map and timeline. */
function backdatedSection(input: ReportInput): string {
  const t0 = firstShotMs(input);
  const parts: string[] = [];
  for (const p of input.players) {
    if (p.backdatedShots.length === 0) continue;
    const rows = p.backdatedShots.slice(0, 200).map((o) => `<tr><td>${((o.timeMs - t0) / 1000).toFixed(2)} s</td><td>#${o.shot}</td><td>claimed ${f1(o.aheadMs)} ms before an input the room had already stepped</td><td><a href="#shot-${o.shot}">map</a> <a href="#tl-${o.shot}">timeline</a></td></tr>`).join('');
    parts.push(`<h3>Player ${p.player}: ${p.backdated} backdated shots</h3>
<table><thead><tr><th>time</th><th>shot</th><th>evidence</th><th>where</th></tr></thead><tbody>${rows}</tbody></table>${p.backdatedShots.length > 200 ? `<p>${p.backdatedShots.length - 200} more not listed.</p>` : ''}`);
  }
  return parts.length > 0 ? `<h2>Backdated claims</h2>\n${parts.join('\n')}` : '';
}

/** Links a seq cell to the viewer when there is one. */
function seqCell(input: ReportInput, shooter: number, seq: number): string {
  const href = replayHref(input, shooter, seq);
  return href ? `<a href="${esc(href)}">${seq}</a>` : String(seq);
}

/** The rejected shots and hits of flagged players, each linking to the viewer (only with a viewer address). */
function flaggedShots(input: ReportInput): string {
  if (!input.replayUrl) return '';
  const flagged = new Set(input.players.filter((p) => p.flags.length > 0).map((p) => p.player));
  const list = input.shots.filter((s) => flagged.has(s.shooter) && s.kind !== VerdictKind.MISS).slice(0, 500);
  if (list.length === 0) return '';
  const rows = list.map((s) => `<tr><td>${s.shooter}</td><td>${seqCell(input, s.shooter, s.seq)}</td><td>${f1(s.receivedMs / 1000)}</td><td>${esc(reasonName(s.reason))}</td><td>${s.kind === VerdictKind.HIT ? `${s.target} ${esc(HIT_ZONE_NAMES[s.zone] ?? '')}` : ''}</td></tr>`);
  return `<h2>Shots of flagged players</h2><p>Each seq opens the shot in the match-log viewer (open this log there).</p><table><thead><tr><th>player</th><th>seq</th><th>s</th><th>verdict</th><th>target</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function mismatchTable(input: ReportInput): string {
  const list = input.mismatches;
  if (list.length === 0) return '<p>None: every verdict replayed bit for bit.</p>';
  const rows = list.slice(0, 500).map((m) => `<tr><td>${m.index}</td><td>${m.offset}</td><td>${m.shooter}</td><td>${seqCell(input, m.shooter, m.seq)}</td><td>${m.fields.map((f) => `${esc(f.field)}: ${esc(f.recorded)} &rarr; ${esc(f.replayed)}`).join('<br>')}</td></tr>`);
  return `<table><thead><tr><th>shot</th><th>byte offset</th><th>shooter</th><th>seq</th><th>recorded &rarr; replayed</th></tr></thead><tbody>${rows.join('')}</tbody></table>${list.length > 500 ? `<p>${list.length - 500} more not shown (see --json).</p>` : ''}`;
}

/** Renders the whole page. */
export function renderHtmlReport(input: ReportInput): string {
  const summary = Object.entries(input.summary).map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join('');
  const problems = input.problems.length ? `<ul class="problems">${input.problems.map((p) => `<li>${esc(p)}</li>`).join('')}</ul>` : '';
  const ends = input.ends ? `<p class="ends"><b>This log ends early:</b> ${esc(input.ends)}. Everything below is about the records before that point.</p>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Match audit: ${esc(input.logPath)}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}
table{border-collapse:collapse;margin:8px 0 20px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}
tr.flagged{background:#fdecea}.problems li{color:#b00}ul{margin:0;padding-left:18px}.ends{background:#fff4e5;border-left:4px solid #e08000;padding:6px 10px}
svg{border:1px solid #ddd;background:#fff;display:block;margin:8px 0 20px}
path:target{stroke:#ff7f00;stroke-width:4;stroke-opacity:1}rect:target{fill:#ff7f00;stroke-width:2}.legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle}
</style></head><body>
<h1>Match audit</h1>
${ends}
<table>${summary}</table>
${problems}
${input.detection ? detectionSection(input.detection) : ''}
<h2>Players</h2>
${playerTable(input.players)}
<h2>Behaviour: offending shots</h2>
${behaviourSection(input)}
${backdatedSection(input)}
<h2>Verdict mismatches</h2>
${mismatchTable(input)}
${flaggedShots(input)}
<h2>Map (top-down)</h2>
<div class="legend"><span style="background:${COLORS[VerdictKind.HIT]}"></span>hit<span style="background:${COLORS[VerdictKind.MISS]}"></span>miss<span style="background:${COLORS[VerdictKind.REJECTED]}"></span>rejected<span style="background:#000;border-radius:6px"></span>bullet hole</div>
${mapSvg(input)}
<h2>Rewind depth (receive time minus rewound time)</h2>
${histogramSvg(input)}
<h2>Timeline of hits and rejections</h2>
${timelineSvg(input)}
<p>Hit zones: ${HIT_ZONE_NAMES.map((n, i) => `${i} ${esc(n)}`).join(', ')}.</p>
</body></html>
`;
}
