import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../../test/harness/test-server.js';
import { revokeApiKeyOfAccount } from '../../src/keys/key.service.js';
import { bearer, call } from '../support/http.js';

describe.each(DIALECTS)('read API authentication on %s', (dialect) => {
  let server: TestServer;
  let t: Tenant;
  const paths = () => [
    '/v1/projects',
    `/v1/dashboard/${t.projectId}/reports`,
    `/v1/dashboard/${t.projectId}/events`,
  ];

  beforeAll(async () => {
    server = await startTestServer(dialect);
    t = await server.tenant();
  });
  afterAll(() => server.close());

  it('needs a key', async () => {
    for (const path of paths()) {
      const res = await call(`${server.url}${path}`);
      expect(res.status, path).toBe(401);
      expect(res.body.code).toBe('missing_api_key');
    }
  });

  it('refuses an ingest key used as a Bearer token with its own code', async () => {
    for (const path of paths()) {
      const res = await call(`${server.url}${path}`, { headers: bearer(t.ingestKey) });
      expect(res.status, path).toBe(401);
      expect(res.body.code).toBe('ingest_key_cannot_read');
    }
  });

  it('refuses unknown, mistyped and revoked keys', async () => {
    const mistyped = `${t.apiKey.slice(0, -1)}${t.apiKey.endsWith('A') ? 'B' : 'A'}`;
    const headers = [
      bearer('wk_sk_short'),
      bearer(mistyped),
      bearer(`wk_sk_${'a'.repeat(40)}`),
      { authorization: 'Basic abc' },
    ];
    for (const header of headers) {
      const res = await call(`${server.url}/v1/projects`, { headers: header });
      const key = header.authorization;
      expect(res.status, key).toBe(401);
      expect(res.body.code).toBe('invalid_api_key');
    }
    const other = await server.tenant();
    // Used first, so that the server holds the key (keys/key.service.ts apiKeyCache): a
    // revocation on this instance still stops it at once.
    const used = await call(`${server.url}/v1/projects`, { headers: bearer(other.apiKey) });
    expect(used.status).toBe(200);
    await revokeApiKeyOfAccount(
      server.ctx,
      other.accountId,
      (
        await server.ctx.db
          .selectFrom('api_keys')
          .select('id')
          .where('account_id', '=', other.accountId)
          .executeTakeFirstOrThrow()
      ).id,
    );
    const revoked = await call(`${server.url}/v1/projects`, { headers: bearer(other.apiKey) });
    expect(revoked.status).toBe(401);
    expect(revoked.body.code).toBe('invalid_api_key');
  });

  it("answers 404 for another account's project and for unknown ids, identically", async () => {
    const other = await server.tenant();
    const theirs = await call(`${server.url}/v1/dashboard/${other.projectId}/reports`, {
      headers: bearer(t.apiKey),
    });
    const unknown = await call(`${server.url}/v1/dashboard/${'0'.repeat(32)}/reports`, {
      headers: bearer(t.apiKey),
    });
    const garbage = await call(`${server.url}/v1/dashboard/not-an-id/reports`, {
      headers: bearer(t.apiKey),
    });
    for (const res of [theirs, unknown, garbage]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('project_not_found');
    }
    expect(theirs.body.title).toBe(unknown.body.title);
    const events = await call(`${server.url}/v1/dashboard/${other.projectId}/events`, {
      headers: bearer(t.apiKey),
    });
    expect(events.status).toBe(404);
  });

  it('records when an API key was last used', async () => {
    const fresh = await server.tenant();
    await call(`${server.url}/v1/projects`, { headers: bearer(fresh.apiKey) });
    const row = await server.ctx.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('account_id', '=', fresh.accountId)
      .executeTakeFirstOrThrow();
    expect(row.last_used_at).not.toBeNull();
  });
});
