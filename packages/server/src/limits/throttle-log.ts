import type { ThrottleReason } from '@debrief/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { DAY_MS, utcDay } from '../time/utc-time.js';
import { addThrottled, pruneAddressUsage, type ThrottledRow } from './limits.repository.js';

/** How often refused submissions counted in memory are added to the database. */
export const THROTTLE_FLUSH_MS = 5_000;
/** Rows held between two flushes at most; past it, new addresses are counted as one. */
const MAX_PENDING = 10_000;
const OTHER_ADDRESSES = 'other addresses';

/**
 * Counts refused submissions per project, UTC day, address and reason for the dashboard. A
 * flood is refused thousands of times a second: a database write for each would be the very
 * load the limits keep away, so the counts are added up in memory and written every 5 s (and
 * on close), one upsert per row. A crash loses at most those 5 s of counts, which are a
 * statistic, not a limit. Once a day it also prunes the per-address counters of past days.
 */
export class ThrottleLog {
  private pending = new Map<string, ThrottledRow>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private prunedDay = '';

  constructor(
    private readonly db: Kysely<DB>,
    private readonly log: FastifyBaseLogger,
    /** Told of each flush's rows once stored: the `ingest.throttled` notifications start there. */
    private readonly onStored?: (rows: readonly ThrottledRow[]) => Promise<unknown>,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush().catch(() => {}), THROTTLE_FLUSH_MS);
    this.timer.unref();
  }

  record(projectId: string, address: string, reason: ThrottleReason, now = Date.now()): void {
    const day = utcDay(now);
    let key = `${projectId} ${day} ${address} ${reason}`;
    let row = this.pending.get(key);
    if (!row && this.pending.size >= MAX_PENDING) {
      address = OTHER_ADDRESSES;
      key = `${projectId} ${day} ${address} ${reason}`;
      row = this.pending.get(key);
    }
    if (row) row.count += 1;
    else this.pending.set(key, { projectId, day, address, reason, count: 1 });
  }

  /** Writes the counts held in memory; one flush at a time, in order. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  private async write(): Promise<void> {
    const rows = [...this.pending.values()];
    this.pending = new Map();
    try {
      await addThrottled(this.db, rows);
      const yesterday = utcDay(Date.now() - DAY_MS);
      if (this.prunedDay !== yesterday) {
        await pruneAddressUsage(this.db, yesterday);
        this.prunedDay = yesterday;
      }
    } catch (error) {
      // A statistic: logged and dropped rather than retried against a failing database.
      this.log.warn({ err: error, rows: rows.length }, 'throttled request counts not stored');
      return;
    }
    if (this.onStored && rows.length > 0)
      await this.onStored(rows).catch((error) =>
        this.log.warn(
          { err: error },
          'throttle notifications not produced; tried at the next flush',
        ),
      );
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }
}
