import type { NotificationPayload } from '@debrief/protocol';
import { Mute, MuteList } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { slackChannel } from '../../src/notifications/channels/slack-channel.js';
import { mutedDestinations, skipMuted } from '../../src/notifications/mutes/mute-check.js';
import { bearer, call } from '../support/http.js';
import { triageKey } from '../support/issues-helpers.js';
import { seedIssue } from '../support/seed-issue.js';
import { fetchPoster, type Receiver, startReceiver } from './receiver.js';

const DESTINATION = `${'0'.repeat(31)}1`;
const OTHER = `${'0'.repeat(31)}2`;

describe.each(DIALECTS)('muting an issue (%s)', (dialect) => {
  let server: TestServer;
  let receiver: Receiver;
  beforeAll(async () => {
    server = await startTestServer(dialect);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await server.close();
  });

  async function setup() {
    const t = await server.tenant();
    const issueId = await seedIssue(server.ctx.db, t.projectId, { at: [new Date()] });
    const url = `${server.url}/v1/dashboard/${t.projectId}/issues/${issueId}/mutes`;
    return { t, issueId, url, triage: bearer(await triageKey(server, t)) };
  }

  it('mutes for a destination until N more reports, and for all destinations for a time', async () => {
    const { t, issueId, url, triage } = await setup();
    const byCount = await call(url, {
      body: { destination_id: DESTINATION, reports: 2 },
      headers: triage,
    });
    expect(byCount.status).toBe(201);
    expect(Mute.parse(byCount.body)).toMatchObject({
      destination_id: DESTINATION,
      until: null,
      until_count: 3,
      active: true,
    });
    let muted = await mutedDestinations(server.ctx.db, t.projectId, issueId);
    expect(muted.all).toBe(false);
    expect([...muted.ids]).toEqual([DESTINATION]);
    // Two more reports: the count is reached and the mute ends by itself.
    await server.ctx.db
      .updateTable('issues')
      .set({ report_count: 3 })
      .where('id', '=', issueId)
      .execute();
    muted = await mutedDestinations(server.ctx.db, t.projectId, issueId);
    expect(muted.ids.size).toBe(0);

    const forADay = await call(url, { body: { hours: 24 }, headers: triage });
    expect(forADay.status).toBe(201);
    const until = Date.parse(forADay.body.until);
    expect(until - Date.now()).toBeGreaterThan(23 * 3_600_000);
    muted = await mutedDestinations(server.ctx.db, t.projectId, issueId);
    expect(muted.all).toBe(true);
    expect(
      (await mutedDestinations(server.ctx.db, t.projectId, issueId, new Date(until + 1000))).all,
    ).toBe(false);

    const list = await call(url, { headers: bearer(t.apiKey) });
    expect(list.status).toBe(200);
    expect(MuteList.parse(list.body).data.map((m) => m.active)).toEqual([false, true]);

    const removed = await call(`${url}/${forADay.body.id}`, { method: 'DELETE', headers: triage });
    expect(removed.status).toBe(204);
    expect((await mutedDestinations(server.ctx.db, t.projectId, issueId)).all).toBe(false);
    const again = await call(`${url}/${forADay.body.id}`, { method: 'DELETE', headers: triage });
    expect(again.status).toBe(404);
  });

  it('a muted issue sends nothing to that destination; others still hear it', async () => {
    const { t, issueId, url, triage } = await setup();
    await call(url, { body: { destination_id: DESTINATION }, headers: triage });
    const channel = skipMuted(server.ctx.db, slackChannel(fetchPoster));
    const payload: NotificationPayload = {
      type: 'issue.regressed',
      timestamp: '2026-11-28T01:00:00Z',
      data: {
        project: { id: t.projectId, name: 'p', url: 'http://x/p' },
        issue: { id: issueId, url: 'http://x/i', title: 'boom' },
      },
    };
    const message = { id: 'msg_mute', timestamp: new Date(), payload };
    const before = receiver.requests.length;
    const target = { type: 'slack' as const, name: null, url: receiver.url, to: null };
    expect(await channel({ ...target, id: DESTINATION }, message)).toEqual({
      ok: true,
      error: 'muted',
    });
    expect(receiver.requests.length).toBe(before);
    expect((await channel({ ...target, id: OTHER }, message)).ok).toBe(true);
    expect(receiver.requests.length).toBe(before + 1);
  });

  it('needs triage to mute, and refuses other accounts and unknown issues', async () => {
    const { t, url, triage } = await setup();
    const readOnly = await call(url, { body: { hours: 1 }, headers: bearer(t.apiKey) });
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.code).toBe('missing_scope');
    const stranger = await server.tenant();
    const foreign = await call(url, {
      body: { hours: 1 },
      headers: bearer(await triageKey(server, stranger)),
    });
    expect(foreign.status).toBe(404);
    const unknown = await call(url.replace(/issues\/[0-9a-f]{32}/, `issues/${'f'.repeat(32)}`), {
      body: { hours: 1 },
      headers: triage,
    });
    expect(unknown.status).toBe(404);
    const invalid = await call(url, { body: { hours: 0 }, headers: triage });
    expect(invalid.status).toBe(400);
  });
});
