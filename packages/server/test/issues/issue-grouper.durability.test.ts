import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliServer } from '../../../../test/harness/cli-process.js';
import {
  createTestDatabase,
  DIALECTS,
  type TestDatabase,
} from '../../../../test/harness/databases.js';
import {
  createTenant,
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../../test/harness/test-server.js';
import { openDatabase } from '../../src/db/database.js';
import {
  DEFAULT_ENGINE,
  type GroupingEngine,
  groupBatch,
} from '../../src/issues/pipeline/group-batch.js';
import { Grouper } from '../../src/issues/pipeline/grouper.js';
import { readGroupingProgress } from '../../src/issues/pipeline/grouping.repository.js';
import { startGroupingThread } from '../../src/issues/pipeline/grouping-thread.js';
import { call } from '../support/http.js';
import { expectIssueDaysExact } from '../support/issue-days.js';

/**
 * Every report is grouped exactly once, in report order, and grouping resumes
 * where it stopped — after a stop, a rolled-back batch, or kill -9 of the process — and
 * several instances on one PostgreSQL never group a report twice nor split one problem.
 * "Exactly once" is checked in the database: every report has an issue, the issues' counters
 * add up to the number of reports, and the progress row counted each report once.
 */
const SIGNATURES = ['pagination repeats pages', 'permission denied repo', 'date format rejected'];

async function submitMany(url: string, t: { ingestKey: string }, n: number, offset = 0) {
  const ids: string[] = [];
  for (let start = 0; start < n; start += 10) {
    const wave = Array.from({ length: Math.min(10, n - start) }, (_, k) => {
      const i = offset + start + k;
      return call(`${url}/v1/reports`, {
        body: {
          ingest_key: t.ingestKey,
          outcome: 'failure',
          tool_name: 'search',
          details: `${SIGNATURES[i % SIGNATURES.length]} #${i}`,
        },
      });
    });
    for (const res of await Promise.all(wave)) {
      expect(res.status).toBe(201);
      ids.push(res.body.id as string);
    }
  }
  return ids;
}

async function projectState(db: TestServer['ctx']['db'], projectId: string) {
  const reports = await db
    .selectFrom('reports')
    .leftJoin('report_issues', 'report_issues.report_id', 'reports.id')
    .select(['reports.id', 'report_issues.issue_id'])
    .where('reports.project_id', '=', projectId)
    .execute();
  const issues = await db
    .selectFrom('issues')
    .select(['id', 'report_count'])
    .where('project_id', '=', projectId)
    .execute();
  return {
    reports: reports.length,
    grouped: reports.filter((r) => r.issue_id !== null).length,
    issues: issues.length,
    counted: issues.reduce((sum, i) => sum + Number(i.report_count), 0),
    perIssue: issues.map((i) => Number(i.report_count)).sort(),
  };
}

async function waitUntil(check: () => Promise<boolean>, ms: number, what: string) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(DIALECTS)('the grouper resumes exactly where it stopped on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    // Reports stored without an issue, as an upgraded database or ISSUE_GROUPING=off leaves
    // them: neither the writer nor a grouper of the server's groups them, the tests' own do
    // (and the last test's second instance).
    server = await startTestServer(dialect, { ISSUE_GROUPING: 'off' });
  });
  afterAll(() => server.close());

  it('groups a backlog batch by batch after a stop and a rolled-back batch, each report once', async () => {
    const { ctx } = server;
    const t = await server.tenant();
    const before = Number((await readGroupingProgress(ctx.db)).grouped_count);
    await submitMany(server.url, t, 50);
    const deps = {
      db: ctx.db,
      dialect: ctx.database.dialect,
      bus: ctx.bus,
      readBarrier: () => ctx.reportWriter.flush(),
      log: pino({ enabled: false }),
    };
    const first = new Grouper(deps, { batchSize: 7 });
    for (let i = 0; i < 3; i += 1) expect(await first.runOnce()).toBe(7);
    expect(await projectState(ctx.db, t.projectId)).toMatchObject({
      reports: 50,
      grouped: 21,
      counted: 21,
    });

    // A batch that fails before its commit leaves nothing behind.
    await expect(
      ctx.db.transaction().execute(async (trx) => {
        const result = await groupBatch(trx, ctx.database.dialect, 10, new Date());
        expect(result.grouped).toBe(10);
        throw new Error('crash before commit');
      }),
    ).rejects.toThrow('crash before commit');
    expect(await projectState(ctx.db, t.projectId)).toMatchObject({ grouped: 21, counted: 21 });
    await expectIssueDaysExact(ctx.db, t.projectId);

    const second = new Grouper(deps, { batchSize: 7, intervalMs: 20 });
    second.start();
    await waitUntil(
      async () => (await projectState(ctx.db, t.projectId)).grouped === 50,
      10_000,
      'all 50 grouped',
    );
    await second.stop();
    const state = await projectState(ctx.db, t.projectId);
    expect(state).toEqual({
      reports: 50,
      grouped: 50,
      issues: 3,
      counted: 50,
      perIssue: [16, 17, 17],
    });
    await expectIssueDaysExact(ctx.db, t.projectId);
    const after = await readGroupingProgress(ctx.db);
    expect(Number(after.grouped_count) - before).toBe(50);
  });

  it("places a report the engine fails on in its tool's unsorted issue, and goes on", async () => {
    const { ctx } = server;
    const t = await server.tenant();
    const submitted: string[] = [];
    for (const details of ['fine one', 'POISON pill', 'fine two', 'POISON again']) {
      const res = await call(`${server.url}/v1/reports`, {
        body: { ingest_key: t.ingestKey, outcome: 'failure', tool_name: 'p', details },
      });
      submitted.push(res.body.id as string);
    }
    await ctx.reportWriter.flush();
    const failing: GroupingEngine = {
      ...DEFAULT_ENGINE,
      fingerprint: (report) => {
        if (report.details.startsWith('POISON')) throw new Error('engine exploded');
        return DEFAULT_ENGINE.fingerprint(report);
      },
    };
    for (let round = 0; round < 20; round += 1) {
      const result = await ctx.db
        .transaction()
        .execute((trx) => groupBatch(trx, ctx.database.dialect, 200, new Date(), failing));
      if (result.grouped === 0) break;
    }
    const rows = await ctx.db
      .selectFrom('reports')
      .innerJoin('report_issues', 'report_issues.report_id', 'reports.id')
      .innerJoin('issues', 'issues.id', 'report_issues.issue_id')
      .select(['reports.id', 'report_issues.issue_reason', 'issues.kind', 'issues.id as issue'])
      .where('reports.project_id', '=', t.projectId)
      .execute();
    expect(rows).toHaveLength(4);
    const byId = new Map(rows.map((row) => [row.id, row]));
    const [fine1, poison1, fine2, poison2] = submitted.map((id) => byId.get(id)!);
    expect(poison1!.kind).toBe('unsorted');
    expect(poison1!.issue_reason).toContain('the grouping engine failed (engine exploded)');
    expect(poison2!.issue).toBe(poison1!.issue);
    expect(fine1!.kind).toBe('problem');
    expect(fine2!.kind).toBe('problem');
  });

  it('resumes after kill -9 of the server process, grouping each report once', async () => {
    const database: TestDatabase = await createTestDatabase(dialect, { migrated: true });
    const env = { DATABASE_URL: database.url, FREE_TIER_MONTHLY_REPORTS: 'unlimited' };
    // The tenant is made straight in the database (the CLI's bootstrap hashes a password).
    const setup = openDatabase(database.url);
    let t: Tenant;
    try {
      t = await createTenant({ db: setup.kysely } as TestServer['ctx']);
    } finally {
      await setup.close();
    }
    const child = await startCliServer(env);
    let restarted: TestServer | null = null;
    try {
      await submitMany(child.url, t, 150);
      // Killed at once: the last reports are acknowledged but most likely not grouped yet.
      await child.kill('SIGKILL');
      // The restart runs in this process, on the database the killed process left.
      restarted = await startTestServer(dialect, {}, { databaseUrl: database.url });
      const db = restarted.ctx.db;
      await waitUntil(
        async () => (await projectState(db, t.projectId)).grouped === 150,
        15_000,
        'all 150 grouped after the restart',
      );
      expect(await projectState(db, t.projectId)).toEqual({
        reports: 150,
        grouped: 150,
        issues: 3,
        counted: 150,
        perIssue: [50, 50, 50],
      });
      await expectIssueDaysExact(db, t.projectId);
      const progress = await sql<{ n: number | string }>`
        select grouped_count as n from grouping_progress where id = 'default'
      `.execute(db);
      expect(Number(progress.rows[0]!.n)).toBe(150);
    } finally {
      await child.kill('SIGKILL');
      await restarted?.close();
      await database.drop();
    }
  }, 90_000);

  // Last of the file's tests on this server: the instance it starts groups every report the
  // database holds without an issue.
  it('with ISSUE_GROUPING=off leaves reports without an issue until an instance that groups is running', async () => {
    const off = server;
    expect(off.ctx.grouper.running).toBe(false);
    const t = await off.tenant();
    await submitMany(off.url, t, 12);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await projectState(off.ctx.db, t.projectId)).toMatchObject({ reports: 12, grouped: 0 });

    const on = await startTestServer(
      dialect,
      {},
      { databaseUrl: off.config.databaseUrl, groupingThread: true },
    );
    try {
      await waitUntil(
        async () => (await projectState(off.ctx.db, t.projectId)).grouped === 12,
        10_000,
        'all 12 grouped by the other instance',
      );
      expect(await projectState(off.ctx.db, t.projectId)).toMatchObject({
        issues: 3,
        counted: 12,
      });
    } finally {
      await on.close();
    }
  });
});

describe.skipIf(!DIALECTS.includes('postgres'))('two instances grouping one PostgreSQL', () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer('postgres', {}, { groupingThread: true });
    b = await startTestServer(
      'postgres',
      {},
      { databaseUrl: a.config.databaseUrl, groupingThread: true },
    );
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('never groups a report twice nor splits a problem, with four groupers racing', async () => {
    const t = await a.tenant();
    const before = Number((await readGroupingProgress(a.ctx.db)).grouped_count);
    // Besides each instance's own grouper, two more per instance, in tight loops of small
    // batches: the progress row's lock is contended on nearly every round.
    const extra = [a, b, a, b].map(
      (server) =>
        new Grouper(
          {
            db: server.ctx.db,
            dialect: 'postgres',
            bus: server.ctx.bus,
            readBarrier: () => server.ctx.reportWriter.flush(),
            log: pino({ enabled: false }),
          },
          { batchSize: 3, intervalMs: 1 },
        ),
    );
    for (const g of extra) g.start();
    try {
      const [viaA, viaB] = await Promise.all([
        submitMany(a.url, t, 90, 0),
        submitMany(b.url, t, 90, 90),
      ]);
      expect(viaA.length + viaB.length).toBe(180);
      await waitUntil(
        async () => (await projectState(a.ctx.db, t.projectId)).grouped === 180,
        15_000,
        'all 180 grouped',
      );
    } finally {
      await Promise.all(extra.map((g) => g.stop()));
    }
    expect(await projectState(a.ctx.db, t.projectId)).toEqual({
      reports: 180,
      grouped: 180,
      issues: 3,
      counted: 180,
      perIssue: [60, 60, 60],
    });
    const after = await readGroupingProgress(a.ctx.db);
    expect(Number(after.grouped_count) - before).toBe(180);
  }, 60_000);
});

describe('the grouping thread', () => {
  it('says why it cannot start, fails its batches with the cause, and closes', async () => {
    // A database "inside" a plain file: its directory can never be made.
    const file = join(mkdtempSync(join(tmpdir(), 'debrief-grouping-')), 'a-file');
    writeFileSync(file, '');
    const thread = startGroupingThread({ url: join(file, 'debrief.db') });
    await expect(thread.ready()).rejects.toThrow(/EEXIST|ENOTDIR/);
    // The next batch starts a new thread, which fails the same way: the grouper retries later.
    await expect(thread.group(10, new Date())).rejects.toThrow(/EEXIST|ENOTDIR/);
    await thread.close();
  });
});
