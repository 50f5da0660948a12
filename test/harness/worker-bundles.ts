import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const SERVER_SRC = fileURLToPath(new URL('../../packages/server/src/', import.meta.url));
// Inside the server package, so the bundles' bare imports resolve to its node_modules; and as
// deep below packages/ as a source file's folder (src/<feature>/), so that a path the CLI
// finds beside its own module (the dashboard's dist/, ../../../dashboard/dist) is the same.
const MODULES = fileURLToPath(new URL('../../packages/server/node_modules/', import.meta.url));

/**
 * The entries a test server starts in a thread or child process of its own, and the CLI (the
 * `debrief serve` the process tests start: cli-process.ts).
 */
function entries(): string[] {
  return [...entryFiles(), join(SERVER_SRC, 'cli.ts')];
}

function entryFiles(dir = SERVER_SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entryFiles(path);
    return /-(worker|process|entry)\.ts$/.test(entry.name) && entry.name !== 'start-worker.ts'
      ? [path]
      : [];
  });
}

// Packages of the workspace are bundled from their sources, like vitest's `source` condition;
// every other package is loaded from node_modules as it is (native ones cannot be bundled).
const workspaceFromSource: Plugin = {
  name: 'workspace-from-source',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@debrief/') ? undefined : { path: args.path, external: true },
    );
  },
};

/**
 * Bundles every worker and child-process entry of the server, and its CLI, from the sources
 * into one folder, once per test run, so a test server's threads and a `debrief serve` child
 * start from plain JavaScript instead of loading tsx (start-worker.ts and cli-process.ts read
 * the folder from DEBRIEF_WORKER_BUNDLES; the bundled CLI finds the worker bundles beside it).
 * The bundles are made from the tree as it is when the run starts. Returns the folder's removal.
 */
export async function bundleWorkers(): Promise<() => void> {
  // A clean install may hoist every package and leave no node_modules in the server package.
  mkdirSync(MODULES, { recursive: true });
  const outdir = mkdtempSync(join(MODULES, '.debrief-bundles-'));
  await build({
    entryPoints: entries(),
    outdir,
    entryNames: '[name]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['source'],
    plugins: [workspaceFromSource],
    logLevel: 'error',
  });
  writeFileSync(join(outdir, 'package.json'), '{"type":"module"}\n');
  process.env.DEBRIEF_WORKER_BUNDLES = outdir;
  return () => {
    delete process.env.DEBRIEF_WORKER_BUNDLES;
    rmSync(outdir, { recursive: true, force: true });
  };
}
