#!/usr/bin/env node
// The `debrief` command. npm links a workspace's `bin` when it installs, before `prepare` has
// built dist/, so the link must point at a file that is committed (issue 15): this one loads
// the built CLI, and says how to build it when it is missing instead of failing obscurely.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);

if (!existsSync(cli)) {
  process.stderr.write(
    'debrief: the server is not built yet (packages/server/dist/cli.js is missing). Run `npm run build` in the repository root, then try again.\n',
  );
  process.exit(1);
}

await import(cli.href);
