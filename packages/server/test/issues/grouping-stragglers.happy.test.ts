import type { Kysely } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import type { Tenant } from '../../../../test/harness/test-server.js';
import type { DB } from '../../src/db/schema.js';
import { inProcessBatches } from '../../src/issues/pipeline/batch-runner.js';
import { openTenantDatabase, seedReport } from '../support/seed.js';

/**
 * On PostgreSQL a grouper's rounds look for waiting reports from a little before the last
 * grouped one (grouping-queue.ts WaitingScan: the entries vacuum has not removed yet pile
 * up before it), and one round in a while from the start. A report stored far behind the others
 * (a commit that stalled, an instance whose clock runs behind) is then grouped by the next full
 * round, once. SQLite scans from the start every round.
 */
describe.each(DIALECTS)('a report stored far behind the last grouped one, on %s', (dialect) => {
  let setup: Awaited<ReturnType<typeof openTenantDatabase>>;
  let db: Kysely<DB>;
  let t: Tenant;

  beforeAll(async () => {
    setup = await openTenantDatabase(dialect);
    ({ db, tenant: t } = setup);
  });
  afterAll(() => setup.close());
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const report = (at: Date, details: string) =>
    seedReport(db, t.projectId, {
      outcome: 'failure',
      at: at.toISOString(),
      tool_name: 'search',
      details,
    });

  it('is grouped by the next round that scans from the start', async () => {
    const fullScanMs = 1_500;
    // The runner's clock (Date.now) is moved on instead of waited for.
    const realNow = Date.now.bind(Date);
    let ahead = 0;
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + ahead);
    const waitForFullScan = () => {
      ahead += fullScanMs + 100;
    };
    const batches = inProcessBatches(db, dialect, { fullScanMs });
    const now = Date.now();
    for (let i = 0; i < 5; i += 1) await report(new Date(now - 5_000 + i), `timeout #${i}`);
    // The runner's first round scans from the start.
    expect((await batches.group(100, new Date())).grouped).toBe(5);

    // An hour behind the last grouped report: before where the next rounds begin on PostgreSQL.
    const straggler = await report(new Date(now - 3_600_000), 'timeout #late');
    const next = await batches.group(100, new Date());
    expect(next.grouped).toBe(dialect === 'postgres' ? 0 : 1);

    waitForFullScan();
    const full = await batches.group(100, new Date());
    expect(full.grouped).toBe(dialect === 'postgres' ? 1 : 0);
    const row = await db
      .selectFrom('report_issues')
      .select('issue_id')
      .where('report_id', '=', straggler)
      .executeTakeFirstOrThrow();
    expect(row.issue_id).toMatch(/^[0-9a-f]{32}$/);
    // Once: nothing waits, and a further full round finds nothing.
    waitForFullScan();
    expect((await batches.group(100, new Date())).grouped).toBe(0);
    await batches.close();
  });
});
