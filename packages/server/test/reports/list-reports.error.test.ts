import { ProblemDetails } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';

describe.each(DIALECTS)('GET /v1/dashboard/{projectId}/reports errors on %s', (dialect) => {
  let server: TestServer;
  let t: Tenant;
  const get = (query: string) =>
    call(`${server.url}/v1/dashboard/${t.projectId}/reports${query}`, {
      headers: bearer(t.apiKey),
    });

  beforeAll(async () => {
    server = await startTestServer(dialect);
    t = await server.tenant();
  });
  afterAll(() => server.close());

  it.each([
    ['?page=0', 'page'],
    ['?page=-1', 'page'],
    ['?page=1.5', 'page'],
    ['?page=abc', 'page'],
    ['?limit=0', 'limit'],
    ['?limit=ten', 'limit'],
    ['?outcome=great', 'outcome'],
    ['?from=yesterday', 'from'],
    ['?to=2026-02-30', 'to'],
    ['?from=2026-01-01T25:00:00Z', 'from'],
    ['?from=2026-02-01&to=2026-01-01', 'from'],
    ['?outcome=success&outcome=failure', 'outcome'],
  ])('refuses %s with 400 naming %s', async (query, field) => {
    const res = await get(query);
    expect(res.status).toBe(400);
    const problem = ProblemDetails.parse(res.body);
    expect(problem.code).toBe('invalid_query');
    expect(problem.errors?.map((e) => e.field)).toContain(field);
  });

  it('explains the allowed outcomes', async () => {
    const res = await get('?outcome=great');
    expect(res.body.detail).toContain('success, failure, confusing, gave_up, request');
  });

  it('says a reversed range once, naming the field once', async () => {
    const res = await get('?from=2026-02-01&to=2026-01-01');
    expect(res.body.detail).toBe('from must not be after to.');
  });
});
