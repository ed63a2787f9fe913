import { resolve } from 'node:path';
import { defineConfig } from 'vite';

// Built by `npm run build` into dist/web, which the API serves at `/` (apps/api/src/web).
export default defineConfig({
  root: resolve(import.meta.dirname),
  base: '/',
  // TSX through Vite's own transformer: the React plugin adds only fast refresh, which a built bundle does not use.
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  // The conversation reader is libs/domain code shared with the TUI; only that folder is pure browser-safe code.
  resolve: { alias: { '@app/domain/conversation': resolve(import.meta.dirname, '../../libs/domain/src/conversation/index.ts') } },
  build: {
    outDir: resolve(import.meta.dirname, '../../dist/web'),
    emptyOutDir: true,
    // The polyfill would be an inline script, which the dashboard's CSP ('self' only) refuses.
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 1024,
    rollupOptions: {
      // React Query marks its modules "use client" for server components; a client bundle has nothing to keep.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
