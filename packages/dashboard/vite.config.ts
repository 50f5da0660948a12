import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig, loadEnv, type PluginOption } from 'vite';

export default defineConfig(({ mode }) => ({
  // plugin-react is hoisted to the root, where vitest's newer vite lives, so its types name
  // that vite's Plugin; at run time it is the same plugin API. The cast only bridges the types.
  plugins: [react() as unknown as PluginOption],
  // Workspace packages export their TypeScript sources under "source": the bundle is built
  // from the protocol code in the tree, never from a stale dist/.
  resolve: { conditions: ['source', ...defaultClientConditions] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The server sends a strict CSP: keep every asset a file, never an inline data: URL.
    assetsInlineLimit: 0,
    rollupOptions: {
      // The protocol's modules only declare schemas and constants. Telling Rollup so lets it
      // drop the ones the dashboard does not use, and zod with them (about 50 kB gzipped).
      treeshake: {
        moduleSideEffects: (id) => !/[\\/]packages[\\/]protocol[\\/]src[\\/]/.test(id),
      },
    },
  },
  // `npm run dev` (and `vite preview`) forward the API to a running server:
  // DEBRIEF_API=http://127.0.0.1:8080 by default.
  server: { proxy: { '/v1': apiTarget(mode) } },
  preview: { proxy: { '/v1': apiTarget(mode) } },
}));

function apiTarget(mode: string) {
  return loadEnv(mode, '.', 'DEBRIEF_').DEBRIEF_API ?? 'http://127.0.0.1:8080';
}
