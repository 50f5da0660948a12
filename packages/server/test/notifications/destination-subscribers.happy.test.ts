import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { createTenant } from '../../../../test/harness/test-server.js';
import { newId } from '../../src/ids.js';
import { findSubscribers } from '../../src/notifications/producers/index.js';
import { openTenantDatabase } from '../support/seed.js';

describe.each(DIALECTS)('the producers read subscribed destinations (%s)', (dialect) => {
  let opened: Awaited<ReturnType<typeof openTenantDatabase>>;
  beforeAll(async () => {
    opened = await openTenantDatabase(dialect);
    // The destinations' migration makes this table; until it is in the tree, the columns the
    // producers read (and the ones a row needs) are made here.
    await sql`
      create table if not exists notification_destinations (
        id text primary key, project_id text not null, type text not null,
        events text not null, filter text not null default '{}', spike text not null default '{}',
        digest_hour integer, metadata_keys text not null default '[]',
        status text not null default 'active', created_at bigint not null, updated_at bigint not null
      )`.execute(opened.db);
  });
  afterAll(() => opened.close());

  it('lists the active destinations that subscribe to a type, with their rules', async () => {
    const t = await createTenant({ db: opened.db } as never);
    const add = async (fields: {
      events: string[];
      status?: string;
      spike?: object;
      filter?: object;
      digest_hour?: number;
    }) => {
      const id = newId();
      await sql`
        insert into notification_destinations
          (id, project_id, type, events, filter, spike, digest_hour, metadata_keys, status, created_at, updated_at)
        values (${id}, ${t.projectId}, 'webhook', ${JSON.stringify(fields.events)},
          ${JSON.stringify(fields.filter ?? {})}, ${JSON.stringify(fields.spike ?? {})},
          ${fields.digest_hour ?? null}, '[]', ${fields.status ?? 'active'}, ${Date.now()}, ${Date.now()})
      `.execute(opened.db);
      return id;
    };
    const spiking = await add({
      events: ['issue.spiking', 'digest.daily'],
      spike: { min_reports: 3 },
      digest_hour: 6,
    });
    await add({ events: ['issue.spiking'], status: 'paused' });
    const filtered = await add({ events: ['report.created'], filter: { outcome: 'failure' } });
    const mine = <T extends { projectId: string }>(list: T[]) =>
      list.filter((d) => d.projectId === t.projectId);

    expect(mine(await findSubscribers(opened.db, 'issue.spiking'))).toEqual([
      {
        id: spiking,
        projectId: t.projectId,
        filter: {},
        spike: { min_reports: 3, factor: 5 },
        digestHour: 6,
      },
    ]);
    expect(
      mine(await findSubscribers(opened.db, 'report.created')).map((d) => [d.id, d.filter]),
    ).toEqual([[filtered, { outcome: 'failure' }]]);
    expect(mine(await findSubscribers(opened.db, 'quota.warning'))).toEqual([]);
  });
});
