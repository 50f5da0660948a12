import { createReader, DebriefError } from '@debrief/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import { closedPort } from './local-servers.js';

describe('createReader failures', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(() => server.close());

  it('throws the server problem for an unknown API key', async () => {
    const reader = createReader({ apiKey: `wk_sk_${'a'.repeat(38)}`, baseUrl: server.url });
    const error = await reader.listProjects().catch((e) => e);
    expect(error).toBeInstanceOf(DebriefError);
    expect(error.problem).toMatchObject({ status: 401, ok: false });
  });

  it('throws a 400 naming the allowed values for a bad filter', async () => {
    const t = await server.tenant();
    const reader = createReader({ apiKey: t.apiKey, baseUrl: server.url });
    const error = await reader
      .getReports(t.projectId, { outcome: 'nope' as never })
      .catch((e) => e);
    expect(error).toMatchObject({ status: 400, code: 'invalid_query' });
    expect(error.problem.detail).toContain('success, failure, confusing, gave_up, request');
  });

  it('throws a 400 naming a filter the server does not have, rather than get every report', async () => {
    const t = await server.tenant();
    const reader = createReader({ apiKey: t.apiKey, baseUrl: server.url });
    const error = await reader.getReports(t.projectId, { q: 'timeout' } as never).catch((e) => e);
    expect(error).toMatchObject({ status: 400, code: 'invalid_query' });
    expect(error.problem.detail).toContain('Unknown query parameter q');
  });

  it('throws not found for a project of another account', async () => {
    const mine = await server.tenant();
    const theirs = await server.tenant();
    const reader = createReader({ apiKey: mine.apiKey, baseUrl: server.url });
    await expect(reader.getReports(theirs.projectId)).rejects.toMatchObject({ status: 404 });
    const stream = reader.events(theirs.projectId);
    await expect(stream.next()).rejects.toMatchObject({ status: 404 });
  });

  it('throws network_error when the event stream cannot open', async () => {
    const reader = createReader({
      apiKey: `wk_sk_${'a'.repeat(38)}`,
      baseUrl: `http://127.0.0.1:${await closedPort()}`,
      retries: 0,
    });
    await expect(reader.events('0'.repeat(32)).next()).rejects.toMatchObject({
      code: 'network_error',
      status: 0,
    });
    await expect(reader.listProjects()).rejects.toMatchObject({ code: 'network_error' });
  });
});
