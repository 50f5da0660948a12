import { AGENT_NOTE_MAX_LENGTH } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';
import { issueOf, issuesUrl, submit, triageKey } from '../support/issues-helpers.js';

describe.each(DIALECTS)('PATCH agent_note on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  it('refuses a note too long, of the wrong type, or from a read-only key', async () => {
    const t = await server.tenant();
    const key = await triageKey(server, t);
    const id = await issueOf(
      server,
      t,
      await submit(server, t, { outcome: 'failure', details: 'Timeout on export' }),
    );
    const patch = (body: unknown, apiKey = key) =>
      call(issuesUrl(server, t, `/${id}`), { method: 'PATCH', body, headers: bearer(apiKey) });

    const long = await patch({ agent_note: 'x'.repeat(AGENT_NOTE_MAX_LENGTH + 1) });
    expect(long.status).toBe(400);
    expect(long.body.errors).toEqual([
      { field: 'agent_note', message: expect.stringContaining('at most 1000 characters') },
    ]);
    const wrong = await patch({ agent_note: 42 });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0].field).toBe('agent_note');
    const readOnly = await patch({ agent_note: 'Upgrade' }, t.apiKey);
    expect(readOnly.status).toBe(403);

    const exact = await patch({ agent_note: 'y'.repeat(AGENT_NOTE_MAX_LENGTH) });
    expect(exact.status).toBe(200);
    expect(exact.body.agent_note).toHaveLength(AGENT_NOTE_MAX_LENGTH);
  });
});
