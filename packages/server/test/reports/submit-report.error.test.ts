import { OUTCOMES, ProblemDetails } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';

describe.each(DIALECTS)('POST /v1/reports errors on %s', (dialect) => {
  let server: TestServer;
  let t: Tenant;
  const submit = (body: unknown) => call(`${server.url}/v1/reports`, { body });
  const expectProblem = (
    res: { status: number; headers: Headers; body: unknown },
    status: number,
    code: string,
  ) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = ProblemDetails.parse(res.body);
    expect(problem).toMatchObject({ ok: false, status, code });
    expect(problem.detail.length).toBeGreaterThan(20);
    return problem;
  };

  beforeAll(async () => {
    server = await startTestServer(dialect);
    t = await server.tenant();
  });
  afterAll(() => server.close());

  it('names the allowed outcomes and what was received', async () => {
    const problem = expectProblem(
      await submit({ ingest_key: t.ingestKey, outcome: 'worked', details: 'x' }),
      400,
      'validation_failed',
    );
    for (const outcome of OUTCOMES) expect(problem.detail).toContain(outcome);
    expect(problem.detail).toContain('"worked"');
    expect(problem.errors).toEqual([
      { field: 'outcome', message: expect.stringContaining('gave_up') },
    ]);
  });

  it('lists every invalid field at once so an agent can fix them in one retry', async () => {
    const problem = expectProblem(
      await submit({
        ingest_key: t.ingestKey,
        details: '   ',
        tool_name: 7,
        metadata: { nested: { a: 1 } },
      }),
      400,
      'validation_failed',
    );
    expect(problem.errors?.map((e) => e.field).sort()).toEqual([
      'details',
      'metadata.nested',
      'outcome',
      'tool_name',
    ]);
  });

  it('enforces the length limits', async () => {
    const long = await submit({
      ingest_key: t.ingestKey,
      outcome: 'success',
      details: 'x'.repeat(10_001),
      tool_name: 'x'.repeat(201),
      source: 's'.repeat(201),
    });
    const problem = expectProblem(long, 400, 'validation_failed');
    expect(problem.errors?.map((e) => e.field).sort()).toEqual(['details', 'source', 'tool_name']);
  });

  it('limits metadata to 20 keys and 2 KiB', async () => {
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i]));
    expectProblem(
      await submit({ ingest_key: t.ingestKey, outcome: 'success', details: 'x', metadata: many }),
      400,
      'validation_failed',
    );
    const big = { blob: 'x'.repeat(2100) };
    expectProblem(
      await submit({ ingest_key: t.ingestKey, outcome: 'success', details: 'x', metadata: big }),
      400,
      'validation_failed',
    );
    expectProblem(
      await submit({ ingest_key: t.ingestKey, outcome: 'success', details: 'x', metadata: ['a'] }),
      400,
      'validation_failed',
    );
  });

  it('refuses bodies that are not JSON objects', async () => {
    expectProblem(
      await call(`${server.url}/v1/reports`, { raw: '{"ingest_key": ' }),
      400,
      'invalid_json',
    );
    expectProblem(await call(`${server.url}/v1/reports`, { raw: '[1,2]' }), 400, 'invalid_body');
    expectProblem(await call(`${server.url}/v1/reports`, { raw: '"text"' }), 400, 'invalid_body');
    expectProblem(await call(`${server.url}/v1/reports`, { method: 'POST' }), 400, 'invalid_body');
  });

  it('answers 413 beyond 64 KiB and stores nothing', async () => {
    const fresh = await server.tenant();
    const body = JSON.stringify({
      ingest_key: fresh.ingestKey,
      outcome: 'success',
      details: 'x',
      pad: 'y'.repeat(70_000),
    });
    expectProblem(await call(`${server.url}/v1/reports`, { raw: body }), 413, 'payload_too_large');
    const list = await call(`${server.url}/v1/dashboard/${fresh.projectId}/reports`, {
      headers: bearer(fresh.apiKey),
    });
    expect(list.body.stats.total).toBe(0);
  });

  it('checks the key before the other fields', async () => {
    expectProblem(await submit({ outcome: 'nonsense' }), 401, 'missing_ingest_key');
    expectProblem(
      await submit({ ingest_key: `wk_${'0'.repeat(32)}`, outcome: 'nonsense' }),
      401,
      'invalid_ingest_key',
    );
  });

  it('stops at the monthly quota with 429, Retry-After to next month, and stores nothing', async () => {
    const small = await server.tenant({ monthlyQuota: 2 });
    for (let i = 0; i < 2; i++) {
      expect(
        (await submit({ ingest_key: small.ingestKey, outcome: 'success', details: `r${i}` }))
          .status,
      ).toBe(201);
    }
    const res = await submit({
      ingest_key: small.ingestKey,
      outcome: 'success',
      details: 'one too many',
    });
    expectProblem(res, 429, 'quota_exceeded');
    const now = new Date();
    const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(Math.abs(now.getTime() + retryAfter * 1000 - nextMonth)).toBeLessThan(10_000);
    const list = await call(`${server.url}/v1/dashboard/${small.projectId}/reports`, {
      headers: bearer(small.apiKey),
    });
    expect(list.body.stats.total).toBe(2);
  });

  it('counts the quota per account across its projects', async () => {
    const owner = await server.tenant({ monthlyQuota: 1 });
    const { createProject } = await import('@debrief/server');
    const second = await createProject(server.ctx.db, owner.accountId, 'Second');
    expect(
      (await submit({ ingest_key: owner.ingestKey, outcome: 'success', details: 'a' })).status,
    ).toBe(201);
    expectProblem(
      await submit({ ingest_key: second.ingestKey, outcome: 'success', details: 'b' }),
      429,
      'quota_exceeded',
    );
  });

  it('answers unknown routes and methods with problem details', async () => {
    expectProblem(await call(`${server.url}/v1/nothing-here`), 404, 'not_found');
    expectProblem(await call(`${server.url}/v1/reports`, { method: 'DELETE' }), 404, 'not_found');
  });
});
