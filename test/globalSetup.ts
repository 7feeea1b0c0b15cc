// Vitest global setup: builds dist/ once (when a source is newer) before tests spawn `npm start`.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  execFileSync(process.execPath, ['server/build/build.mjs', '--if-stale'], { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: 'inherit' });
}
