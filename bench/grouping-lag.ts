/**
 * How far issue grouping trails ingest: while a load runs, the age of the oldest
 * report without an issue (on SQLite the writer's inbox counts too: its reports are not yet
 * in `reports`), sampled every 250 ms on a connection of the bench's own; after the load, how
 * long until every report has its issue. The largest age seen bounds how long any report
 * waited for its issue, give or take one sample: the figure against the 2 s target.
 */
import { openSeedConnection, query, tableExists } from './seed-connection.js';

const SAMPLE_MS = 250;
/** Waiting for the backlog after the load gives up after this long (the figure says so). */
const DRAIN_LIMIT_MS = 120_000;

export interface GroupingLag {
  /** The oldest ungrouped report's age at the worst sample, during the load. */
  maxAgeMs: number;
  /** From the end of the load until no report was left without an issue (null: gave up). */
  drainedMs: number | null;
}

export async function watchGroupingLag(databaseUrl: string) {
  const conn = await openSeedConnection(databaseUrl);
  // The reports without an issue: queued in `grouping_queue` since migration 0019, each stored
  // batch a row (an older build's database, in an A/B of builds, has them in `report_issues`
  // since 0017, in `reports` before).
  const ungrouped = (await tableExists(conn, 'grouping_queue'))
    ? 'grouping_queue'
    : (await tableExists(conn, 'report_issues'))
      ? 'report_issues where issue_id is null'
      : 'reports where issue_id is null';
  const oldest = async (): Promise<number | null> => {
    const sql =
      conn.dialect === 'sqlite'
        ? `select min(m) as m from (select min(created_at) as m from ${ungrouped}
             union all select min(created_at) from report_inbox)`
        : `select min(created_at) as m from ${ungrouped}`;
    const [row] = await query<{ m: string | Date | null }>(conn, sql);
    return row?.m ? new Date(row.m).getTime() : null;
  };
  let maxAgeMs = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const at = await oldest();
      if (at !== null) maxAgeMs = Math.max(maxAgeMs, Date.now() - at);
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
    }
  })();
  const close = async () => {
    // Closed without the seeder's checkpoint: the server still has the file open.
    if (conn.dialect === 'postgres') await conn.pg.end();
    else conn.sqlite.close();
  };
  let closed = false;
  return {
    /** Stops without waiting for the backlog (a load that failed); nothing after stop(). */
    async cancel(): Promise<void> {
      sampling = false;
      await sampler;
      if (!closed) await close();
      closed = true;
    },
    /** Call when the load has stopped: waits for the backlog, then closes the connection. */
    async stop(): Promise<GroupingLag> {
      sampling = false;
      await sampler;
      const ended = Date.now();
      let drainedMs: number | null = null;
      while (Date.now() - ended < DRAIN_LIMIT_MS) {
        if ((await oldest()) === null) {
          drainedMs = Date.now() - ended;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      closed = true;
      await close();
      return { maxAgeMs, drainedMs };
    },
  };
}
