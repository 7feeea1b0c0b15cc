/**
 * The review page (web/review.html, served at /review/ behind the monitor's password): players
 * ranked by their score across matches (server/evidence/cross.ts: flagged against the threshold for
 * their number of matches first, then by the margin), each with that score and threshold; a player
 * opened shows its matches (log, date, score, flags, share in the score across matches), the
 * offending shots of each, linked to the replay
 * viewer at that log and shot, and the labels given so far; a reviewer labels the player cheater,
 * clean or unsure with a note. Everything comes from the JSON endpoints under review/api/
 * (server/evidence/review/routes.ts). Text from the store is set as text, never parsed as HTML.
 */

interface PlayerKey { playerId: string; verified: boolean }
type Label = 'cheater' | 'clean' | 'unsure';
interface RankedPlayer extends PlayerKey {
  matches: number; scoredMatches: number; score: number | null; threshold: number | null; margin: number | null; flagged: boolean; drivers: string[];
  flaggedMatches: number; maxScore: number | null; shots: number; offendingShots: number; otherCalibration: number; label: Label | null; note: string | null;
}
interface Cross { matches: number; score: number | null; threshold: number | null; flagged: boolean; drivers: { measure: string; score: number; z: number }[] }
interface LabelRecord extends PlayerKey { id: string; label: Label; reviewer: string; at: string; note: string | null }
interface Offending { slot: number; shot: number; timeMs: number | null; measure: string; value: number | null; threshold: number | null; unit: string }
interface Match {
  logId: string; path: string; roomId: string; startedAt: string; slot: number; shots: number; hits: number; headshots: number;
  score: number | null; flagged: boolean; flags: { rule: string; detail: string }[]; offendingShots: number;
  /** In the score across matches: its share of the drivers' z-scores; else why it is left out. */
  cross: { share: number } | { left: 'no-score' | 'no-tail-counts' | 'older' };
  /** The log's bytes (relative to the site's root) when the server reaches the file, else null. */
  log: string | null;
  offending: Offending[];
}
interface PlayerDetail { player: PlayerKey; cross: Cross; matches: Match[]; labels: LabelRecord[] }

const LABELS: Label[] = ['cheater', 'clean', 'unsure'];
/** Offending shots listed per match at most (the rest counted). */
const SHOTS_SHOWN = 50;
const REVIEWER_KEY = 'hitreg-review-reviewer';

type Child = Node | string | null;
function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<Record<string, string>> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) if (v !== undefined) e.setAttribute(k, v);
  for (const c of children) if (c !== null) e.append(c);
  return e;
}

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const num = (x: number | null, digits = 2): string => (x === null ? '-' : x.toFixed(digits));
const who = (p: PlayerKey): string => `${p.playerId} (${p.verified ? 'verified' : 'self-named'})`;

function showStatus(text: string, error = false): void {
  const s = $('status');
  s.textContent = text;
  s.className = error ? 'error' : '';
}

/** A JSON endpoint under review/api/; throws with the server's reason on an error status. */
async function api<T>(path: string, init?: RequestInit): Promise<T> {
  const r = await fetch(`review/api/${path}`, { credentials: 'same-origin', ...init });
  const body = (await r.json().catch(() => ({}))) as { error?: string };
  if (!r.ok) throw new Error(`${r.status}: ${body.error ?? r.statusText}`);
  return body as T;
}

const playerPath = (p: PlayerKey): string => `player/${encodeURIComponent(p.playerId)}?verified=${p.verified}`;

function labelText(label: Label | null): HTMLElement {
  return el('span', { class: label === null ? 'muted' : `label-${label}` }, label ?? 'none');
}

async function loadPlayers(): Promise<void> {
  const data = await api<{ store: string; ranking: string; players: RankedPlayer[] }>('players');
  $('source').textContent = `store ${data.store}; ranking: ${data.ranking}`;
  const body = $('players').querySelector('tbody')!;
  body.replaceChildren();
  data.players.forEach((p, i) => {
    const open = el('button', { type: 'button', class: 'open' }, 'open');
    const row = el('tr', { class: 'player', 'data-player': p.playerId, 'data-verified': String(p.verified) },
      el('td', { class: 'n' }, String(i + 1)), el('td', {}, p.playerId), el('td', { class: 'muted' }, p.verified ? 'verified' : 'self-named'),
      el('td', { class: 'n matches', ...(p.note !== null ? { title: p.note } : {}) }, `${p.scoredMatches}/${p.matches}`, p.note !== null ? el('span', { class: 'muted' }, ' *') : null),
      el('td', { class: `n score${p.flagged ? ' flagged' : ''}` }, num(p.score)), el('td', { class: 'n threshold' }, num(p.threshold)),
      el('td', { class: `flag${p.flagged ? ' flagged' : ''}` }, p.score === null ? '-' : p.flagged ? 'flagged' : 'no'),
      el('td', { class: 'muted' }, p.drivers.join(', ') || '-'),
      el('td', { class: `n${p.flaggedMatches > 0 ? ' flagged' : ''}` }, String(p.flaggedMatches)), el('td', { class: 'n' }, num(p.maxScore)),
      el('td', { class: 'n' }, String(p.shots)), el('td', { class: 'label' }, labelText(p.label)), el('td', {}, open));
    body.append(row);
    open.onclick = () => toggle(p, row, open);
  });
  showStatus(data.players.length === 0 ? 'the store holds no player yet' : `${data.players.length} players`);
}

/** Opens (or closes) a player's detail under its row. */
function toggle(p: PlayerKey, row: HTMLTableRowElement, button: HTMLButtonElement): void {
  const next = row.nextElementSibling;
  if (next !== null && next.classList.contains('detail-row')) {
    next.remove();
    button.textContent = 'open';
    return;
  }
  const cell = el('td', { class: 'detail', colspan: '13' }, 'loading ...');
  row.after(el('tr', { class: 'detail-row' }, cell));
  button.textContent = 'close';
  showPlayer(p, row, cell).catch((e: unknown) => { cell.textContent = `could not load ${who(p)}: ${(e as Error).message}`; });
}

async function showPlayer(p: PlayerKey, row: HTMLTableRowElement, cell: HTMLElement): Promise<void> {
  const d = await api<PlayerDetail>(playerPath(p));
  cell.replaceChildren(el('h2', {}, `${who(d.player)}: ${d.matches.length} matches`), crossLine(d.cross), matchesTable(d.matches));
  for (const m of d.matches) if (m.offending.length > 0) cell.append(offendingList(m));
  cell.append(el('h2', {}, 'labels'), labelsList(d.labels), labelForm(p, row, cell));
}

/** The player's score across matches against its threshold, and the measures behind it. */
function crossLine(c: Cross): HTMLElement {
  if (c.score === null) return el('p', { class: 'cross muted' }, 'no match the score across matches can read');
  const drivers = c.drivers.map((d) => `${d.measure} ${num(d.score)} (z ${num(d.z)})`).join(', ') || 'none';
  return el('p', { class: 'cross' }, `across ${c.matches} matches: score ${num(c.score)}, threshold ${num(c.threshold)}: `,
    el('span', { class: c.flagged ? 'flagged' : 'muted' }, c.flagged ? 'flagged' : 'not flagged'), `; measures behind it: ${drivers}`);
}

const LEFT_OUT: Record<string, string> = { 'no-score': 'not scored', 'no-tail-counts': 'no tail counts (recorded before migration 2)', older: 'older than the latest scored' };

function matchesTable(matches: Match[]): HTMLElement {
  const rows = matches.map((m) => el('tr', { class: 'match', 'data-log': m.logId },
    el('td', {}, m.startedAt.replace('T', ' ').slice(0, 19) || '-'),
    el('td', { title: m.logId }, m.logId.slice(0, 12)),
    el('td', {}, m.path, m.log === null ? el('span', { class: 'muted' }, ' (not on this server)') : null),
    el('td', { class: 'n' }, String(m.slot)),
    el('td', { class: 'n' }, `${m.hits}/${m.shots}`),
    el('td', { class: `n${m.flagged ? ' flagged' : ''}` }, num(m.score)),
    el('td', {}, m.flags.length === 0 ? '-' : m.flags.map((f) => `${f.rule}: ${f.detail}`).join('; ')),
    el('td', { class: 'n' }, String(m.offendingShots)),
    'share' in m.cross ? el('td', { class: 'n' }, num(m.cross.share)) : el('td', { class: 'muted' }, LEFT_OUT[m.cross.left] ?? m.cross.left)));
  const heads = ['started', 'log id', 'path', 'slot', 'hits/shots', 'score', 'flags', 'offending', 'share across (z)'];
  return el('table', {}, el('thead', {}, el('tr', {}, ...heads.map((h) => el('th', {}, h)))), el('tbody', {}, ...rows));
}

/** A match's offending shots, one line per shot (its measures together), each linked to the viewer. */
function offendingList(m: Match): HTMLElement {
  const byShot = new Map<number, Offending[]>();
  for (const o of m.offending) byShot.set(o.shot, [...(byShot.get(o.shot) ?? []), o]);
  const shots = [...byShot.entries()];
  const items = shots.slice(0, SHOTS_SHOWN).map(([shot, list]) => {
    const what = list.map((o) => `${o.measure} ${num(o.value)} ${o.unit} (honest threshold ${num(o.threshold)})`).join('; ');
    const link = m.log === null ? el('span', { class: 'muted' }, 'log not on this server')
      : el('a', { class: 'replay', href: `replay.html?log=${encodeURIComponent(m.log)}&index=${shot}`, target: '_blank', rel: 'noopener', 'data-shot': String(shot) }, 'replay');
    return el('li', { class: 'offending' }, `shot #${shot}: ${what} `, link);
  });
  const more = shots.length > SHOTS_SHOWN ? el('li', { class: 'muted' }, `${shots.length - SHOTS_SHOWN} more shots not listed`) : null;
  return el('div', {}, el('h2', {}, `offending shots in ${m.logId.slice(0, 12)} (${m.roomId || 'no room id'})`), el('ul', {}, ...items, more));
}

function labelsList(labels: LabelRecord[]): HTMLElement {
  if (labels.length === 0) return el('p', { class: 'muted labels' }, 'no label yet');
  return el('ul', { class: 'labels' }, ...labels.map((l) => el('li', { class: 'past-label' },
    `${l.at} `, labelText(l.label), ` by ${l.reviewer}`, l.note !== null ? `: ${l.note}` : '')));
}

function labelForm(p: PlayerKey, row: HTMLTableRowElement, cell: HTMLElement): HTMLElement {
  const choices = LABELS.map((l) => el('label', {}, el('input', { type: 'radio', name: 'label', value: l }), ` ${l} `));
  const note = el('textarea', { name: 'note', maxlength: '2000', placeholder: 'note (optional)' });
  const form = el('form', { class: 'label' }, ...choices, el('br'), note, el('br'), el('button', { type: 'submit' }, 'save label'));
  form.onsubmit = (e) => {
    e.preventDefault();
    const chosen = form.querySelector<HTMLInputElement>('input[name=label]:checked');
    if (chosen === null) {
      showStatus('choose cheater, clean or unsure first', true);
      return;
    }
    const reviewer = $<HTMLInputElement>('reviewer').value.trim();
    localStorage.setItem(REVIEWER_KEY, reviewer);
    const body = JSON.stringify({ playerId: p.playerId, verified: p.verified, label: chosen.value, note: note.value, reviewer });
    api<{ label: LabelRecord }>('label', { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      .then(async ({ label }) => {
        showStatus(`labelled ${who(p)} ${label.label} by ${label.reviewer} at ${label.at}`);
        row.querySelector('td.label')!.replaceChildren(labelText(label.label));
        await showPlayer(p, row, cell);
      })
      .catch((err: unknown) => showStatus(`label not saved: ${(err as Error).message}`, true));
  };
  return form;
}

$<HTMLInputElement>('reviewer').value = localStorage.getItem(REVIEWER_KEY) ?? '';
loadPlayers().catch((e: unknown) => showStatus(`could not load the players: ${(e as Error).message}`, true));

// A module (its names stay out of the page's globals).
export {};
