import type { FastifyBaseLogger } from 'fastify';
import { createPasswordHasher } from './accounts/password-hasher.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { openMigratedDatabase } from './db/migrate.js';
import { StartupError } from './errors/startup-error.js';
import { Grouper } from './issues/grouper.js';
import { startGroupingThread } from './issues/grouping-thread.js';
import { IngestKeyCache } from './keys/ingest-key-cache.js';
import { apiKeyCache } from './keys/key.service.js';
import { IngestGate } from './limits/ingest-gate.js';
import { ThrottleLog } from './limits/throttle-log.js';
import { ownedProjectCache } from './projects/project.service.js';
import { LocalEventBus } from './realtime/event-bus.js';
import { PgEventBus } from './realtime/pg-event-bus.js';
import { findReportById } from './reports/report.repository.js';
import { toWireReport } from './reports/report.service.js';
import { createReportScreen } from './reports/screening/report-screen.js';
import { createReportWriter, type ReportWriter } from './reports/write-path/index.js';
import { sessionCache } from './sessions/session.service.js';

/**
 * Opens the database, brings its schema up to date, starts the report writer, the realtime
 * bus and the grouper.
 */
export async function buildContext(
  config: Config,
  log: FastifyBaseLogger,
  {
    groupingThread: threaded = true,
  }: {
    /**
     * Grouping batches in a thread of their own (the server), or on the main connection: the
     * test harness's in-process servers, which would each boot a thread through tsx (~1 s).
     */
    groupingThread?: boolean;
  } = {},
): Promise<AppContext & { close(): Promise<void> }> {
  const { database } = await openMigratedDatabase(config.databaseUrl, log, {
    readers: config.sqliteReaders,
    postgresConnections: config.postgresReadConnections,
    timeoutMs: config.readTimeoutMs,
  });
  if (database.created) {
    // Said loudly: a new empty database at a path that should hold data (a moved file, a wrong
    // DATABASE_URL or volume) makes every key look rotated, and the operator must notice.
    log.warn(
      { database: database.sqlitePath },
      `Created a NEW, EMPTY SQLite database at ${database.sqlitePath}. If this instance had data, stop it now: DATABASE_URL (or the mounted volume) does not point at the existing database file.`,
    );
  }
  let writerToClose: ReportWriter | null = null;
  try {
    const db = database.kysely;
    // Started (and waited for) here, so that a writer that cannot open the file stops start-up.
    // The writer groups the reports it moves into `reports` (SQLite file); what it announces
    // goes out through the grouper, made below, as the grouper's own announcements do.
    let announce: Grouper['announce'] = async () => {};
    // The other writers hand what they store to the grouper, made below, so that it need not
    // read the reports back (issues/stored-inputs.ts).
    let handOver: Grouper['stored'] = () => {};
    const reportWriter = createReportWriter(database, config, {
      onStored: config.issueGrouping
        ? (submissions, outcomes) => handOver(submissions, outcomes)
        : undefined,
      grouping: config.issueGrouping
        ? {
            announce: (changes) => void announce(changes),
            failed: (reason) =>
              log.warn({ reason }, 'reports were stored without an issue; the grouper groups them'),
          }
        : undefined,
      warn: (message) => log.warn(message),
    });
    writerToClose = reportWriter;
    await reportWriter.ready().catch((error: Error) => {
      throw new StartupError(
        `${error.message}. Fix DATABASE_URL, or the permissions of that file and its directory: the writer needs to write both.`,
        { cause: error },
      );
    });
    // Every read of the report tables waits for the reports acknowledged before it
    // (db/routed-dialect.ts): read-your-writes, without a flush() at each read.
    database.setReadBarrier(() => reportWriter.flush());
    let bus: LocalEventBus | PgEventBus = new LocalEventBus();
    if (database.postgresUrl) {
      const pgBus = new PgEventBus(
        database.postgresUrl,
        db,
        async (id) => {
          const row = await findReportById(db, id);
          return row ? { projectId: row.project_id, report: toWireReport(row) } : null;
        },
        log,
      );
      await pgBus.start();
      bus = pgBus;
    }
    const throttles = new ThrottleLog(db, log);
    throttles.start();
    // One key → project cache for the gate and the screen (keys/ingest-key-cache.ts).
    const ingestKeys = new IngestKeyCache(db);
    const ingestGate = new IngestGate(ingestKeys, config.ingestLimits, throttles);
    // `:memory:` cannot be opened by a second connection: its batches stay on this one.
    const groupingThread =
      threaded && config.issueGrouping && database.sqlitePath !== ':memory:'
        ? startGroupingThread({ url: config.databaseUrl })
        : null;
    // Ready before the first request, so the first reports do not wait for it to start. A
    // thread that cannot start does not stop the server: the grouper retries, and says why.
    await groupingThread?.ready().catch((error: unknown) => {
      log.warn({ err: error }, 'the grouping thread could not start; grouping retries');
    });
    const grouper = new Grouper({
      db,
      dialect: database.dialect,
      bus,
      log,
      batches: groupingThread ?? undefined,
    });
    announce = (changes) => grouper.announce(changes);
    handOver = (submissions, outcomes) => grouper.stored(submissions, outcomes);
    if (config.issueGrouping) grouper.start();
    return {
      config,
      database,
      db,
      bus,
      reportWriter,
      ingestGate,
      throttles,
      passwords: createPasswordHasher(),
      reportScreen: createReportScreen(db, config, ingestKeys),
      grouper,
      apiKeys: apiKeyCache(db),
      ownedProjects: ownedProjectCache(db),
      sessions: sessionCache(db),
      async close() {
        // The grouper first (its batch under way commits or rolls back), then the writer:
        // reports under way are stored (and announced) before the rest goes. Reports stored
        // after the grouper stopped are grouped by the next start.
        await grouper.stop();
        await reportWriter.close();
        ingestGate.close();
        await throttles.close();
        await bus.close();
        await database.close();
      },
    };
  } catch (error) {
    await writerToClose?.close();
    await database.close();
    throw error;
  }
}
