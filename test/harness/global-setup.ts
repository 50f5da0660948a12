import type { TestProject } from 'vitest/node';
import { postgresAvailable, startPostgresCluster } from './postgres-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the throwaway cluster, or null when PostgreSQL is not installed. */
    postgresUrl: string | null;
  }
}

export default async function setup(project: TestProject) {
  if (process.env.DEBRIEF_TEST_POSTGRES === 'off' || !postgresAvailable()) {
    console.warn(
      '\n[debrief tests] PostgreSQL binaries (initdb, pg_ctl) not found: storage tests run on SQLite only. ' +
        'Install PostgreSQL (apt-get install -y postgresql) to run them on both dialects.\n',
    );
    project.provide('postgresUrl', null);
    return;
  }
  const cluster = await startPostgresCluster();
  project.provide('postgresUrl', cluster.url);
  return () => cluster.stop();
}
