import { ProblemDetails } from '@debrief/protocol';
import { rotateIngestKey } from '@debrief/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { call } from '../support/http.js';

describe.each(DIALECTS)('POST /v1/reports keys on %s', (dialect) => {
  let server: TestServer;
  const submit = (ingest_key: unknown) =>
    call(`${server.url}/v1/reports`, { body: { ingest_key, outcome: 'success', details: 'x' } });

  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  it('refuses a missing, empty or malformed key with 401', async () => {
    for (const key of [undefined, null, ''])
      expect((await submit(key)).body.code).toBe('missing_ingest_key');
    for (const key of [42, 'wk_XYZ', `wk_${'A'.repeat(32)}`, `wk_${'0'.repeat(31)}`]) {
      const res = await submit(key);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('invalid_ingest_key');
    }
  });

  it('refuses a secret API key sent as ingest key, telling the caller never to embed it', async () => {
    const t = await server.tenant();
    const res = await submit(t.apiKey);
    expect(res.status).toBe(401);
    const problem = ProblemDetails.parse(res.body);
    expect(problem.code).toBe('secret_key_not_allowed');
    expect(problem.detail).toMatch(/never be embedded/);
    expect(JSON.stringify(res.body)).not.toContain(t.apiKey);
  });

  it('refuses a rotated key at once and accepts the new one', async () => {
    const t = await server.tenant();
    const newKey = await rotateIngestKey(server.ctx.db, t.projectId);
    expect((await submit(t.ingestKey)).body.code).toBe('invalid_ingest_key');
    expect((await submit(newKey)).status).toBe(201);
  });

  it('stores nothing for a refused key', async () => {
    const t = await server.tenant();
    await submit(`wk_${'f'.repeat(32)}`);
    const rows = await server.ctx.db
      .selectFrom('reports')
      .select('id')
      .where('project_id', '=', t.projectId)
      .execute();
    expect(rows).toHaveLength(0);
  });

  it('does not leak internals in errors', async () => {
    const res = await call(`${server.url}/v1/reports`, { raw: '{"ingest_key":' });
    expect(JSON.stringify(res.body)).not.toMatch(/at \w+ \(|node_modules|stack/);
  });
});
