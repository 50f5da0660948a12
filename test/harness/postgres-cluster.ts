import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

/** A throwaway PostgreSQL cluster on a free loopback port, removed by `stop()`. */
export interface PostgresCluster {
  url: string;
  /**
   * An outage: stops the server (`pg_ctl stop -m fast`: sessions are terminated with 57P01, as
   * in a restart or failover) and keeps its data; `startServer()` brings it back on the same
   * port. For tests of database faults: give them a cluster of their own.
   */
  stopServer(): void;
  startServer(): void;
  /** Both: a PostgreSQL restart. */
  restart(): void;
  stop(): void;
}

/**
 * Where initdb and pg_ctl are: `''` when on PATH, a directory, or null when not installed.
 * `POSTGRES_BIN_DIR` names the directory instead (a test of the skip path sets a missing one).
 */
function findBinDir(): string | null {
  const override = process.env.POSTGRES_BIN_DIR;
  if (override) return existsSync(join(override, 'initdb')) ? override : null;
  if (spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim()) return '';
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const dir = join(root, version, 'bin');
    if (existsSync(join(dir, 'initdb'))) return dir;
  }
  return null;
}

export function postgresAvailable(): boolean {
  return findBinDir() !== null;
}

/**
 * `durable`: PostgreSQL's default fsync and synchronous_commit (measurements of commit cost);
 * otherwise both off, as tests need no durability from the cluster.
 */
export async function startPostgresCluster(
  options: { durable?: boolean } = {},
): Promise<PostgresCluster> {
  const binDir = findBinDir();
  if (binDir === null) throw new Error('PostgreSQL binaries (initdb, pg_ctl) not found');
  const bin = (name: string) => (binDir ? join(binDir, name) : name);
  // PostgreSQL refuses to run as root: as root, run it as the postgres user.
  const asRoot = process.getuid?.() === 0;
  const run = (command: string, args: string[]) =>
    asRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', bin(command), ...args], { stdio: 'pipe' })
      : execFileSync(bin(command), args, { stdio: 'pipe' });

  const dir = mkdtempSync(join(tmpdir(), 'debrief-pg-'));
  chmodSync(dir, 0o777);
  const dataDir = join(dir, 'data');
  if (asRoot) execFileSync('chown', ['postgres', dir]);
  const port = await freePort();
  run('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  let running = false;
  const startServer = () => {
    run('pg_ctl', [
      '-D',
      dataDir,
      '-l',
      join(dir, 'postgres.log'),
      '-w',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=300${options.durable ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off'}`,
      'start',
    ]);
    running = true;
  };
  const stopServer = () => {
    run('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
    running = false;
  };
  startServer();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stopServer,
    startServer,
    restart() {
      stopServer();
      startServer();
    },
    stop() {
      try {
        if (running) run('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
