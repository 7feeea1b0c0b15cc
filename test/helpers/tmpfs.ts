/**
 * A real small filesystem for tests and benchmarks of a full disk: a tmpfs of a given size mounted
 * on a new temporary directory (mount needs root; a container also needs CAP_SYS_ADMIN), and its
 * unmount. `mountTmpfs` throws TmpfsUnavailableError, whose message names what is missing, when it
 * cannot mount; a test then skips with that message.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** No tmpfs can be mounted here: the message says what it needs. */
export class TmpfsUnavailableError extends Error {
  override name = 'TmpfsUnavailableError';
}

/** Mounts a tmpfs of `size` bytes on a new directory and returns its path. */
export function mountTmpfs(size: number, prefix = 'hitreg-tmpfs-'): string {
  const uid = process.getuid?.();
  if (uid !== 0) throw new TmpfsUnavailableError(`needs root to mount a tmpfs (mount -t tmpfs -o size=${size}); running as uid ${uid ?? 'unknown'}`);
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    const why = ((e as { stderr?: Buffer }).stderr?.toString() || (e as Error).message).replace(/\s+/g, ' ').trim();
    throw new TmpfsUnavailableError(`mount -t tmpfs -o size=${size} failed (${why}): needs root and a kernel that allows tmpfs mounts (in a container: CAP_SYS_ADMIN)`);
  }
  return dir;
}

/** Unmounts `dir` (lazily when something still holds it) and removes it. */
export function unmountTmpfs(dir: string): void {
  try {
    execFileSync('umount', [dir], { stdio: 'ignore' });
  } catch {
    execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
  }
  rmSync(dir, { recursive: true, force: true });
}
