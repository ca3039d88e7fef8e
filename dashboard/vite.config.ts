import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/** `vite dev` forwards API and live traffic to a local API on its default port; production is served by the API. */
const devApiTarget = 'http://127.0.0.1:3000';

export default defineConfig({
  // The API serves dist/ at `/`, so absolute asset paths are correct.
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // MapLibre alone is ~1 MB minified; it is one cached download, so the default 500 kB warning is noise.
    chunkSizeWarningLimit: 1500,
    rollupOptions: {
      // Two pages: the dashboard at `/` and the driver's phone page (served at `/driver`).
      input: {
        index: fileURLToPath(new URL('index.html', import.meta.url)),
        driver: fileURLToPath(new URL('driver.html', import.meta.url)),
      },
    },
  },
  server: {
    proxy: {
      '/v1': devApiTarget,
      '/socket.io': { target: devApiTarget, ws: true },
    },
  },
});
