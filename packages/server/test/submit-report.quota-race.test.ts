import { ProblemDetails, SubmitReportResponse } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import { bearer, call } from './http.js';

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
