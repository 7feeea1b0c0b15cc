/**
 * Chromium for the browser tests: Debian's package at /usr/bin/chromium (or CHROMIUM_PATH), driven
 * by playwright-core. Browsers cannot be downloaded here, so when it is missing and this process
 * runs as root with apt-get (CI), it installs the Debian package and says so; otherwise it throws
 * with the command to run.
 */
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The Chromium executable, installed from Debian's packages first when missing and possible. */
export function ensureChromium(): string {
  if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root || !existsSync('/usr/bin/apt-get')) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}: install Debian's package (sudo apt-get install -y chromium) or set CHROMIUM_PATH`);
  }
  console.log(`browser tests: ${CHROMIUM_PATH} is missing; installing Debian's chromium package (apt-get install -y chromium)`);
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`apt-get installed chromium but ${CHROMIUM_PATH} is still missing; set CHROMIUM_PATH`);
  return CHROMIUM_PATH;
}

/** Headless Chromium with software WebGL (the page renders with three.js). */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: ensureChromium(),
    headless: true,
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'],
  });
}
