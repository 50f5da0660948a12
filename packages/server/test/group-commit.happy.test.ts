import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';

/**
 * Group commit (db/group-commit.ts): concurrent work shares a transaction on SQLite, yet each
 * caller gets its own result, and one failing item fails only its own caller.
 */
describe.each(DIALECTS)('groupCommit on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  const addProject = (accountId: string, name: string) =>
    server.ctx.database.groupCommit(async (trx) => {
      await trx
        .insertInto('projects')
        .values({
          id: name.padEnd(32, '0'),
          account_id: accountId,
          name,
          created_at: new Date().toISOString(),
        })
        .execute();
      return name;
    });

  it('answers every caller with its own result, and one failure stays its own', async () => {
    const t = await server.tenant();
    const names = Array.from({ length: 12 }, (_, i) => `abc${i.toString(16)}`);
    const results = await Promise.allSettled([
      ...names.map((name) => addProject(t.accountId, name)),
      // Unknown account: a foreign-key violation inside the shared batch.
      addProject('f'.repeat(32), 'def0'),
      server.ctx.database.groupCommit(async () => {
        throw new Error('work that fails');
      }),
    ]);
    expect(results.slice(0, 12)).toEqual(names.map((value) => ({ status: 'fulfilled', value })));
    expect(results[12]?.status).toBe('rejected');
    expect(results[13]).toMatchObject({ status: 'rejected', reason: new Error('work that fails') });
    const stored = await server.ctx.db
      .selectFrom('projects')
      .select('name')
      .where('account_id', '=', t.accountId)
      .execute();
    expect(stored.map((p) => p.name).sort()).toEqual([t.projectName, ...names].sort());
  });
});
