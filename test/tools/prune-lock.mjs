// Keeps package-lock.json installable with `npm ci` on this project's registry.
//
// msgpackr-extract (an optional native speed-up of msgpackr, used by Colyseus) lists prebuilt
// packages for six platforms as optional dependencies; the registry the machines here reach does not
// serve the macOS, Windows and 32-bit ARM ones, so `npm install` leaves them out of the lockfile but
// keeps them in msgpackr-extract's dependency list, and `npm ci` then refuses the lock as out of sync.
// This drops, from every locked package, optional dependencies that have no entry in the lock.
// Run it after any `npm install`: `node test/tools/prune-lock.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
let pruned = 0;
for (const [where, pkg] of Object.entries(lock.packages)) {
  if (!pkg.optionalDependencies) continue;
  for (const name of Object.keys(pkg.optionalDependencies)) {
    const nested = `${where}/node_modules/${name}`;
    if (!(nested in lock.packages) && !(`node_modules/${name}` in lock.packages)) {
      delete pkg.optionalDependencies[name];
      pruned++;
    }
  }
}
writeFileSync(path, JSON.stringify(lock, null, 2) + '\n');
console.log(`prune-lock: removed ${pruned} optional dependencies the registry does not serve`);
