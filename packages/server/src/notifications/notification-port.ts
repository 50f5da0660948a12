import type { DestinationType, NotificationPayload, NotificationType } from '@debrief/protocol';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';

/**
 * The small contract between the things that cause notifications (the grouper, the counters,
 * the spike and digest checks) and the outbox that delivers them. A producer calls
 * `EnqueueNotifications` with the transaction that makes the change, so the change and its
 * notification commit together; it never waits for a delivery.
 */
export interface NotificationEntry {
  projectId: string;
  type: NotificationType;
  issueId?: string;
  reportId?: string;
  /** What the event carries beyond the issue and report (counts, a digest's lists, a quota's numbers). */
  data?: Record<string, unknown>;
  /** Only to this destination (a "send a test", a digest), instead of every subscribed one. */
  destinationId?: string;
}

export type EnqueueNotifications = (
  trx: Kysely<DB>,
  entries: readonly NotificationEntry[],
) => Promise<void>;

/** One message to one destination; `id` is its `webhook-id`, the same on every attempt. */
export interface OutgoingMessage {
  id: string;
  timestamp: Date;
  payload: NotificationPayload;
  /**
   * For a channel with several recipients (email): who already has the message, and how to
   * note one more. Absent: the channel sends to every recipient on every call.
   */
  recipients?: RecipientProgress;
}

/**
 * The recipients a message has reached, kept with the message across attempts: a retry sends
 * only to the others. `done` is called once per accepted recipient and resolves once it is
 * written; if it rejects, the channel stops and the attempt fails (retried).
 */
export interface RecipientProgress {
  /** Lowercased addresses. */
  readonly reached: ReadonlySet<string>;
  done(address: string): Promise<void>;
}

export interface DestinationTarget {
  id: string;
  type: DestinationType;
  name: string | null;
  url: string | null;
  to: readonly string[] | null;
  /** A webhook's signing secrets: the current one first, then one still valid after a rotation. */
  secrets?: readonly string[];
}

/** How one attempt ended; the deliverer turns it into a retry, a pause or the end. */
export interface ChannelResult {
  ok: boolean;
  status?: number;
  /** From a `Retry-After` answer. */
  retryAfterMs?: number;
  /** A 410: the destination is gone and is disabled. */
  gone?: boolean;
  error?: string;
}

/** Sends one message to one destination of its type (webhook, Slack, email). */
export type Channel = (
  target: DestinationTarget,
  message: OutgoingMessage,
) => Promise<ChannelResult>;
