import type { FastifyBaseLogger } from 'fastify';
import { createPasswordHasher, type PasswordHasherOptions } from './accounts/password-hasher.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import type { Database } from './db/database.js';
import { openMigratedDatabase } from './db/migrate.js';
import { StartupError } from './errors/startup-error.js';
import { AnswerableIssues, createIssueAnswers } from './issues/agent-loop/index.js';
import { IssueListExtras } from './issues/issue-list-extras.js';
import { createGrouper } from './issues/pipeline/index.js';
import { IngestKeyCache } from './keys/ingest-key-cache.js';
import { apiKeyCache } from './keys/key.service.js';
import { ForwardingSecrets } from './limits/forwarding/forwarding-secrets.js';
import { IngestGate } from './limits/ingest-gate.js';
import { ThrottleLog } from './limits/throttle-log.js';
import { enqueueNotifications, startDeliverer } from './notifications/index.js';
import { webhookChannel } from './notifications/webhook-channel.js';
import { ownedProjectCache } from './projects/project.service.js';
import { LocalEventBus } from './realtime/event-bus.js';
import { PgEventBus } from './realtime/pg-event-bus.js';
import { findReportById } from './reports/report.repository.js';
import { toWireReport } from './reports/report.service.js';
import { createReportScreen } from './reports/screening/report-screen.js';
import { createReportWriter } from './reports/write-path/index.js';
import { sessionCache } from './sessions/session.service.js';
import { groupingPortOf, startGroupingThreadWithNotifications } from './wiring/grouping-seam.js';
import {
  failingDestinationNotice,
  notificationChannels,
  notificationProducers,
} from './wiring/notification-producers.js';
import { notifyIssueChanges } from './wiring/notification-seam.js';
import { quotaCrossingPort } from './wiring/quota-seam.js';

/**
 * Opens the database, brings its schema up to date, starts the realtime bus, the grouper and
 * the report writer that hands it what it stores (src/wiring/grouping-seam.ts).
 */
export async function buildContext(
  config: Config,
  log: FastifyBaseLogger,
  {
    groupingThread: threaded = true,
    passwordHashing,
  }: {
    /**
     * Grouping batches in a thread of their own (the server), or on the main connection: the
     * test harness's in-process servers, which would each boot a thread through tsx (~1 s).
     */
    groupingThread?: boolean;
    /** The bound and cost of password hashes (a test server's cheaper scrypt). */
    passwordHashing?: PasswordHasherOptions;
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
  // What start-up opened so far, closed last to first if a later step fails.
  const opened: (() => Promise<void>)[] = [() => database.close()];
  try {
    const db = database.kysely;
    const bus = await startEventBus(database, log);
    opened.push(() => bus.close());
    // The grouper before the writer, which hands it what it stores (its grouping port).
    // `:memory:` cannot be opened by a second connection: its batches stay on this one.
    const grouper = await createGrouper({
      db,
      dialect: database.dialect,
      bus,
      log,
      thread:
        threaded && config.issueGrouping && database.sqlitePath !== ':memory:'
          ? { url: config.databaseUrl, start: startGroupingThreadWithNotifications }
          : null,
      onChanges: notifyIssueChanges,
    });
    opened.push(() => grouper.stop());
    // Started (and waited for) here, so that a writer that cannot open the file stops start-up.
    const reportWriter = createReportWriter(database, config, {
      grouping: config.issueGrouping ? groupingPortOf(grouper, log) : undefined,
      // A batch that passes 80 % of an account's month or its quota writes the notification.
      quotaCrossings: quotaCrossingPort,
      warn: (message) => log.warn(message),
    });
    opened.push(() => reportWriter.close());
    await reportWriter.ready().catch((error: Error) => {
      throw new StartupError(
        `${error.message}. Fix DATABASE_URL, or the permissions of that file and its directory: the writer needs to write both.`,
        { cause: error },
      );
    });
    // Every read of the report tables waits for the reports acknowledged before it
    // (db/routed-dialect.ts): read-your-writes, without a flush() at each read.
    database.setReadBarrier(() => reportWriter.flush());
    const producers = notificationProducers(db, config, log, enqueueNotifications);
    const throttles = new ThrottleLog(db, log, producers.onThrottled);
    throttles.start();
    // One key → project cache for the gate and the screen (keys/ingest-key-cache.ts).
    const ingestKeys = new IngestKeyCache(db);
    const forwardingSecrets = new ForwardingSecrets(db);
    const ingestGate = new IngestGate(
      ingestKeys,
      config.ingestLimits,
      throttles,
      forwardingSecrets,
    );
    if (config.issueGrouping) grouper.start();
    // Every instance delivers: the outbox's claims let each message go out from one at a time.
    const notifications = await startDeliverer({
      db,
      dialect: database.dialect,
      log,
      publicUrl: config.publicUrl,
      retryScheduleMs: config.notifications.retryScheduleMs,
      allowPrivateDestinations: config.notifications.allowPrivateDestinations,
      // The webhook channel is passed again here so that mutes apply to it as to the others.
      channels: (poster) =>
        notificationChannels(db, config, poster, { webhook: webhookChannel(poster) }),
      onFailing: failingDestinationNotice(db, config, log),
    });
    opened.push(() => notifications.stop());
    const running = producers.start();
    opened.push(() => running.close());
    const answerableIssues = new AnswerableIssues(db, bus);
    // A SQLite file's writer groups reports as it moves them, and reading a placement moves
    // them: only the background grouper elsewhere needs waking.
    const groupsOnMove = database.sqlitePath !== null && database.sqlitePath !== ':memory:';
    const issueAnswers =
      config.issueGrouping && config.issueAnswerWaitMs > 0
        ? createIssueAnswers({
            db,
            issues: answerableIssues,
            wakeGrouper: groupsOnMove ? () => {} : () => grouper.wake(),
            waitMs: config.issueAnswerWaitMs,
          })
        : null;
    return {
      config,
      database,
      db,
      bus,
      reportWriter,
      ingestGate,
      forwardingSecrets,
      throttles,
      passwords: createPasswordHasher(passwordHashing),
      reportScreen: createReportScreen(db, config, ingestKeys),
      grouper,
      deliverer: notifications.deliverer,
      issueAnswers,
      answerableIssues,
      issueListExtras: new IssueListExtras(),
      apiKeys: apiKeyCache(db),
      ownedProjects: ownedProjectCache(db),
      sessions: sessionCache(db),
      async close() {
        // The grouper first (its batch under way commits or rolls back), then the writer:
        // reports under way are stored (and announced) before the rest goes. Reports stored
        // after the grouper stopped are grouped by the next start.
        await grouper.stop();
        await running.close();
        await notifications.stop();
        await reportWriter.close();
        ingestGate.close();
        await throttles.close();
        await bus.close();
        await database.close();
      },
    };
  } catch (error) {
    for (const close of opened.reverse()) await close();
    throw error;
  }
}

/** The realtime bus: in process, or across instances through PostgreSQL's LISTEN/NOTIFY. */
async function startEventBus(
  database: Database,
  log: FastifyBaseLogger,
): Promise<LocalEventBus | PgEventBus> {
  if (!database.postgresUrl) return new LocalEventBus();
  const db = database.kysely;
  const bus = new PgEventBus(
    database.postgresUrl,
    db,
    async (id) => {
      const row = await findReportById(db, id);
      return row ? { projectId: row.project_id, report: toWireReport(row) } : null;
    },
    log,
  );
  await bus.start();
  return bus;
}
