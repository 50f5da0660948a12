import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../test/harness/cli-process.js';

export interface BareServer {
  url: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * A baseline server in its own process like the real one: `bare-server.ts` (node:http) or
 * `fastify-floor-server.ts` (an empty Fastify route).
 */
export function startBareServer(
  file: 'bare-server.ts' | 'fastify-floor-server.ts' = 'bare-server.ts',
): Promise<BareServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'bench', file)], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => {
      const port = Number(chunk.toString().trim());
      if (!port) return reject(new Error(`${file} printed ${chunk.toString()}`));
      resolve({
        url: `http://127.0.0.1:${port}`,
        pid: child.pid,
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      });
    });
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
}
