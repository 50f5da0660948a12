import type { QuotaCrossingPort } from '../reports/write-path/index.js';
import { startWorker } from '../start-worker.js';
import { notifyQuotaCrossings } from './notification-seam.js';

/**
 * The write path's quota port (reports/write-path/quota-crossing-port.ts) served by the
 * notifications' outbox: the Kysely writer calls the hook in its batches' transactions; a SQLite
 * file's writer thread starts through the entry that holds the same hook.
 */
export const quotaCrossingPort: QuotaCrossingPort = {
  hook: notifyQuotaCrossings,
  startWriterThread: (data) => startWorker(import.meta.url, 'sqlite-writer-worker', data),
};
