import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import type { Tenant } from '../../../../test/harness/test-server.js';
import type { DB } from '../../src/db/schema.js';
import { newId } from '../../src/ids.js';
import {
  fingerprint,
  kindOf,
  parseSignature,
  serializeSignature,
} from '../../src/issues/grouping/index.js';
import { insertExemplar } from '../../src/issues/issue.repository.js';
import { DEFAULT_ENGINE, groupBatch } from '../../src/issues/pipeline/group-batch.js';
import { bumpIssuesVersion } from '../../src/issues/pipeline/grouping.repository.js';
import { PoolCache } from '../../src/issues/pipeline/pool-cache.js';
import { openTenantDatabase, seedReport } from '../support/seed.js';

/**
 * A report that follows a developer's move into an issue of another tool changes that issue's
 * signature. The grouper's kept candidates (pool-cache.ts) must then hold the issue as the
 * database does, or the other tool's next reports are compared with its old signature: grouped
 * otherwise than by a grouper that has just started and reads them.
 */
describe.each(DIALECTS)('a pin across tools, on %s', (dialect) => {
  let setup: Awaited<ReturnType<typeof openTenantDatabase>>;
  let db: Kysely<DB>;
  let t: Tenant;
  const cache = new PoolCache();

  beforeAll(async () => {
    setup = await openTenantDatabase(dialect);
    ({ db, tenant: t } = setup);
  });
  afterAll(() => setup.close());

  let second = 0;
  async function report(tool: string, details: string): Promise<string> {
    second += 1;
    const at = new Date(Date.UTC(2026, 10, 1, 9, 0, second)).toISOString();
    return seedReport(db, t.projectId, {
      outcome: 'failure',
      at,
      tool_name: tool,
      details,
    });
  }

  async function group(): Promise<void> {
    await db
      .transaction()
      .execute((trx) => groupBatch(trx, dialect, 100, new Date(), DEFAULT_ENGINE, cache));
    cache.committed();
  }

  async function issueOf(reportId: string) {
    return db
      .selectFrom('report_issues')
      .innerJoin('issues', 'issues.id', 'report_issues.issue_id')
      .select(['issues.id', 'issues.signature', 'issues.report_count'])
      .where('report_issues.report_id', '=', reportId)
      .executeTakeFirstOrThrow();
  }

  it("keeps the other tool's candidate as the database holds it", async () => {
    const timeout = 'beta upload times out after 30 seconds on large files';
    await report('alpha', 'alpha export crashes on unicode file names');
    const b1 = await report('beta', timeout);
    await group();
    const beta = await issueOf(b1);

    // A developer moved an alpha report about invalid YAML into beta's issue (as triage leaves
    // it: an exemplar of alpha's pool pinned to that issue, and the issues' version bumped).
    const yaml = 'alpha rejects the config file as invalid yaml at line 4';
    const pinned = fingerprint({ outcome: 'failure', tool_name: 'alpha', details: yaml });
    await db.transaction().execute(async (trx) => {
      await insertExemplar(trx, {
        id: newId(Date.now()),
        projectId: t.projectId,
        issueId: beta.id,
        toolName: 'alpha',
        kind: kindOf('failure'),
        signature: serializeSignature(pinned),
        reportId: newId(Date.now()),
        now: new Date(),
      });
      await bumpIssuesVersion(trx);
    });

    // One batch: beta's pool is read for a beta report, then an alpha report like the moved
    // one follows the pin into beta's issue.
    await report('beta', timeout);
    const a2 = await report('alpha', yaml.replace('line 4', 'line 9'));
    await group();
    const joined = await issueOf(a2);
    expect(joined.id).toBe(beta.id);
    expect(Number(joined.report_count)).toBe(3);

    const { rows } = await sql<{ issues_version: number | string }>`
      select issues_version from grouping_progress where id = 'default'
    `.execute(db);
    const kept = [...cache.take(Number(rows[0]?.issues_version)).values()];
    const held = kept.flatMap((pool) => pool.candidates).find((c) => c.issueId === beta.id);
    expect(held).toBeDefined();
    expect(held?.signature).toEqual(parseSignature(joined.signature));
    expect(held?.memberCount).toBe(3);
  });
});
