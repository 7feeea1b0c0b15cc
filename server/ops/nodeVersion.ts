/**
 * Imported first by server/main.ts: on a Node.js older than 22 (what Colyseus 0.18 requires) the
 * process prints one line saying what to do and exits 1 before anything else starts.
 */
const major = Number(process.versions.node.split('.')[0]);
if (!(major >= 22)) {
  process.stderr.write(`hitreg: Node.js 22 or newer is needed (this is ${process.version}): install Node 22 LTS, or use \`npm start\` in a checkout installed with dev dependencies (\`npm ci\` brings node@22 into node_modules/.bin)\n`);
  process.exit(1);
}
export {};
