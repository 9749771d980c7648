import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

/**
 * The dashboard console (docs/dashboard.md, "The console"), built by bin/build.mjs into
 * dist/console/ and served by the server at /dashboard/ (src/http/console.ts). Hashed asset names
 * (Vite's default) are cached for a year; index.html is not. No inline script or style: the page's
 * Content-Security-Policy allows neither.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/dashboard/',
  plugins: [preact({ prerender: { enabled: false } })],
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    assetsDir: 'assets',
    // Vite would inline small assets as data: URLs; the policy allows data: images only, so none at all.
    assetsInlineLimit: 0,
    // The module preload polyfill is bundled into the entry, never inlined (no inline script).
    modulePreload: { polyfill: true },
    sourcemap: false,
    target: 'es2022',
    reportCompressedSize: true,
  },
});
