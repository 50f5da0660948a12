import { Worker } from 'node:worker_threads';

/**
 * Starts the worker thread whose entry is `name` (without extension) beside `moduleUrl`. Built
 * code runs the compiled entry. Tests run the TypeScript sources, which a worker cannot load by
 * itself: there the entry is loaded through tsx (a dev dependency).
 */
export function startWorker(moduleUrl: string, name: string, workerData: unknown): Worker {
  const fromSource = moduleUrl.endsWith('.ts');
  const entry = new URL(`./${name}.${fromSource ? 'ts' : 'js'}`, moduleUrl);
  if (!fromSource) return new Worker(entry, { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)})
    .then((tsx) => tsx.register())
    .then(() => import(${JSON.stringify(entry.href)}));`;
  return new Worker(boot, { eval: true, workerData });
}
