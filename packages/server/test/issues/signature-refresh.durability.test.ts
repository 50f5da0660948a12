import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  DIALECTS,
  type TestDatabase,
} from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import type { DB } from '../../src/db/schema.js';
import { parseSignature, TERMS_VERSION } from '../../src/issues/grouping/index.js';
import { SignatureRefresh } from '../../src/issues/pipeline/signature-refresh.js';
import { issueOf, submit } from '../support/issues-helpers.js';
import {
  groupedAfresh,
  makeStale,
  OLD_RULES_SIGNATURE,
  PROBLEM,
  refreshAll,
  reportsOf,
  STALE,
  submitAll,
} from '../support/stale-signatures.js';

/**
 * The signature refresh stopped midway: a round that fails (as a crash would stop it) writes
 * nothing, and the next rounds finish the work; after an upgrade, a server's grouping thread
 * refreshes the stale signatures by itself once it starts.
 */
describe.each(DIALECTS)('a refresh stopped midway on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  it('writes nothing of a round that fails, and finishes after', async () => {
    const { db } = server.ctx;
    const t = await server.tenant();
    const { issues } = await submitAll(server, t, [PROBLEM[0] as string]);
    const other = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'export',
      details: 'Export to CSV cuts every row after the first thousand',
    });
    const older = issues[0] as string;
    const newer = await issueOf(server, t, other);
    for (const id of [older, newer]) await makeStale(db, id, STALE(1));
    // The round writes the newer issue first, then fails on the older: as a crash would stop it.
    await crashOnUpdate(db, dialect, older);
    try {
      await expect(new SignatureRefresh().round(db, dialect)).rejects.toThrow(/crash mid-refresh/);
    } finally {
      await dropCrash(db, dialect);
    }
    const stillStale = await db
      .selectFrom('issues')
      .select(['signature', 'terms_version'])
      .where('id', 'in', [older, newer])
      .execute();
    expect(stillStale).toEqual([
      { signature: STALE(1), terms_version: 1 },
      { signature: STALE(1), terms_version: 1 },
    ]);

    await refreshAll(server);
    for (const id of [older, newer]) {
      const row = await db
        .selectFrom('issues')
        .select(['signature', 'terms_version'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(row.terms_version).toBe(TERMS_VERSION);
      expect(parseSignature(row.signature)).toEqual(groupedAfresh(await reportsOf(db, id)));
    }
  });
});

describe.each(DIALECTS)('after an upgrade on %s', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect, { migrated: true });
  });
  afterAll(() => database.drop());

  it('the grouping thread refreshes the stale signatures by itself once the server starts', async () => {
    const first = await startTestServer(dialect, {}, { databaseUrl: database.url });
    const t = await first.tenant();
    const { issues } = await submitAll(first, t, PROBLEM);
    const issue = issues[0] as string;
    await makeStale(first.ctx.db, issue, OLD_RULES_SIGNATURE);
    await first.close();

    const upgraded = await startTestServer(
      dialect,
      {},
      { databaseUrl: database.url, groupingThread: true },
    );
    try {
      const deadline = Date.now() + 20_000;
      let row = { signature: OLD_RULES_SIGNATURE, terms_version: 1 };
      while (row.terms_version !== TERMS_VERSION && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        row = await upgraded.ctx.db
          .selectFrom('issues')
          .select(['signature', 'terms_version'])
          .where('id', '=', issue)
          .executeTakeFirstOrThrow();
      }
      expect(row.terms_version).toBe(TERMS_VERSION);
      expect(parseSignature(row.signature)).toEqual(
        groupedAfresh(await reportsOf(upgraded.ctx.db, issue)),
      );
    } finally {
      await upgraded.close();
    }
  });
});

/** A trigger that fails the update of one issue's signature, as a crash mid-round would. */
async function crashOnUpdate(db: Kysely<DB>, dialect: string, issueId: string) {
  const id = sql.lit(issueId);
  if (dialect === 'postgres') {
    await sql`create function refresh_crash() returns trigger language plpgsql as $$
      begin raise exception 'crash mid-refresh'; end $$`.execute(db);
    await sql`create trigger refresh_crash before update of signature on issues for each row
      when (new.id = ${id}) execute function refresh_crash()`.execute(db);
  } else {
    await sql`create trigger refresh_crash before update of signature on issues
      when new.id = ${id} begin select raise(abort, 'crash mid-refresh'); end`.execute(db);
  }
}

async function dropCrash(db: Kysely<DB>, dialect: string) {
  if (dialect === 'postgres') {
    await sql`drop trigger refresh_crash on issues`.execute(db);
    await sql`drop function refresh_crash()`.execute(db);
  } else await sql`drop trigger refresh_crash`.execute(db);
}
