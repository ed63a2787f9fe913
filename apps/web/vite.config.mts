import { resolve } from 'node:path';
import { defineConfig } from 'vite';

// Built by `npm run build` into dist/web, which the API serves at `/` (apps/api/src/web).
export default defineConfig({
  root: resolve(import.meta.dirname),
  base: '/',
  // TSX through Vite's own transformer: the React plugin adds only fast refresh, which a built bundle does not use.
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  // The domain's modules by path (`@app/domain/roles`), as tsconfig's paths name them; not its index, which
  // also exports the Node-only parts, so a browser import of `@app/domain` fails the build instead of bundling them.
  resolve: { alias: [{ find: /^@app\/domain\/(.+)$/, replacement: `${resolve(import.meta.dirname, '../../libs/domain/src')}/$1` }] },
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
