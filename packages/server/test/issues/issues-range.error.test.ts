import { ProblemDetails } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';

/**
 * The issues list's `from`/`to` are the reports list's: the same bad values are refused with the
 * same 400 problem, word for word, on every dialect.
 */
describe.each(DIALECTS)('GET …/issues from/to errors on %s', (dialect) => {
  let server: TestServer;
  let t: Tenant;
  const get = (list: 'issues' | 'reports', query: string) =>
    call(`${server.url}/v1/dashboard/${t.projectId}/${list}${query}`, {
      headers: bearer(t.apiKey),
    });

  beforeAll(async () => {
    server = await startTestServer(dialect);
    t = await server.tenant();
  });
  afterAll(() => server.close());

  it.each([
    ['?from=yesterday', 'from'],
    ['?to=2026-02-30', 'to'],
    ['?from=2026-01-01T25:00:00Z', 'from'],
    ['?to=2026-01-01T10:00:00+24:00', 'to'],
    ['?from=2026-02-01&to=2026-01-01', 'from'],
    ['?from=2026-01-01&from=2026-01-02', 'from'],
  ])('refuses %s naming %s, as the reports list does', async (query, field) => {
    const res = await get('issues', query);
    expect(res.status).toBe(400);
    const problem = ProblemDetails.parse(res.body);
    expect(problem.code).toBe('invalid_query');
    expect(problem.errors?.map((e) => e.field)).toContain(field);
    const reports = await get('reports', query);
    expect(reports.status).toBe(400);
    expect(problem.detail).toBe(reports.body.detail);
    expect(problem.errors).toEqual(reports.body.errors);
  });

  it('says a reversed range once, naming the field once', async () => {
    const res = await get('issues', '?from=2026-02-01&to=2026-01-01');
    expect(res.body.detail).toBe('from must not be after to.');
  });
});
