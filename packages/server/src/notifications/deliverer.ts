import type { DestinationType } from '@debrief/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Dialect } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { DAY_MS } from '../time/utc-time.js';
import {
  type ClaimedMessage,
  claimDueMessages,
  clearLeases,
  failPendingMessages,
  pruneDeliveries,
  recordAttempt,
  recordDoneRecipients,
} from './delivery.repository.js';
import {
  type DestinationRecord,
  findDestinationById,
  updateDestination,
} from './destination.repository.js';
import { fanOut } from './fan-out.js';
import type {
  Channel,
  ChannelResult,
  DestinationTarget,
  RecipientProgress,
} from './notification-port.js';
import { nextAttemptAt } from './retry-schedule.js';

export interface DelivererDeps {
  db: Kysely<DB>;
  dialect: Dialect;
  log: FastifyBaseLogger;
  publicUrl: string;
  /** How each destination type is sent; a type without one fails its attempts, saying so. */
  channels: Partial<Record<DestinationType, Channel>>;
  retryScheduleMs: readonly number[];
  /**
   * Told once when a destination has failed for a day and is paused (`failing`): its owner is
   * to hear of it (an email when SMTP is set).
   */
  onFailing?: (destination: DestinationRecord) => void;
  /** Pause between rounds that found nothing. */
  intervalMs?: number;
  /** How long a claimed message is this instance's; a crash's claims are free again after it. */
  leaseMs?: number;
}

const INTERVAL_MS = 250;
/** Longer than an attempt can take (10 s to connect and 10 s to answer), with room. */
const LEASE_MS = 60_000;
const CLAIM_BATCH = 20;
const MAX_BACKOFF_MS = 30_000;
/** Failing deliveries for this long pause the destination (`failing`). */
const FAILING_AFTER_MS = DAY_MS;
/** How long the delivery log keeps finished messages and attempts, and how often it forgets. */
const KEEP_LOG_MS = 30 * DAY_MS;
const PRUNE_EVERY_MS = 60 * 60_000;

/**
 * The background deliverer: turns outbox events into messages (fan-out.ts), claims the due ones
 * with a lease (on PostgreSQL with `for update skip locked`, so several instances never send one
 * message at once) and sends each through its destination's channel, then writes the outcome:
 * done on a 2xx, the next attempt on the retry schedule otherwise (later if `Retry-After` asks),
 * failed when the schedule is spent, the destination `gone` on a 410 and `failing` after a day
 * of failures. Its state is all in the database: a stop or a kill -9 loses nothing, and a
 * message whose attempt was cut short is sent again, with the same `webhook-id`.
 */
export class Deliverer {
  private loop: Promise<void> | null = null;
  private stopping = false;
  private timer: NodeJS.Timeout | null = null;
  private wakeUp: (() => void) | null = null;
  private readonly intervalMs: number;
  private readonly leaseMs: number;
  /** Attempts this deliverer made since it started (all outcomes). */
  attempted = 0;
  private prunedAt = 0;

  constructor(private readonly deps: DelivererDeps) {
    this.intervalMs = deps.intervalMs ?? INTERVAL_MS;
    this.leaseMs = deps.leaseMs ?? LEASE_MS;
  }

  async start(): Promise<void> {
    if (this.loop) return;
    // One process per SQLite file: the leases in it are a killed predecessor's.
    if (this.deps.dialect === 'sqlite') {
      // Not a reason to refuse to start: the leases then run out by themselves.
      await clearLeases(this.deps.db).catch((error: unknown) =>
        this.deps.log.warn({ err: error }, 'could not free the claims of notifications at start'),
      );
    }
    this.stopping = false;
    this.loop = this.run().finally(() => {
      this.loop = null;
    });
  }

  /** Finishes the round under way (its attempts written), then stops. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loop;
  }

  wake(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const wakeUp = this.wakeUp;
    this.wakeUp = null;
    wakeUp?.();
  }

  /** One round: fans out what waits in the outbox, then sends the due messages. How many sent. */
  async runOnce(now = Date.now()): Promise<number> {
    if (now - this.prunedAt >= PRUNE_EVERY_MS) {
      this.prunedAt = now;
      await pruneDeliveries(this.deps.db, now - KEEP_LOG_MS);
    }
    const maxAttempts = this.deps.retryScheduleMs.length + 1;
    while (
      (await fanOut(this.deps.db, this.deps.dialect, {
        publicUrl: this.deps.publicUrl,
        maxAttempts,
        now,
      })) > 0
    ) {
      if (this.stopping) break;
    }
    const claimed = await claimDueMessages(this.deps.db, this.deps.dialect, {
      now,
      lease: now + this.leaseMs,
      limit: CLAIM_BATCH,
    });
    await this.sendAll(claimed);
    return claimed.length;
  }

  /** Sends these messages now if due and free (a "send a test"); resolves once written. */
  async sendNow(ids: string[]): Promise<void> {
    const now = Date.now();
    const claimed = await claimDueMessages(this.deps.db, this.deps.dialect, {
      now,
      lease: now + this.leaseMs,
      limit: ids.length,
      ids,
    });
    await this.sendAll(claimed);
  }

  private async sendAll(claimed: readonly ClaimedMessage[]): Promise<void> {
    const destinations = new Map<string, DestinationRecord | null>();
    for (const message of claimed) {
      if (!destinations.has(message.destinationId)) {
        destinations.set(
          message.destinationId,
          await findDestinationById(this.deps.db, message.destinationId),
        );
      }
    }
    await Promise.all(
      claimed.map((message) => this.send(message, destinations.get(message.destinationId) ?? null)),
    );
  }

  private async send(
    message: ClaimedMessage,
    destination: DestinationRecord | null,
  ): Promise<void> {
    this.attempted += 1;
    const started = new Date();
    let result: ChannelResult;
    const channel = destination ? this.deps.channels[destination.type] : undefined;
    if (!destination) result = { ok: false, gone: true, error: 'the destination was deleted' };
    else if (!channel)
      result = { ok: false, error: `no ${destination.type} channel is set up on this server` };
    else {
      try {
        result = await channel(targetOf(destination, started.getTime()), {
          id: message.id,
          timestamp: started,
          payload: message.payload,
          recipients: this.progressOf(message),
        });
      } catch (error) {
        result = { ok: false, error: error instanceof Error ? error.message : String(error) };
      }
    }
    try {
      await this.record(message, destination, result);
    } catch (error) {
      // The lease runs out and the message is sent again: at least once, never lost.
      this.deps.log.warn(
        { err: error, message: message.id },
        'could not record a delivery attempt',
      );
    }
  }

  /** The message's reached recipients, each new one written as soon as it is reached. */
  private progressOf(message: ClaimedMessage): RecipientProgress {
    const reached = new Set(message.doneRecipients);
    return {
      reached,
      done: async (address) => {
        reached.add(address.toLowerCase());
        if (!(await recordDoneRecipients(this.deps.db, message, [...reached])))
          throw new Error('the claim on this message ran out; another attempt will finish it');
      },
    };
  }

  private async record(
    message: ClaimedMessage,
    destination: DestinationRecord | null,
    result: ChannelResult,
  ): Promise<void> {
    const at = Date.now();
    const attemptsMade = message.attempts + 1;
    const next =
      result.ok || result.gone || attemptsMade >= message.maxAttempts
        ? null
        : nextAttemptAt(this.deps.retryScheduleMs, attemptsMade, at, result.retryAfterMs);
    let nowFailing = false;
    await this.deps.db.transaction().execute(async (trx) => {
      const written = await recordAttempt(trx, message, {
        succeeded: result.ok,
        responseStatus: result.status ?? null,
        error: result.ok ? null : (result.error ?? 'failed'),
        nextAttemptAt: next,
        at,
      });
      if (!written || !destination) return;
      if (result.ok) {
        await updateDestination(
          trx,
          destination.id,
          { last_delivery_at: at, last_error: null, failing_since: null },
          at,
        );
      } else if (result.gone) {
        await updateDestination(
          trx,
          destination.id,
          { status: 'gone', last_error: result.error ?? 'gone' },
          at,
        );
        await failPendingMessages(trx, destination.id, at);
      } else {
        const since = destination.failingSince ?? at;
        nowFailing = destination.status === 'active' && at - since >= FAILING_AFTER_MS;
        await updateDestination(
          trx,
          destination.id,
          {
            last_error: result.error ?? 'failed',
            failing_since: since,
            ...(nowFailing ? { status: 'failing' } : {}),
          },
          at,
        );
      }
    });
    if (nowFailing && destination) this.deps.onFailing?.(destination);
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      let sent = 0;
      try {
        sent = await this.runOnce();
        failures = 0;
      } catch (error) {
        failures += 1;
        this.deps.log.warn({ err: error }, 'delivering notifications failed; retrying');
      }
      if (this.stopping) break;
      if (sent >= CLAIM_BATCH) continue;
      await this.pause(
        failures > 0 ? Math.min(MAX_BACKOFF_MS, this.intervalMs * 2 ** failures) : this.intervalMs,
      );
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wakeUp = resolve;
      this.timer = setTimeout(() => {
        this.timer = null;
        this.wakeUp = null;
        resolve();
      }, ms);
    });
  }
}

/** What a channel is told of a destination: its secrets only while valid. */
function targetOf(destination: DestinationRecord, now: number): DestinationTarget {
  const secrets = [
    destination.secret,
    ...(destination.previousSecretUntil !== null && destination.previousSecretUntil > now
      ? [destination.previousSecret]
      : []),
  ].filter((secret): secret is string => typeof secret === 'string');
  return {
    id: destination.id,
    type: destination.type,
    name: destination.name,
    url: destination.url,
    to: destination.to,
    secrets,
  };
}
