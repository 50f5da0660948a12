import type { TestProject } from 'vitest/node';
import { makeDatabaseTemplates } from './database-templates.js';
import { postgresAvailable, startPostgresCluster } from './postgres-cluster.js';
import { REQUIRE_ALL, requiredError, skipLine } from './skips.js';
import { bundleWorkers } from './worker-bundles.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the throwaway cluster, or null when PostgreSQL is not installed. */
    postgresUrl: string | null;
    /** Migrated databases to copy (database-templates.ts). */
    sqliteTemplate: string;
    postgresTemplate: string | null;
  }
}

export default async function setup(project: TestProject) {
  const removeBundles = await bundleWorkers();
  const off = process.env.DEBRIEF_TEST_POSTGRES === 'off';
  if (off || !postgresAvailable()) {
    const dir = process.env.POSTGRES_BIN_DIR;
    const missing = off
      ? 'DEBRIEF_TEST_POSTGRES=off'
      : `no initdb and pg_ctl ${dir ? `in POSTGRES_BIN_DIR=${dir}` : 'on PATH or in /usr/lib/postgresql/*/bin'}`;
    const line = skipLine(
      'the PostgreSQL runs (storage and route tests run on SQLite only)',
      missing,
      'apt-get install postgresql',
    );
    if (REQUIRE_ALL) throw requiredError(line);
    console.warn(line);
    project.provide('postgresUrl', null);
    const templates = await makeDatabaseTemplates(null);
    project.provide('sqliteTemplate', templates.sqlite);
    project.provide('postgresTemplate', null);
    return async () => {
      await templates.remove();
      removeBundles();
    };
  }
  const cluster = await startPostgresCluster().catch((error: unknown) => {
    removeBundles();
    throw error;
  });
  project.provide('postgresUrl', cluster.url);
  const templates = await makeDatabaseTemplates(cluster.url).catch(async (error: unknown) => {
    await cluster.stop();
    removeBundles();
    throw error;
  });
  project.provide('sqliteTemplate', templates.sqlite);
  project.provide('postgresTemplate', templates.postgres);
  return async () => {
    await cluster.stop();
    await templates.remove();
    removeBundles();
  };
}
