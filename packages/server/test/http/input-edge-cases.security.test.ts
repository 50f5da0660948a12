import { ProblemDetails, ReportList } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';
import { signUp } from '../support/session-client.js';

/**
 * Input edge cases: `metadata: {"__proto__": {…}}` (which a plain parse would keep as `{}`) and
 * an escaped lone surrogate (invalid UTF-8 on SQLite, U+FFFD on PostgreSQL) are a 400 naming
 * the field, on every dialect and on both validation paths (the fast path and the schema).
 */
describe.each(DIALECTS)('input edge cases on %s', (dialect) => {
  let server: TestServer;
  let tenant: Tenant;
  beforeAll(async () => {
    server = await startTestServer(dialect, { SIGNUPS: 'open' });
    tenant = await server.tenant();
  });
  afterAll(() => server.close());

  /** Posts JSON text as written: `__proto__` and `\ud800` escapes reach JSON.parse unchanged. */
  const submitText = (fields: string) =>
    call(`${server.url}/v1/reports`, {
      raw: `{"ingest_key":"${tenant.ingestKey}","outcome":"success",${fields}}`,
      headers: { 'content-type': 'application/json' },
    });

  const expectFieldError = (res: { status: number; body: unknown }, field: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    const problem = ProblemDetails.parse(res.body);
    expect(problem.code).toBe('validation_failed');
    expect(problem.errors?.map((e) => e.field)).toContain(field);
    return problem;
  };

  const stored = async () => {
    const res = await call(`${server.url}/v1/dashboard/${tenant.projectId}/reports?limit=100`, {
      headers: bearer(tenant.apiKey),
    });
    return ReportList.parse(res.body).reports;
  };

  it('refuses __proto__, constructor and prototype keys in metadata, naming the key', async () => {
    const before = (await stored()).length;
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      for (const value of ['{"isAdmin":true}', '"x"', '1']) {
        const res = await submitText(`"details":"d","metadata":{"model":"m","${key}":${value}}`);
        const problem = expectFieldError(res, `metadata.${key}`);
        expect(problem.detail).toContain('reserved key');
      }
    }
    // A valid report with the same metadata minus the key is stored as sent.
    expect((await submitText('"details":"d","metadata":{"model":"m"}')).status).toBe(201);
    const reports = await stored();
    expect(reports).toHaveLength(before + 1);
    expect(reports[0]?.metadata).toEqual({ model: 'm' });
  });

  it('refuses a lone surrogate in details, labels and metadata with a 400 naming the field', async () => {
    const before = (await stored()).length;
    const cases: Array<[string, string]> = [
      ['"details":"half \\ud800 a pair"', 'details'],
      ['"details":"\\udfff"', 'details'],
      ['"details":"d","tool_name":"search\\ud83d"', 'tool_name'],
      ['"details":"d","source":"\\ude00agent"', 'source'],
      ['"details":"d","metadata":{"model":"x\\ud800"}', 'metadata.model'],
      ['"details":"d","metadata":{"k\\udbff":"v"}', 'metadata.k\udbff'],
    ];
    for (const [fields, field] of cases) {
      const problem = expectFieldError(await submitText(fields), field);
      expect(problem.detail).toContain('lone surrogate');
    }
    expect(await stored()).toHaveLength(before);
  });

  it('stores a character outside the BMP, escaped as its full pair, unchanged', async () => {
    const res = await submitText(
      '"details":"works \\ud83d\\ude00","tool_name":"t\\ud83d\\ude00","metadata":{"e\\ud83d\\ude00":"\\ud83d\\ude00"}',
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [report] = await stored();
    expect(report).toMatchObject({
      details: 'works \u{1F600}',
      tool_name: 't\u{1F600}',
      metadata: { 'e\u{1F600}': '\u{1F600}' },
    });
  });

  it('applies the same text rules to names and filters', async () => {
    const user = await signUp(server);
    const named = await user.call('/v1/console/projects', { body: { name: 'Tools \ud800' } });
    expectFieldError(named, 'name');
    const key = await user.call('/v1/console/api-keys', { body: { name: '\udc00' } });
    expectFieldError(key, 'name');
    const filter = await call(
      `${server.url}/v1/dashboard/${tenant.projectId}/reports?tool_name=a%00b`,
      { headers: bearer(tenant.apiKey) },
    );
    expect(filter.status).toBe(400);
  });
});
