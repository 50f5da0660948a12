import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../../test/harness/test-server.js';
import { newId } from '../../../src/ids.js';
import { rotateIngestKey } from '../../../src/keys/key.service.js';
import { usageMonth } from '../../../src/limits/storage-limits.js';
import { getUsage } from '../../../src/reports/usage.repository.js';
import { createReportWriter } from '../../../src/reports/write-path/index.js';
import { submission } from '../../support/submissions.js';

/**
 * The report writer (reports/write-path/): on SQLite a writer thread, on PostgreSQL group commit
 * over Kysely transactions; on both, each batch is one transaction that adds the counters up
 * once per batch. Submissions are fired together so that they share batches.
 */
describe.each(DIALECTS)('report writer on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  const countersOf = async (projectId: string) =>
    server.ctx.db
      .selectFrom('report_counts')
      .select(['tool_name', 'outcome', 'count'])
      .where('project_id', '=', projectId)
      .orderBy('tool_name')
      .orderBy('outcome')
      .execute();

  it('answers each submission of a shared batch with its own project, usage and counters', async () => {
    const [a, b] = [await server.tenant(), await server.tenant()];
    const outcomes = await Promise.all([
      ...Array.from({ length: 6 }, (_, i) =>
        server.ctx.reportWriter.submit(
          submission(a.ingestKey, { outcome: i < 4 ? 'success' : 'failure', toolName: 'search' }),
        ),
      ),
      ...Array.from({ length: 3 }, () =>
        server.ctx.reportWriter.submit(submission(b.ingestKey, { outcome: 'gave_up' })),
      ),
    ]);
    expect(outcomes.slice(0, 6)).toEqual(
      Array(6).fill({ status: 'stored', projectId: a.projectId }),
    );
    expect(outcomes.slice(6)).toEqual(Array(3).fill({ status: 'stored', projectId: b.projectId }));

    const month = usageMonth(new Date());
    expect(await getUsage(server.ctx.db, a.accountId, month)).toBe(6);
    expect(await getUsage(server.ctx.db, b.accountId, month)).toBe(3);
    expect((await countersOf(a.projectId)).map((c) => ({ ...c, count: Number(c.count) }))).toEqual([
      { tool_name: 'search', outcome: 'failure', count: 2 },
      { tool_name: 'search', outcome: 'success', count: 4 },
    ]);
    expect((await countersOf(b.projectId)).map((c) => ({ ...c, count: Number(c.count) }))).toEqual([
      { tool_name: '', outcome: 'gave_up', count: 3 },
    ]);
  });

  it('counts a batch against the quota in order: exactly the remaining ones are stored', async () => {
    const t = await server.tenant({ monthlyQuota: 4 });
    const first = await server.ctx.reportWriter.submit(submission(t.ingestKey));
    expect(first.status).toBe('stored');
    const outcomes = await Promise.all(
      Array.from({ length: 7 }, () => server.ctx.reportWriter.submit(submission(t.ingestKey))),
    );
    expect(outcomes.filter((o) => o.status === 'stored')).toHaveLength(3);
    expect(outcomes.filter((o) => o.status === 'quota_exceeded')).toEqual(
      Array(4).fill({ status: 'quota_exceeded', limit: 4 }),
    );
    expect(await getUsage(server.ctx.db, t.accountId, usageMonth(new Date()))).toBe(4);
  });

  it('fails only the submission that breaks, and stores the rest of its batch', async () => {
    const t = await server.tenant();
    const taken = newId();
    expect(
      (await server.ctx.reportWriter.submit(submission(t.ingestKey, { id: taken }))).status,
    ).toBe('stored');
    const results = await Promise.allSettled([
      server.ctx.reportWriter.submit(submission(t.ingestKey)),
      // The same id again: a primary-key violation inside the shared batch.
      server.ctx.reportWriter.submit(submission(t.ingestKey, { id: taken })),
      server.ctx.reportWriter.submit(submission(t.ingestKey)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    // The failed one was not counted.
    expect(await getUsage(server.ctx.db, t.accountId, usageMonth(new Date()))).toBe(3);
  });

  it('refuses unknown and rotated keys, also while the key is rotated mid-burst', async () => {
    const t = await server.tenant();
    expect(await server.ctx.reportWriter.submit(submission(`wk_${'0'.repeat(32)}`))).toEqual({
      status: 'unknown_key',
    });
    // The rotation is a write transaction on the main connection, racing the writer's batches.
    const [outcomes, newKey] = await Promise.all([
      Promise.all(
        Array.from({ length: 30 }, () => server.ctx.reportWriter.submit(submission(t.ingestKey))),
      ),
      rotateIngestKey(server.ctx.db, t.projectId),
    ]);
    for (const outcome of outcomes) expect(['stored', 'unknown_key']).toContain(outcome.status);
    expect(await server.ctx.reportWriter.submit(submission(t.ingestKey))).toEqual({
      status: 'unknown_key',
    });
    expect(await server.ctx.reportWriter.submit(submission(newKey))).toEqual({
      status: 'stored',
      projectId: t.projectId,
    });
  });
});

describe.each(DIALECTS)('report writer shutdown on %s', (dialect) => {
  it('close() waits for the submissions under way, then refuses new ones', async () => {
    const server = await startTestServer(dialect);
    const t = await server.tenant();
    const inFlight = Array.from({ length: 10 }, () =>
      server.ctx.reportWriter.submit(submission(t.ingestKey)),
    );
    await server.ctx.reportWriter.close();
    expect((await Promise.all(inFlight)).every((o) => o.status === 'stored')).toBe(true);
    await expect(server.ctx.reportWriter.submit(submission(t.ingestKey))).rejects.toThrow(/closed/);
    await server.close();
  });
});

describe.skipIf(!DIALECTS.includes('postgres'))('group commit on postgres', () => {
  it('concurrent submissions share transactions, and every outcome follows its commit', async () => {
    const server = await startTestServer('postgres');
    const batches: number[] = [];
    const writer = createReportWriter(server.ctx.database, server.config, {
      onCommit: (size) => batches.push(size),
    });
    try {
      const t = await server.tenant();
      const outcomes = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          writer.submit(submission(t.ingestKey, { toolName: `tool-${i % 3}` })).then((o) => {
            // Resolved only after the commit of its batch: the batch is already counted.
            expect(batches.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
            return o;
          }),
        ),
      );
      expect(outcomes.every((o) => o.status === 'stored')).toBe(true);
      expect(batches.reduce((a, b) => a + b, 0)).toBe(60);
      // Submitted in one turn: one transaction (at most a couple), not sixty.
      expect(batches.length).toBeLessThanOrEqual(2);
      expect(await getUsage(server.ctx.db, t.accountId, usageMonth(new Date()))).toBe(60);
      const counts = await server.ctx.db
        .selectFrom('report_counts')
        .select(['tool_name', 'count'])
        .where('project_id', '=', t.projectId)
        .orderBy('tool_name')
        .execute();
      expect(counts.map((c) => [c.tool_name, Number(c.count)])).toEqual([
        ['tool-0', 20],
        ['tool-1', 20],
        ['tool-2', 20],
      ]);
    } finally {
      await writer.close();
      await server.close();
    }
  });
});
