import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { call } from '../support/http.js';

/**
 * Issue 18 item 1: a report has its issue within 2 s of its 201 under ingest load. Bounded:
 * 1,200 reports from 16 concurrent senders (a few seconds on the shared test machine). While
 * they arrive, the age of the oldest acknowledged report still without an issue is sampled
 * every 50 ms; it must stay under 2 s, and everything is grouped within 2 s of the last 201.
 * Not a benchmark (that is the bench's): a guard that the grouper keeps up at all.
 */
const REPORTS = 1200;
const SENDERS = 16;
const DEADLINE_MS = 2000;

describe.each(DIALECTS)('the grouper keeps up with ingest on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    // In its thread, as `debrief serve` groups.
    server = await startTestServer(
      dialect,
      { FREE_TIER_MONTHLY_REPORTS: 'unlimited' },
      { groupingThread: true },
    );
  });
  afterAll(() => server.close());

  it('groups every report within 2 s of its 201', async () => {
    const t = await server.tenant();
    const { db } = server.ctx;
    const acked = new Map<string, number>();
    let worstLag = 0;
    let sending = true;
    const sampler = (async () => {
      while (sending) {
        const oldest = await sql<{ id: string }>`
          select report_id as id from report_issues where issue_id is null
          order by created_at, report_id limit 1
        `.execute(db);
        const id = oldest.rows[0]?.id;
        const at = id ? acked.get(id) : undefined;
        if (at !== undefined) worstLag = Math.max(worstLag, Date.now() - at);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: SENDERS }, async () => {
        while (next < REPORTS) {
          const i = next++;
          const res = await call(`${server.url}/v1/reports`, {
            body: {
              ingest_key: t.ingestKey,
              outcome: i % 3 === 0 ? 'failure' : 'success',
              tool_name: `tool-${i % 20}`,
              details: `load report kind ${i % 7} number ${i}`,
            },
          });
          expect(res.status).toBe(201);
          acked.set(res.body.id as string, Date.now());
        }
      }),
    );
    const lastAck = Date.now();
    for (;;) {
      const left = await db
        .selectFrom('report_issues')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('project_id', '=', t.projectId)
        .where('issue_id', 'is', null)
        .executeTakeFirstOrThrow();
      const total = await db
        .selectFrom('reports')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('project_id', '=', t.projectId)
        .executeTakeFirstOrThrow();
      if (Number(left.n) === 0 && Number(total.n) === REPORTS) break;
      expect(Date.now() - lastAck, 'all grouped after the last 201').toBeLessThan(DEADLINE_MS);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const settled = Date.now() - lastAck;
    sending = false;
    await sampler;
    console.info(
      `${dialect}: ${REPORTS} reports in ${lastAck - started} ms; oldest ungrouped at most ${worstLag} ms old; all grouped ${settled} ms after the last 201`,
    );
    expect(worstLag).toBeLessThan(DEADLINE_MS);
  }, 60_000);
});
