/**
 * Vite for the browser client: `npm run dev:web` serves web/ with hot reload and forwards the game
 * server's HTTP routes and WebSocket (GAME_SERVER, default http://127.0.0.1:2567); `npm run build`
 * writes dist/web/, which `npm start` serves: the game at `/`, the match-log viewer at `/replay.html`,
 * and with an evidence store the review page at `/review/` (review.html, behind the monitor's password).
 */
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

const target = process.env.GAME_SERVER ?? 'http://127.0.0.1:2567';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'static',
    target: 'es2022',
    chunkSizeWarningLimit: 1024,
    rollupOptions: {
      input: {
        main: fileURLToPath(new URL('./index.html', import.meta.url)),
        replay: fileURLToPath(new URL('./replay.html', import.meta.url)),
        review: fileURLToPath(new URL('./review.html', import.meta.url)),
      },
    },
  },
  server: {
    proxy: {
      '/assets/world': target,
      '/assets/rig': target,
      '/matchmake': target,
      '/review/': target,
      '^/[A-Za-z0-9_-]+/[A-Za-z0-9_-]+\\?': { target, ws: true },
    },
  },
});
