import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type PostgresCluster, startPostgresCluster } from '../test/harness/postgres-cluster.js';

export type BenchDialect = 'sqlite' | 'postgres';

export interface BenchDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh SQLite file on the real disk (os.tmpdir()), removed afterwards. */
export function sqliteDatabase(): BenchDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'debrief-bench-'));
  return {
    url: join(dir, 'bench.db'),
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A fresh database in a throwaway cluster (the test harness's; note it runs with fsync=off). */
export async function postgresDatabase(
  cluster: PostgresCluster,
  name: string,
): Promise<BenchDatabase> {
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: cluster.url.replace(/\/[^/]*$/, `/${name}`),
    async drop() {
      const client = new pg.Client({ connectionString: cluster.url });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

export { type PostgresCluster, startPostgresCluster };
