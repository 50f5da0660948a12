import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/**
 * Where the entry `name` (a worker thread's or a child process's, without extension) beside
 * `moduleUrl` is loaded from, and whether it needs tsx. Built code runs the compiled entry.
 * Code running from its TypeScript sources (the tests) loads the entry through tsx, which a
 * fresh thread or process pays for on every start (most of a test server's start on SQLite):
 * so the test run bundles every entry once from the same sources (test/harness/worker-bundles.ts)
 * and names that folder in DEBRIEF_WORKER_BUNDLES; an entry found there runs as it is.
 */
export function workerEntry(moduleUrl: string, name: string): { url: URL; tsx: boolean } {
  if (!moduleUrl.endsWith('.ts')) return { url: new URL(`./${name}.js`, moduleUrl), tsx: false };
  const bundles = process.env.DEBRIEF_WORKER_BUNDLES;
  if (bundles) {
    const bundled = new URL(`${name}.js`, `file://${bundles.replace(/\/?$/, '/')}`);
    if (existsSync(bundled)) return { url: bundled, tsx: false };
  }
  return { url: new URL(`./${name}.ts`, moduleUrl), tsx: true };
}

/** Starts the worker thread whose entry is `name` beside `moduleUrl` (see workerEntry). */
export function startWorker(moduleUrl: string, name: string, workerData: unknown): Worker {
  const entry = workerEntry(moduleUrl, name);
  if (!entry.tsx) return new Worker(entry.url, { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)})
    .then((tsx) => tsx.register())
    .then(() => import(${JSON.stringify(entry.url.href)}));`;
  return new Worker(boot, { eval: true, workerData });
}
