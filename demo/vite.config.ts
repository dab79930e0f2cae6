import { defineConfig } from 'vite';

/** The demo SPA: imports @svc/elements like any merchant app, served at /demo/spa/. */
export default defineConfig({
  root: 'spa',
  base: '/demo/spa/',
  build: { outDir: '../dist/spa', emptyOutDir: true, target: 'es2022' },
});
