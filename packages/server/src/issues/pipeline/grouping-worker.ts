import { parentPort, workerData } from 'node:worker_threads';
import { sql } from 'kysely';
import { openDatabase } from '../../db/database.js';
import { errorCode } from '../../errors/storage-fault.js';
import type { IssueChangeHook } from '../issue-announcements.js';
import { inProcessBatches } from './batch-runner.js';
import type {
  FromGroupingThread,
  GroupingThreadData,
  ToGroupingThread,
} from './grouping-thread.js';

/**
 * The grouping thread's body (started by grouping-thread.ts, through an entry that calls this:
 * grouping-thread-entry.ts, or src/wiring/'s with the notifications' hook): runs the batches it
 * is asked for, one transaction each, on its own connection to the server's database, until
 * told to close. `onChanges` is called with each batch's new and reopened issues in its
 * transaction.
 */
export async function runGroupingThread(onChanges?: IssueChangeHook): Promise<void> {
  const port = parentPort!;
  const { url } = workerData as GroupingThreadData;
  const database = openDatabase(url);
  // A grouping commit need not reach the disk before the next: if a power cut undoes it, the
  // reports it grouped are ungrouped again, and grouped the same way at the next start. Without
  // an fsync per batch its commits hold SQLite's write lock, which the report writer waits for,
  // a fraction as long.
  if (database.dialect === 'sqlite')
    await sql`pragma synchronous = NORMAL`.execute(database.kysely);
  const batches = inProcessBatches(database.kysely, database.dialect, { onChanges });
  // A query proves the connection (a PostgreSQL pool connects on demand).
  await sql`select 1`.execute(database.kysely);
  port.postMessage({ type: 'ready' } satisfies FromGroupingThread);

  port.on('message', async (message: ToGroupingThread) => {
    if (message.type === 'close') {
      await database.close().catch(() => {});
      port.close();
      return;
    }
    let reply: FromGroupingThread;
    try {
      reply =
        message.type === 'refresh'
          ? { type: 'refreshed', id: message.id, result: await batches.refresh() }
          : {
              type: 'grouped',
              id: message.id,
              result: await batches.group(message.limit, new Date(message.now), message.stored),
            };
    } catch (error) {
      reply = {
        type: 'failed',
        id: message.id,
        error: error instanceof Error ? error.message : String(error),
        code: errorCode(error),
      };
    }
    port.postMessage(reply);
  });
}
