import type { FastifyBaseLogger } from 'fastify';
import type { Grouper, StartGroupingThread } from '../issues/pipeline/index.js';
import type { GroupingPort } from '../reports/write-path/index.js';
import { startWorker } from '../start-worker.js';

/**
 * The write path's grouping port (reports/write-path/grouping-port.ts) served by the grouper:
 * what the writers store goes to it, and the SQLite writer thread starts through the entry
 * that gives it the pipeline's grouper and the quota hook (sqlite-writer-worker.ts).
 */
export function groupingPortOf(grouper: Grouper, log: FastifyBaseLogger): GroupingPort {
  return {
    stored: (submissions, outcomes) => grouper.stored(submissions, outcomes),
    announce: (changes) => void grouper.announce(changes),
    failed: (reason) =>
      log.warn({ reason }, 'reports were stored without an issue; the grouper groups them'),
    startWriterThread: (data) => startWorker(import.meta.url, 'sqlite-writer-worker', data),
  };
}

/** The grouping thread's start, through the entry that gives it the notifications' hook. */
export const startGroupingThreadWithNotifications: StartGroupingThread = (data) =>
  startWorker(import.meta.url, 'grouping-thread-worker', data);
