import type { FastifyBaseLogger } from 'fastify';
import { MINUTE_MS } from '../../time/utc-time.js';
import { sendDailyDigests } from './daily-digest.js';
import { sendReportBatches } from './report-batches.js';
import { checkSpikes } from './spike-check.js';
import type { ProducerDeps } from './subscribers.js';

export { digestOf } from './daily-digest.js';
export { findSubscribers } from './destination-subscribers.repository.js';
export type { FindSubscribers, ProducerDeps, SubscribedDestination } from './subscribers.js';
export { announceThrottleEpisodes } from './throttle-episodes.js';
export { checkSpikes, sendDailyDigests, sendReportBatches };

/** How often `report.created` batches are looked for (each destination still gets one a minute). */
export const REPORT_PASS_MS = 5_000;

export interface ProducerOptions {
  log: Pick<FastifyBaseLogger, 'warn'>;
  /** Test hooks; production runs every minute and every 5 s. */
  minuteMs?: number;
  reportPassMs?: number;
  now?: () => Date;
}

/**
 * The periodic notification producers, one entry: every minute the spike and digest checks,
 * every 5 s the `report.created` batches. Each pass runs alone (a slow pass delays the
 * next rather than overlapping it) and a failing one is logged and tried at the next tick; each
 * claims what it announces in the transaction that enqueues it, so instances may all run them.
 * The throttle episodes are not here: they follow the refused-submission counts
 * (`announceThrottleEpisodes`, called by limits/throttle-log.ts's flush); nor the quota's marks,
 * written by the write path's batch that passes them (`announceQuotaCrossings`, through
 * src/wiring/notification-seam.ts).
 */
export function startNotificationProducers(deps: ProducerDeps, options: ProducerOptions) {
  const now = options.now ?? (() => new Date());
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<Promise<unknown>>();
  let closed = false;
  const every = (ms: number, name: string, pass: (at: Date) => Promise<unknown>) => {
    let busy = false;
    const timer = setInterval(() => {
      if (busy || closed) return;
      busy = true;
      const run = pass(now())
        .catch((error) => options.log.warn({ err: error }, `notification producer ${name} failed`))
        .finally(() => {
          busy = false;
          running.delete(run);
        });
      running.add(run);
    }, ms);
    timer.unref();
    timers.push(timer);
  };
  const minute = options.minuteMs ?? MINUTE_MS;
  every(minute, 'issue.spiking', (at) => checkSpikes(deps, at));
  every(minute, 'digest.daily', (at) => sendDailyDigests(deps, at));
  every(options.reportPassMs ?? REPORT_PASS_MS, 'report.created', (at) =>
    sendReportBatches(deps, at),
  );
  return {
    async close(): Promise<void> {
      closed = true;
      for (const timer of timers) clearInterval(timer);
      await Promise.all(running);
    },
  };
}
