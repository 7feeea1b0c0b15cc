/**
 * The detection numbers as an HTML section: the table of the share of cheating players flagged per
 * profile and strength, the false-positive rate on honest players, and an SVG plot of share
 * against strength (one line per profile, the target as a dashed line). Used by the audit report
 * when `npm run detect` writes its page.
 */

/** What the section needs of a detection run (detect.ts DetectionResult). */
export interface DetectionSummary {
  seed: number;
  players: number;
  seconds: number;
  /** Seconds per evaluation match (the calibration's `seconds` when absent). */
  evalSeconds?: number;
  honest: { players: number; flagged: number; rate: number };
  calibration: { source: string; scoreThreshold: number };
  defaultStrength: number;
  target: number;
  profiles: { profile: string; byStrength: Record<string, { flagged: number; players: number; share: number }>; meetsTarget: boolean; shortBy: number }[];
}

const PALETTE = ['#1b9e77', '#d95f02', '#7570b3', '#e7298a', '#66a61e', '#e6ab02', '#a6761d', '#666666'];
const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const pct = (x: number) => `${(100 * x).toFixed(0)}%`;

/** Share flagged against strength, one line per profile. */
export function detectionPlotSvg(d: DetectionSummary): string {
  const strengths = [...new Set(d.profiles.flatMap((p) => Object.keys(p.byStrength).map(Number)))].sort((a, b) => a - b);
  const W = 640, H = 320, L = 48, R = 150, T = 16, B = 40;
  const x = (s: number) => L + ((s - 0) / 1) * (W - L - R);
  const y = (v: number) => T + (1 - v) * (H - T - B);
  let grid = '';
  for (const v of [0, 0.25, 0.5, 0.75, 1]) {
    grid += `<line x1="${L}" x2="${W - R}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#eee"/><text x="${L - 6}" y="${(y(v) + 4).toFixed(1)}" font-size="11" text-anchor="end">${pct(v)}</text>`;
  }
  for (const s of strengths) grid += `<text x="${x(s).toFixed(1)}" y="${H - B + 16}" font-size="11" text-anchor="middle">${s}</text>`;
  grid += `<text x="${((L + W - R) / 2).toFixed(1)}" y="${H - 6}" font-size="11" text-anchor="middle">strength (0 = human, 1 = blatant)</text>`;
  grid += `<line x1="${L}" x2="${W - R}" y1="${y(d.target).toFixed(1)}" y2="${y(d.target).toFixed(1)}" stroke="#d73027" stroke-dasharray="5 4"/><text x="${W - R - 4}" y="${(y(d.target) - 4).toFixed(1)}" font-size="11" fill="#d73027" text-anchor="end">target ${pct(d.target)}</text>`;
  grid += `<line x1="${x(d.defaultStrength).toFixed(1)}" x2="${x(d.defaultStrength).toFixed(1)}" y1="${T}" y2="${H - B}" stroke="#999" stroke-dasharray="2 3"/>`;
  const hx = x(0);
  grid += `<circle cx="${hx.toFixed(1)}" cy="${y(d.honest.rate).toFixed(1)}" r="4" fill="#000"><title>honest players flagged: ${d.honest.flagged}/${d.honest.players}</title></circle><text x="${(hx + 6).toFixed(1)}" y="${(y(d.honest.rate) - 6).toFixed(1)}" font-size="11">honest ${pct(d.honest.rate)}</text>`;
  let lines = '';
  d.profiles.forEach((p, i) => {
    const c = PALETTE[i % PALETTE.length]!;
    const pts = strengths.filter((s) => p.byStrength[String(s)] !== undefined).map((s) => [x(s), y(p.byStrength[String(s)]!.share), s] as const);
    lines += `<polyline points="${pts.map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(' ')}" fill="none" stroke="${c}" stroke-width="2"/>`;
    for (const [a, b, s] of pts) {
      const cell = p.byStrength[String(s)]!;
      lines += `<circle cx="${a.toFixed(1)}" cy="${b.toFixed(1)}" r="3" fill="${c}"><title>${esc(p.profile)} at ${s}: ${cell.flagged}/${cell.players} flagged</title></circle>`;
    }
    lines += `<rect x="${W - R + 12}" y="${T + i * 18}" width="12" height="3" fill="${c}"/><text x="${W - R + 30}" y="${T + i * 18 + 5}" font-size="11">${esc(p.profile)}</text>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" id="detection-plot">${grid}${lines}</svg>`;
}

export function detectionSection(d: DetectionSummary): string {
  const strengths = [...new Set(d.profiles.flatMap((p) => Object.keys(p.byStrength)))].sort((a, b) => Number(b) - Number(a));
  const rows = d.profiles.map((p) => `<tr><td>${esc(p.profile)}</td>${strengths.map((s) => {
    const c = p.byStrength[s];
    return `<td>${c ? `${pct(c.share)} (${c.flagged}/${c.players})` : ''}</td>`;
  }).join('')}<td>${p.meetsTarget ? 'met' : `missed by ${(100 * p.shortBy).toFixed(0)} points`}</td></tr>`).join('');
  return `<h2>Detection</h2>
<p>Share of cheating players flagged for behaviour, by profile and strength, with thresholds calibrated on honest players only
(${esc(d.calibration.source)}; score threshold ${d.calibration.scoreThreshold.toFixed(2)}). False positives on held-out honest players:
${d.honest.flagged} of ${d.honest.players} (${(100 * d.honest.rate).toFixed(1)}%). Target: at least ${pct(d.target)} at strength ${d.defaultStrength}.
Evaluation: synthetic matches of ${d.players} players x ${d.evalSeconds ?? d.seconds} s, seed ${d.seed}.</p>
<table><thead><tr><th>profile</th>${strengths.map((s) => `<th>strength ${esc(s)}</th>`).join('')}<th>target at ${d.defaultStrength}</th></tr></thead><tbody>${rows}</tbody></table>
${detectionPlotSvg(d)}`;
}
