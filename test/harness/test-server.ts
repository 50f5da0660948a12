import { randomHex } from '@debrief/protocol';
import {
  buildContext,
  type Config,
  createApiKey,
  createApp,
  createLogger,
  createProject,
  ensureAccount,
  loadConfig,
  setMonthlyQuota,
} from '@debrief/server';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase, type TestDialect } from './databases.js';
import { GENEROUS_INGEST_LIMITS } from './ingest-limits.js';
import { freePort } from './ports.js';

export interface TestServer {
  /** Base URL of the server, listening on 127.0.0.1 on a free port. */
  url: string;
  app: FastifyInstance;
  ctx: Awaited<ReturnType<typeof buildContext>>;
  config: Config;
  /** A fresh account with a project, its ingest key and an API key. */
  tenant(options?: { monthlyQuota?: number }): Promise<Tenant>;
  close(): Promise<void>;
}

/**
 * A real Debrief server over real HTTP, on a fresh database of the dialect. Tests isolate
 * themselves by data: each makes the tenants it needs.
 */
export async function startTestServer(
  dialect: TestDialect,
  env: Record<string, string> = {},
  options: {
    /**
     * Run on this existing database instead of a fresh one (a second instance on the same
     * PostgreSQL database); the database is then left in place on close.
     */
    databaseUrl?: string;
    /** Heartbeat interval of event streams (production default 15 s). */
    sseHeartbeatMs?: number;
    /**
     * Group in a worker thread, as `debrief serve` does; by default the batches run on the main
     * connection, which saves each test server the thread's start through tsx (~1 s of CPU).
     */
    groupingThread?: boolean;
  } = {},
): Promise<TestServer> {
  const database: TestDatabase = options.databaseUrl
    ? { url: options.databaseUrl, drop: async () => {} }
    : await createTestDatabase(dialect, { migrated: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    DATABASE_URL: database.url,
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: url,
    ...GENEROUS_INGEST_LIMITS,
    ...env,
  });
  const log = createLogger(config);
  const ctx = await buildContext(config, log, { groupingThread: options.groupingThread ?? false });
  const app = await createApp(ctx, { logger: log, sseHeartbeatMs: options.sseHeartbeatMs });
  await app.listen({ host: '127.0.0.1', port });
  return {
    url,
    app,
    ctx,
    config,
    tenant: (options) => createTenant(ctx, options),
    async close() {
      await app.close();
      await ctx.close();
      await database.drop();
    },
  };
}

export interface Tenant {
  accountId: string;
  email: string;
  projectId: string;
  projectName: string;
  ingestKey: string;
  apiKey: string;
}

/** A fresh account (without a password: scrypt costs ~100 ms a test) with one project. */
export async function createTenant(
  ctx: Awaited<ReturnType<typeof buildContext>>,
  options: { monthlyQuota?: number } = {},
): Promise<Tenant> {
  const email = `t-${randomHex(6)}@example.test`;
  const account = await ensureAccount(ctx.db, { email, password: null });
  if (options.monthlyQuota !== undefined)
    await setMonthlyQuota(ctx.db, email, options.monthlyQuota);
  const { project, ingestKey } = await createProject(ctx.db, account.id, `Project ${randomHex(3)}`);
  const apiKey = await createApiKey(ctx.db, account.id, 'test');
  return {
    accountId: account.id,
    email,
    projectId: project.id,
    projectName: project.name,
    ingestKey,
    apiKey: apiKey.key,
  };
}
