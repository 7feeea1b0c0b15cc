/**
 * The match-log viewer (`/replay.html`): open a .hrml (file button, drop, or `?log=<url>`), scrub
 * through the match, pick any shot to see its segment, the hitboxes the server rewound to (rebuilt
 * from the log), each pellet of a pull with the walls it passed (entry and exit holes) and its hits,
 * the verdict and its reason, and whether judging it again in this page gives the
 * recorded verdict bit for bit; the projectiles in flight at each tick (re-flown against the level
 * from their spawn state, as a client re-flies a synced one). The fog select draws what one player's
 * client was sent: its enemies, and each projectile from the tick it was sent on. The world and rig come by the log's content hashes from the server
 * that serves the page, or from .hrwb / .hrrg files opened beside the log. `?shot=<slot>:<seq>`
 * (the audit report's links) or `?index=<n>` (the n-th shot record of the log, as the audit counts
 * them: the review page's links) selects that shot once the log is open.
 */
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import {
  HIT_ZONE_NAMES, VerdictKind, World, createPlayerPose, reasonName, rigAssetPath, rigFromBuffer, worldAssetPath, Rewinder,
  createRewindPolicy, BONE_STRIDE, SyncedProjectiles, WEAPONS, weaponById, type Rig,
} from '../../shared/index';
import { MatchLogView, loggedShotMarks, type LoggedShot } from './replayLog';
import { HitboxFigure, hitboxGeometries, levelMesh } from './scene';
import { ShotDecor } from './shotDecor';
import { pelletsHit, wallsPassed, type ShotMarks } from './shotMarks';

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const params = new URLSearchParams(location.search);
const KIND = ['hit', 'miss', 'rejected', 'action'];

const canvas = $<HTMLCanvasElement>('view');
const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(Math.min(2, window.devicePixelRatio));
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x9fb8cf);
scene.add(new THREE.HemisphereLight(0xffffff, 0x445566, 1.6));
const sun = new THREE.DirectionalLight(0xffffff, 1.2);
sun.position.set(20, 40, 10);
scene.add(sun);
const camera = new THREE.PerspectiveCamera(60, 1, 0.05, 1000);
camera.position.set(0, 20, 20);
const orbit = new OrbitControls(camera, canvas);
const players = new THREE.Group();
const marks = new THREE.Group();
/** The selected shot's tracers, holes (with a dot each, to be seen from afar) and hits, kept until the next. */
const decor = new ShotDecor(Number.POSITIVE_INFINITY, 1000, true);
/** The projectiles drawn at the scrubbed tick, and the (tick, viewer) they were drawn for. */
const flights = new THREE.Group();
let flightsFor = '';
scene.add(players, marks, decor.group, flights);

interface Loaded {
  log: MatchLogView;
  world: World;
  rig: Rig;
  figures: HitboxFigure[];
  rewinder: Rewinder;
  geometries: THREE.BufferGeometry[];
}
let loaded: Loaded | null = null;
let selected = -1;
let playing = false;
const extra = new Map<string, ArrayBuffer>();
const pose = createPlayerPose();

async function assetBytes(kind: 'world' | 'rig', hash: string): Promise<ArrayBuffer> {
  const own = extra.get(`${kind}:${hash}`);
  if (own !== undefined) return own;
  const r = await fetch(kind === 'world' ? worldAssetPath(hash) : rigAssetPath(hash));
  if (!r.ok) throw new Error(`the ${kind} ${hash} is not served here (HTTP ${r.status}): open its .${kind === 'world' ? 'hrwb' : 'hrrg'} file with the log`);
  return r.arrayBuffer();
}

/** Files opened: world and rig assets are kept by their hash, a log is opened. */
async function openFiles(files: FileList | File[]): Promise<void> {
  let logFile: File | null = null;
  for (const f of Array.from(files)) {
    const buf = await f.arrayBuffer();
    if (f.name.endsWith('.hrwb')) extra.set(`world:${World.fromBuffer(buf).hash}`, buf);
    else if (f.name.endsWith('.hrrg')) extra.set(`rig:${rigFromBuffer(buf).hash}`, buf);
    else logFile = f;
  }
  if (logFile !== null) await openLog(new Uint8Array(await logFile.arrayBuffer()), logFile.name);
}

async function openLog(bytes: Uint8Array, name: string): Promise<void> {
  $('drop').textContent = `reading ${name} ...`;
  const log = MatchLogView.parse(bytes);
  const h = log.header;
  const world = World.fromBuffer(await assetBytes('world', h.worldHash));
  if (world.hash !== h.worldHash) throw new Error(`world bytes hash to ${world.hash}, the log names ${h.worldHash}`);
  const rig = rigFromBuffer(await assetBytes('rig', h.rigHash), h.rigHash);
  if (loaded !== null) {
    scene.remove(scene.getObjectByName('level')!);
    players.clear();
    clearFlights();
    flightsFor = '';
  }
  scene.add(levelMesh(world));
  const geometries = hitboxGeometries(rig);
  const figures: HitboxFigure[] = [];
  for (let s = 0; s < log.slots; s++) {
    const f = new HitboxFigure(rig, geometries, 0xc05a3a);
    f.group.visible = false;
    figures.push(f);
    players.add(f.group);
  }
  const fogSel = $<HTMLSelectElement>('fogViewer');
  fogSel.innerHTML = '<option value="-1">everyone</option>' + (log.fogOn ? Array.from({ length: log.slots }, (_, s) => `<option value="${s}">as player ${s} was sent</option>`).join('') : '');
  fogSel.disabled = !log.fogOn;
  fogSel.title = !log.fogOn ? 'this log has no fog of war'
    : `draw only the players${log.flightsLogged ? ' and projectiles' : ''} this one's client was sent (fog of war${log.flightsLogged ? '' : '; this log does not say which projectiles were sent: all are drawn'})`;
  loaded = { log, world, rig, figures, geometries, rewinder: new Rewinder(rig, { policy: createRewindPolicy(h.scene.windowMs) }) };
  const b = world.bounds(new Float64Array(6));
  orbit.target.set((b[0]! + b[3]!) / 2, b[1]!, (b[2]! + b[5]!) / 2);
  camera.position.set(orbit.target.x, b[4]! + Math.max(b[3]! - b[0]!, b[5]! - b[2]!) * 0.6, orbit.target.z + (b[5]! - b[2]!) * 0.5);
  $('drop').style.display = 'none';
  const scrub = $<HTMLInputElement>('scrub');
  scrub.max = String(Math.max(0, log.ticks - 1));
  scrub.value = '0';
  const hits = log.shots.filter((s) => s.verdict.kind === VerdictKind.HIT).length;
  const rejected = log.shots.filter((s) => s.verdict.kind === VerdictKind.REJECTED).length;
  $('info').textContent = `${name}\nroom ${h.roomId}, ${h.tickRate} Hz, ${h.maxPlayers} slots\nworld ${h.worldHash}, rig ${h.rigHash}\n${log.ticks} ticks, ${log.shots.length} shots (${hits} hits, ${rejected} rejected)${log.ends.complete ? '' : `\nends early (${log.ends.why}) at byte ${log.ends.atByte}`}`;
  listShots();
  const want = params.get('shot');
  if (want !== null) {
    const [slot, seq] = want.split(':').map(Number);
    const s = log.find(slot!, seq!);
    if (s !== undefined) select(s.index);
    else $('detail').textContent = `shot ${want} (slot:seq) is not in this log`;
  } else if (params.has('index')) {
    const k = Number(params.get('index'));
    if (Number.isInteger(k) && k >= 0 && k < log.shots.length) select(k);
    else $('detail').textContent = `shot index ${params.get('index')} is not in this log (${log.shots.length} shots)`;
  }
  (window as unknown as { replay: unknown }).replay = {
    log, select, get selected() { return selected; }, drawn: () => decor.counts(selected),
    /** Ids of the projectiles drawn now. */
    flightsDrawn: () => flights.children.filter((c) => c.userData.id !== undefined).map((c) => c.userData.id as number),
    /** Ids of the projectiles whose end is drawn now. */
    endsDrawn: () => flights.children.filter((c) => c.userData.endId !== undefined).map((c) => c.userData.endId as number),
  };
}

function listShots(): void {
  if (loaded === null) return;
  const onlyRejected = $<HTMLInputElement>('onlyRejected').checked;
  const onlyHits = $<HTMLInputElement>('onlyHits').checked;
  const list = $('shots');
  list.replaceChildren();
  const t0 = loaded.log.tickTimes[0] ?? 0;
  for (const s of loaded.log.shots) {
    const v = s.verdict;
    if (onlyRejected && v.kind !== VerdictKind.REJECTED) continue;
    if (onlyHits && v.kind !== VerdictKind.HIT) continue;
    const row = document.createElement('div');
    row.className = `shot k${v.kind}${s.index === selected ? ' sel' : ''}`;
    row.dataset.index = String(s.index);
    const t = s.tickIndex >= 0 ? ((loaded.log.tickTimes[s.tickIndex]! - t0) / 1000).toFixed(2) : '-';
    row.textContent = `${t}s  p${s.shooter} #${s.seq}  ${reasonName(v.reason)}${v.kind === VerdictKind.HIT ? ` p${v.target} ${HIT_ZONE_NAMES[v.zone]}` : ''}`;
    row.onclick = () => select(s.index);
    list.append(row);
  }
}

/** Selects shot `k`: scrubs to its tick, draws its segment and the server's rewound hitboxes, re-judges it. */
function select(k: number): void {
  if (loaded === null) return;
  const { log, world, rig, geometries, rewinder } = loaded;
  const s: LoggedShot = log.shots[k]!;
  selected = k;
  $<HTMLInputElement>('scrub').value = String(Math.max(0, s.tickIndex));
  for (const row of Array.from($('shots').children) as HTMLElement[]) row.classList.toggle('sel', row.dataset.index === String(k));
  marks.clear();
  decor.clear();
  const v = s.verdict;
  const colour = v.kind === VerdictKind.HIT ? 0x22cc44 : v.kind === VerdictKind.REJECTED ? 0xff3322 : 0xdddddd;
  const again = log.rejudge(k, world, rig);
  const bones = new Float64Array(rig.hitboxCount * BONE_STRIDE);
  for (const [slot, p] of again.rewound) {
    const f = new HitboxFigure(rig, geometries, slot === v.target ? colour : 0x3388ff, { wireframe: true, opacity: 0.85 });
    f.setBones(rewinder.poseBones(bones, p));
    if (slot === v.target && v.hitbox >= 0) f.highlight(v.hitbox, 0xffffff);
    marks.add(f.group);
  }
  const plan = loggedShotMarks(s, again.verdict);
  if (plan !== null) decor.show(k, plan.marks, colour, 0);
  if (s.segment !== null) {
    const [sx, sy, sz, ex, ey, ez] = s.segment;
    // Look at the shot from behind and above its start.
    const dx = ex! - sx!, dz = ez! - sz!, l = Math.hypot(dx, dz) || 1;
    const focusT = v.kind === VerdictKind.HIT ? v.t : Math.min(1, 6 / Math.hypot(dx, ey! - sy!, dz));
    orbit.target.set(sx! + dx * focusT, sy! + (ey! - sy!) * focusT, sz! + dz * focusT);
    camera.position.set(sx! - (dx / l) * 2.5 + (dz / l) * 1.5, sy! + 1.2, sz! - (dz / l) * 2.5 - (dx / l) * 1.5);
  }
  const same = again.mismatches.length === 0;
  $('detail').innerHTML = '';
  const lines = [
    `shot ${s.index}: player ${s.shooter} seq ${s.seq}`,
    `verdict ${KIND[v.kind]}: ${reasonName(v.reason)}`,
    v.kind === VerdictKind.HIT ? `target player ${v.target}, ${HIT_ZONE_NAMES[v.zone]}, ${v.damage} damage, t ${v.t.toFixed(4)}` : '',
    Number.isFinite(v.rewindTimeMs) ? `rewound to ${v.rewindTimeMs.toFixed(1)} ms (${(log.tickTimes[Math.max(0, s.tickIndex)]! - v.rewindTimeMs).toFixed(1)} ms back)` : 'not rewound',
    v.originOffsetM >= 0 ? `start ${v.originOffsetM.toFixed(3)} m from the eye path` : '',
  ].filter((x) => x !== '');
  if (plan !== null && (plan.marks.pellets.length > 1 || wallsPassed(plan.marks) > 0)) lines.push(...pelletLines(plan.marks, plan.from === 'rejudged'));
  $('detail').textContent = lines.join('\n') + '\n';
  const check = document.createElement('span');
  check.className = same ? 'same' : 'differs';
  check.textContent = same ? 'judged again here: the same verdict, bit for bit' : `judged again here: differs in ${again.mismatches.map((m) => m.field).join(', ')}`;
  $('detail').append(check);
}

/** A pull's pellets: how many hit, the walls passed, and a line per pellet (its end, its hits). */
function pelletLines(m: ShotMarks, rejudged: boolean): string[] {
  const walls = wallsPassed(m);
  const out = [`${m.pellets.length} pellet${m.pellets.length > 1 ? 's' : ''}, ${pelletsHit(m)} hit, ${walls} wall${walls === 1 ? '' : 's'} passed${rejudged ? ' (as judged again here: this log keeps no pellets)' : ''}`];
  m.pellets.forEach((p, k) => {
    const hits = m.hits.filter((h) => h.pellet === k).map((h) => `p${h.target} ${HIT_ZONE_NAMES[h.zone] ?? '?'} ${Number.isFinite(h.damage) ? h.damage.toFixed(1) : ''}`.trim());
    const holes = m.holes.filter((h) => h.pellet === k && h.exit).length;
    const through = p.walls > 0 ? `, through ${p.walls} wall${p.walls > 1 ? 's' : ''} (${holes} exit hole${holes === 1 ? '' : 's'})` : '';
    out.push(`  ${k}: ${reasonName(p.reason)}${hits.length > 0 ? ` ${hits.join(', ')}` : ''}${through}`);
  });
  return out;
}

function drawTick(i: number): void {
  if (loaded === null) return;
  const { log, figures, rewinder, rig } = loaded;
  const bones = new Float64Array(rig.hitboxCount * BONE_STRIDE);
  // As one player's client had it: the enemies the fog withheld from it are not drawn.
  const viewer = Number($<HTMLSelectElement>('fogViewer').value);
  for (let s = 0; s < log.slots; s++) {
    const ok = log.poseAt(pose, i, s) && pose.alive && (viewer < 0 || log.sentAt(viewer, s, i));
    figures[s]!.group.visible = ok;
    if (ok) figures[s]!.setBones(rewinder.poseBones(bones, pose));
  }
  drawFlights(log, i, viewer);
  const t0 = log.tickTimes[0] ?? 0;
  $('time').textContent = `tick ${log.tickNumbers[i] ?? '-'}  ${(((log.tickTimes[i] ?? t0) - t0) / 1000).toFixed(2)} s`;
}

function clearFlights(): void {
  for (const c of flights.children) {
    const m = c as THREE.Mesh;
    m.geometry.dispose();
    (m.material as THREE.Material).dispose();
  }
  flights.clear();
}

/**
 * The projectiles in flight at tick index i that `viewer` was sent (all with -1): each re-flown from
 * its spawn to the tick's time, a sphere of its radius; and the ends it was told of lately.
 */
function drawFlights(log: MatchLogView, i: number, viewer: number): void {
  const key = `${i}:${viewer}`;
  if (key === flightsFor) return;
  flightsFor = key;
  clearFlights();
  // Each end the viewer was told, for a while after it: a translucent ball of its blast (or the projectile's size).
  for (const f of log.endsAt(viewer, i)) {
    const spec = weaponById(WEAPONS, f.weapon)?.projectile;
    const r = Math.max(0.25, spec?.splash?.radius ?? spec?.radius ?? 0);
    const m = new THREE.Mesh(new THREE.SphereGeometry(r, 16, 10), new THREE.MeshBasicMaterial({ color: 0xff4422, transparent: true, opacity: 0.35, depthWrite: false }));
    m.position.set(f.endX, f.endY, f.endZ);
    m.userData.endId = f.id;
    flights.add(m);
  }
  const list = log.flightsAt(viewer, i);
  if (list.length === 0) return;
  const synced = new SyncedProjectiles(loaded?.world ?? null, WEAPONS, log.header.tickRate);
  synced.update(list);
  synced.advance(log.tickTimes[i]!);
  for (const e of synced.entries.values()) {
    const r = weaponById(WEAPONS, e.weapon)?.projectile?.radius ?? 0.1;
    const m = new THREE.Mesh(new THREE.SphereGeometry(Math.max(0.08, r), 12, 8), new THREE.MeshBasicMaterial({ color: 0xffaa22 }));
    m.position.set(e.x, e.y, e.z);
    m.userData.id = e.id;
    flights.add(m);
  }
}

function frame(): void {
  const scrub = $<HTMLInputElement>('scrub');
  if (playing && loaded !== null) {
    const next = Number(scrub.value) + 1;
    if (next >= loaded.log.ticks) playing = false;
    else scrub.value = String(next);
  }
  drawTick(Number(scrub.value));
  const w = canvas.clientWidth, h = canvas.clientHeight;
  renderer.setSize(w, h, false);
  camera.aspect = w / Math.max(1, h);
  camera.updateProjectionMatrix();
  orbit.update();
  renderer.render(scene, camera);
  requestAnimationFrame(frame);
}

const fail = (e: unknown): void => {
  $('drop').style.display = 'flex';
  $('drop').textContent = `could not open: ${e instanceof Error ? e.message : String(e)}`;
  console.error(e);
};
$<HTMLInputElement>('file').addEventListener('change', (e) => {
  const files = (e.target as HTMLInputElement).files;
  if (files) openFiles(files).catch(fail);
});
addEventListener('dragover', (e) => e.preventDefault());
addEventListener('drop', (e) => {
  e.preventDefault();
  if (e.dataTransfer?.files) openFiles(e.dataTransfer.files).catch(fail);
});
$('onlyRejected').addEventListener('change', listShots);
$('onlyHits').addEventListener('change', listShots);
$('play').addEventListener('click', () => { playing = !playing; });
const logUrl = params.get('log');
if (logUrl !== null) {
  fetch(logUrl).then(async (r) => {
    if (!r.ok) throw new Error(`${logUrl}: HTTP ${r.status}`);
    await openLog(new Uint8Array(await r.arrayBuffer()), logUrl.split('/').pop() ?? logUrl);
  }).catch(fail);
} else if (params.has('shot')) {
  $('drop').textContent = `open ${params.get('logName') || 'the match log'} to see player ${params.get('shot')!.replace(':', '\'s shot seq ')}`;
}
requestAnimationFrame(frame);
