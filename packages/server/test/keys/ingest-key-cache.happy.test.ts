import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { IngestKeyCache } from '../../src/keys/ingest-key-cache.js';

/**
 * The one key → project cache the ingest gate and the report screen share
 * (keys/ingest-key-cache.ts): one read per key per 10 s for both, synchronous on a hit.
 */
describe.each(DIALECTS)('ingest key cache on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  it('loads a key once for concurrent callers, then answers from memory until forgotten', async () => {
    const t = await server.tenant();
    const cache = new IngestKeyCache(server.ctx.db);
    expect(cache.peek(t.ingestKey)).toBeUndefined();
    const [a, b] = await Promise.all([cache.get(t.ingestKey), cache.get(t.ingestKey)]);
    expect(a).toMatchObject({ project_id: t.projectId, redact_personal_data: 0 });
    expect(b).toBe(a);
    // A hit is not a promise: the gate stays synchronous on the hot path.
    expect(cache.get(t.ingestKey)).toBe(a);
    cache.forgetProject(t.projectId);
    expect(cache.peek(t.ingestKey)).toBeUndefined();
  });

  it('remembers an unknown key as null', async () => {
    const cache = new IngestKeyCache(server.ctx.db);
    const unknown = `wk_${'0'.repeat(32)}`;
    expect(await cache.get(unknown)).toBeNull();
    expect(cache.peek(unknown)).toBeNull();
  });
});
