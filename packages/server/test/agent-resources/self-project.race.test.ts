import { buildContext, createLogger, ensureAccount } from '@debrief/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import {
  ensureSelfProject,
  SELF_PROJECT_NAME,
} from '../../src/agent-resources/self-project.service.js';

describe.each(DIALECTS)('the instance project for feedback about Debrief on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  it('does not exist while there is no account', async () => {
    expect(await ensureSelfProject(server.ctx.db)).toBeNull();
  });

  it('is created exactly once under concurrent first sign-ups, bootstraps and /skill.md reads', async () => {
    // Several "first" accounts arrive at once, each followed by its own ensure call.
    const signups = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        ensureAccount(server.ctx.db, { email: `first-${i}@example.test`, password: null }).then(
          async (account) => ({ account, self: await ensureSelfProject(server.ctx.db) }),
        ),
      ),
    );
    // On PostgreSQL a second instance (its own pool) races too, as a second server process would.
    const other =
      dialect === 'postgres'
        ? await buildContext(server.config, createLogger({ ...server.config, logLevel: 'silent' }))
        : null;
    try {
      const results = await Promise.all([
        ...signups.map((s) => Promise.resolve(s.self)),
        ...Array.from({ length: 8 }, () => ensureSelfProject(server.ctx.db)),
        ...Array.from({ length: 8 }, () => (other ? ensureSelfProject(other.db) : null)),
        ...Array.from({ length: 4 }, async () => {
          const res = await fetch(`${server.url}/skill.md`);
          expect(res.status).toBe(200);
          return null;
        }),
      ]);
      const ids = new Set(results.filter((id) => id !== null));
      expect(ids.size).toBe(1);
      const [selfId] = [...ids];

      const projects = await server.ctx.db
        .selectFrom('projects')
        .select(['id', 'account_id'])
        .where('name', '=', SELF_PROJECT_NAME)
        .execute();
      expect(projects).toHaveLength(1);
      expect(projects[0]!.id).toBe(selfId);
      const keys = await server.ctx.db
        .selectFrom('ingest_keys')
        .select('id')
        .where('project_id', '=', selfId!)
        .execute();
      expect(keys).toHaveLength(1);
      // It belongs to one of the first accounts, and calling again changes nothing.
      expect(signups.map((s) => s.account.id)).toContain(projects[0]!.account_id);
      expect(await ensureSelfProject(server.ctx.db)).toBe(selfId);
    } finally {
      await other?.close();
    }
  });

  it('belongs to the first account when accounts already exist at start', async () => {
    const fresh = await startTestServer(dialect);
    try {
      const first = await ensureAccount(fresh.ctx.db, { email: 'op@example.test', password: null });
      await ensureAccount(fresh.ctx.db, { email: 'later@example.test', password: null });
      const selfId = await ensureSelfProject(fresh.ctx.db);
      const row = await fresh.ctx.db
        .selectFrom('projects')
        .select('account_id')
        .where('id', '=', selfId!)
        .executeTakeFirstOrThrow();
      expect(row.account_id).toBe(first.id);
    } finally {
      await fresh.close();
    }
  });
});
