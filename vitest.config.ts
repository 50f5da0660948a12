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
    // Each worker keeps the modules it loaded from one file to the next: importing the server's
    // graph again for every file was a third of the suite's time. The price is that a file must
    // leave no global behind (an env variable, a stubbed Date.now, a mock): the ones that change
    // one restore it.
    isolate: false,
    // These publish their TypeScript under a "source" export condition too (the MCP SDK 2.x
    // client depends on them), so Vite has to transform them like the workspace's own sources.
    server: {
      deps: { inline: ['@modelcontextprotocol/client', 'eventsource', 'eventsource-parser'] },
    },
    // Vitest's default on a 2-core machine is one worker (cores − 1), and the files spend much
    // of their time waiting on child processes, PostgreSQL and Chromium: three workers keep both
    // cores busy (about a tenth quicker than two there, all passing).
    maxWorkers: 3,
  },
});
