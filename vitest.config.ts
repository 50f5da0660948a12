import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Workspace packages export their TypeScript sources under the "source" condition, so tests
  // always run against the code in the tree, never a stale dist/.
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    globalSetup: ['test/harness/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
