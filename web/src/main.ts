/**
 * The page: joins the game server it was served from (or GAME_SERVER in dev), loads the world and
 * rig by content hash, and runs the game (game.ts) with its HUD, net graph and, with `?debug=1`,
 * the impact view. Query: `debug=1` (debug verdicts, when the server allows them), `interp=<ms>`,
 * `name=`, `server=<http origin>`. The HUD names the weapon in hand and the loadout by key (1, 2, ...). `window.hitreg` exposes the running game to tests and the console.
 */
import { HIT_ZONE_NAMES, isMelee, VerdictKind } from '../../shared/index';
import { join } from './net';
import { Game, type ShotView } from './game';
import { keyDown } from './controls';
import { pelletsHit, wallsPassed, type ShotMarks } from './shotMarks';
import { NetGraph } from './netGraph';

const params = new URLSearchParams(location.search);
const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

/** A pull's pellets that hit and walls passed, for the marker and the shot log ('' for a plain shot). */
function pelletNote(m: ShotMarks | null): string {
  if (m === null) return '';
  const walls = wallsPassed(m);
  const parts = m.pellets.length > 1 ? [`${pelletsHit(m)}/${m.pellets.length} pellets`] : [];
  if (walls > 0) parts.push(`${walls} wall${walls > 1 ? 's' : ''}`);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

function showShot(s: ShotView): void {
  const marker = $('hitmarker');
  const p = s.predicted;
  if (p.kind === VerdictKind.HIT) {
    marker.className = 'predicted';
    marker.textContent = `${p.damage.toFixed(0)} ${HIT_ZONE_NAMES[p.zone]}${pelletNote(s.marks)}`;
  } else {
    marker.className = '';
    marker.textContent = '';
  }
}

function showVerdict(s: ShotView, latest: boolean): void {
  const v = s.verdict!;
  const marker = $('hitmarker');
  const line = document.createElement('div');
  const what = (v.kind === VerdictKind.HIT ? `hit ${HIT_ZONE_NAMES[v.zone]} ${v.damage.toFixed(0)}` : v.reasonName) + pelletNote(s.verdictMarks);
  line.textContent = `#${s.seq} predicted ${s.predicted.reason} -> server ${what}${s.agreed ? '' : ' (corrected)'}`;
  line.className = s.agreed ? 'agree' : 'disagree';
  const log = $('shotlog');
  log.prepend(line);
  while (log.childElementCount > 8) log.lastElementChild!.remove();
  // The marker belongs to the newest shot; an older shot's verdict only goes into the log.
  if (!latest) return;
  if (v.kind === VerdictKind.HIT) {
    marker.className = 'confirmed';
    marker.textContent = `${v.damage.toFixed(0)} ${HIT_ZONE_NAMES[v.zone]}${pelletNote(s.verdictMarks)}`;
  } else if (s.predicted.kind === VerdictKind.HIT) {
    marker.className = 'corrected';
    marker.textContent = `no hit: ${v.reasonName}`;
  }
}

async function play(): Promise<void> {
  const origin = params.get('server') ?? location.origin;
  const status = $('status');
  status.textContent = `joining ${origin} ...`;
  const net = await join(origin, {
    name: params.get('name') ?? 'browser',
    interpDelayMs: Number(params.get('interp') ?? 100),
    debug: params.get('debug') === '1',
  });
  const canvas = $<HTMLCanvasElement>('view');
  const game = new Game(canvas, net);
  const graph = new NetGraph($('netgraph'), $<HTMLCanvasElement>('rttchart'), game);
  game.onShot = showShot;
  game.onVerdict = (s) => showVerdict(s, game.shots[game.shots.length - 1] === s);
  status.textContent = `slot ${net.welcome.slot}, world ${net.welcome.worldHash}, rig ${net.welcome.rigHash}${net.welcome.debug ? ', debug verdicts' : ''} - click to look, WASD to move, click or F to shoot, R to reload, 1-${net.welcome.validation.loadout.length} to switch weapons`;
  document.body.classList.toggle('debug', net.welcome.debug);

  addEventListener('keydown', (e) => {
    if (e.code === 'KeyR') game.reload(performance.now());
    const digit = /^Digit([1-9])$/.exec(e.code);
    if (digit !== null) game.switchTo(Number(digit[1]) - 1, performance.now());
    if (keyDown(game.controls, e.code, true)) e.preventDefault();
  });
  addEventListener('keyup', (e) => { if (keyDown(game.controls, e.code, false)) e.preventDefault(); });
  canvas.addEventListener('mousedown', () => {
    if (document.pointerLockElement !== canvas) canvas.requestPointerLock?.();
    else {
      game.controls.fire = true;
      game.controls.pulled = true;
    }
  });
  addEventListener('mouseup', () => { game.controls.fire = false; });
  addEventListener('mousemove', (e) => {
    if (document.pointerLockElement !== canvas) return;
    game.yaw -= e.movementX * 0.0025;
    game.pitch = Math.max(-1.5, Math.min(1.5, game.pitch - e.movementY * 0.0025));
  });

  const loadout = net.welcome.validation.loadout;
  const names = new Map(net.welcome.validation.weapons.map((w) => [w.id, w.name]));
  setInterval(() => game.update(performance.now()), 5);
  const loop = (now: number): void => {
    game.draw(now);
    graph.update(now);
    const serverNow = game.net.clock.serverNow(now);
    const weapon = game.net.welcome.validation.weapons.find((w) => w.id === game.equipped);
    const state = serverNow < game.drawEndMs ? 'drawing' : serverNow < game.reloadEndMs ? 'reloading' : weapon !== undefined && isMelee(weapon) ? '' : String(game.ammo);
    $('health').textContent = `health ${game.health.toFixed(0)}  ${weapon?.name ?? 'weapon'} ${state}`;
    $('loadout').textContent = loadout.map((id, i) => `${id === game.equipped ? '>' : ' '}${i + 1} ${names.get(id) ?? id}`).join('  ');
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
  (window as unknown as { hitreg: unknown }).hitreg = { game, graph, net };
}

play().catch((e: unknown) => {
  $('status').textContent = `could not start: ${e instanceof Error ? e.message : String(e)}`;
  console.error(e);
});
