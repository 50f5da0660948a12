import { ProblemDetails, SubmitReportResponse } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';

/**
 * The quota check and the insert are one atomic step (DESIGN §2): concurrent submits against an
 * account with 5 reports left store exactly 5. On PostgreSQL the pool runs them truly in parallel.
 */
describe.each(DIALECTS)('quota under concurrent submits on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  it('20 concurrent submits with 5 remaining store exactly 5; 15 get 429 with Retry-After', async () => {
    const t = await server.tenant({ monthlyQuota: 8 });
    for (let i = 0; i < 3; i++) {
      const res = await call(`${server.url}/v1/reports`, {
        body: { ingest_key: t.ingestKey, outcome: 'success', details: `before ${i}` },
      });
      expect(res.status).toBe(201);
    }
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(`${server.url}/v1/reports`, {
          body: { ingest_key: t.ingestKey, outcome: 'failure', details: `race ${i}` },
        }),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 429);
    expect(created).toHaveLength(5);
    expect(refused).toHaveLength(15);
    for (const r of created) SubmitReportResponse.parse(r.body);
    for (const r of refused) {
      expect(ProblemDetails.parse(r.body).code).toBe('quota_exceeded');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }

    const list = await call(`${server.url}/v1/dashboard/${t.projectId}/reports?limit=100`, {
      headers: bearer(t.apiKey),
    });
    expect(list.status).toBe(200);
    expect(list.body.pagination.total).toBe(8);
    const stored = new Set(list.body.reports.map((r: { id: string }) => r.id));
    for (const r of created) expect(stored.has(r.body.id)).toBe(true);
  });

  it('two projects of one account share the quota under concurrency', async () => {
    const t = await server.tenant({ monthlyQuota: 5 });
    const { createProject } = await import('@debrief/server');
    const second = await createProject(server.ctx.db, t.accountId, 'Second');
    const keys = [t.ingestKey, second.ingestKey];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(`${server.url}/v1/reports`, {
          body: { ingest_key: keys[i % 2], outcome: 'request', details: `shared ${i}` },
        }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    expect(results.filter((r) => r.status === 429)).toHaveLength(15);
  });
});

/**
 * Two server processes on one PostgreSQL database, modelled by two instances
 * in this process: each has its own pool and its own group-commit writer, so only the row locks
 * of the counters keep their batches from passing the quota together.
 */
describe.skipIf(!DIALECTS.includes('postgres'))('quota across two instances on postgres', () => {
  let first: TestServer;
  let second: TestServer;
  beforeAll(async () => {
    first = await startTestServer('postgres');
    second = await startTestServer('postgres', {}, { databaseUrl: first.config.databaseUrl });
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  it('20 concurrent submits split over both, with 5 remaining, store exactly 5', async () => {
    const t = await first.tenant({ monthlyQuota: 5 });
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          call(`${(i % 2 === 0 ? first : second).url}/v1/reports`, {
            body: { ingest_key: t.ingestKey, outcome: 'failure', details: `race ${round} ${i}` },
          }),
        ),
      );
      const created = results.filter((r) => r.status === 201).length;
      expect(created).toBe(round === 0 ? 5 : 0);
      expect(results.filter((r) => r.status === 429)).toHaveLength(20 - created);
    }
    const list = await call(`${second.url}/v1/dashboard/${t.projectId}/reports?limit=100`, {
      headers: bearer(t.apiKey),
    });
    expect(list.body.pagination.total).toBe(5);
  });

  it('two writers submitting straight to one database: 5 of 40 stored, none lost, none extra', async () => {
    const t = await first.tenant({ monthlyQuota: 5 });
    const { submission } = await import('../support/submissions.js');
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? first : second).ctx.reportWriter.submit(submission(t.ingestKey)),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'stored')).toHaveLength(5);
    expect(outcomes.filter((o) => o.status === 'quota_exceeded')).toHaveLength(35);
  });
});
