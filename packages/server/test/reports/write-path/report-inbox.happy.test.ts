import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../../../test/harness/test-server.js';
import { newId } from '../../../src/ids.js';
import type { ReportWriter } from '../../../src/reports/write-path/index.js';
import { createSqliteReportWriter } from '../../../src/reports/write-path/sqlite/sqlite-report-writer.js';
import { submission } from '../../support/submissions.js';

/**
 * The SQLite writer's inbox (migration 0005, sqlite-report-batch.ts): committed reports wait
 * there until the writer thread moves them into `reports`, and flush() is what readers call
 * first. Each test runs its own writer on the test server's file, with its own move settings
 * (the server's writer moves only what it stored itself).
 */
describe('report inbox on sqlite', () => {
  let server: TestServer;
  const writers: ReportWriter[] = [];
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(async () => {
    await Promise.all(writers.map((w) => w.close()));
    await server.close();
  });

  /** A writer that moves its inbox only when asked, unless told otherwise. */
  async function writer(inbox = { rows: 1_000_000, ms: 3_600_000 }): Promise<ReportWriter> {
    const w = createSqliteReportWriter(server.ctx.database.sqlitePath!, {
      limits: { freeTier: null, addressDailyShare: 100 },
      sync: 'normal',
      inbox,
    });
    writers.push(w);
    await w.ready();
    return w;
  }

  async function idsIn(table: 'reports' | 'report_inbox', projectId: string): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`
      select id from ${sql.table(table)} where project_id = ${projectId} order by rowid
    `.execute(server.ctx.db);
    return rows.map((r) => r.id);
  }

  it('holds acknowledged reports in the inbox until flush() moves them all, in order', async () => {
    const w = await writer();
    const t = await server.tenant();
    const stored = [];
    for (let i = 0; i < 30; i++) stored.push(submission(t.ingestKey));
    const outcomes = await Promise.all(stored.map((s) => w.submit(s)));
    expect(outcomes.every((o) => o.status === 'stored')).toBe(true);
    expect(await idsIn('reports', t.projectId)).toEqual([]);
    expect(await idsIn('report_inbox', t.projectId)).toHaveLength(30);

    await w.flush();
    expect(await idsIn('report_inbox', t.projectId)).toEqual([]);
    expect(await idsIn('reports', t.projectId)).toEqual(stored.map((s) => s.report.id));
    // Nothing left to move: answered without the thread.
    await w.flush();
  });

  it('moves unasked once the inbox holds `rows` reports', async () => {
    const w = await writer({ rows: 20, ms: 3_600_000 });
    const t = await server.tenant();
    await Promise.all(Array.from({ length: 25 }, () => w.submit(submission(t.ingestKey))));
    await expect
      .poll(async () => (await idsIn('reports', t.projectId)).length, { timeout: 15_000 })
      .toBeGreaterThanOrEqual(20);
    expect((await idsIn('report_inbox', t.projectId)).length).toBeLessThan(20);
  });

  it('moves unasked `ms` after a report entered the inbox', async () => {
    const w = await writer({ rows: 1_000_000, ms: 50 });
    const t = await server.tenant();
    const { report } = submission(t.ingestKey);
    await w.submit({ ...submission(t.ingestKey), report });
    await expect
      .poll(() => idsIn('reports', t.projectId), { timeout: 15_000 })
      .toContain(report.id);
    expect(await idsIn('report_inbox', t.projectId)).toEqual([]);
  });

  it('moves the inbox at close, and a new writer moves what an old one left', async () => {
    const t = await server.tenant();
    const closing = await writer();
    await closing.submit(submission(t.ingestKey));
    await closing.close();
    expect(await idsIn('reports', t.projectId)).toHaveLength(1);

    // As a killed server leaves it: committed to the inbox, never moved.
    const left = submission(t.ingestKey).report;
    await sql`
      insert into report_inbox (id, project_id, outcome, details, created_at)
      values (${left.id}, ${t.projectId}, 'failure', 'left behind', ${left.createdAt.toISOString()})
    `.execute(server.ctx.db);
    const next = await writer();
    await next.flush();
    expect(await idsIn('reports', t.projectId)).toContain(left.id);
    expect(await idsIn('report_inbox', t.projectId)).toEqual([]);
  });

  it('refuses a taken id whether the report holding it is in the inbox or moved', async () => {
    const w = await writer();
    const t = await server.tenant();
    const id = newId();
    expect((await w.submit(submission(t.ingestKey, { id }))).status).toBe('stored');
    await expect(w.submit(submission(t.ingestKey, { id }))).rejects.toThrow(/UNIQUE/);
    await w.flush();
    await expect(w.submit(submission(t.ingestKey, { id }))).rejects.toThrow(/UNIQUE.*reports\.id/);
    expect(await idsIn('reports', t.projectId)).toEqual([id]);
  });

  it('rejects flush() when the inbox cannot be moved, and keeps the reports in it', async () => {
    const w = await writer();
    const t = await server.tenant();
    // A row the move cannot take: its project does not exist (the inbox's own foreign key
    // normally refuses it).
    const db = server.ctx.db;
    const orphan = newId();
    await sql`pragma foreign_keys = off`.execute(db);
    await sql`
      insert into report_inbox (id, project_id, outcome, details, created_at)
      values (${orphan}, ${newId()}, 'failure', 'orphan', ${new Date().toISOString()})
    `.execute(db);
    await sql`pragma foreign_keys = on`.execute(db);
    const { report } = submission(t.ingestKey);
    await w.submit({ ...submission(t.ingestKey), report });
    await expect(w.flush()).rejects.toThrow(/could not be moved into reports: FOREIGN KEY/);
    expect(await idsIn('report_inbox', t.projectId)).toEqual([report.id]);
    expect(await idsIn('reports', t.projectId)).toEqual([]);

    // Mended: the next flush moves what was kept.
    await sql`delete from report_inbox where id = ${orphan}`.execute(db);
    await w.flush();
    expect(await idsIn('report_inbox', t.projectId)).toEqual([]);
    expect(await idsIn('reports', t.projectId)).toEqual([report.id]);
  });
});
