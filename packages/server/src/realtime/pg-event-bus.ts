import type { IssueEvent, Report } from '@debrief/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { CompiledQuery, type Kysely } from 'kysely';
import pg from 'pg';
import { namedOnPostgres } from '../db/named-statements.js';
import type { DB } from '../db/schema.js';
import { type BusListener, type EventBus, LocalEventBus } from './event-bus.js';

const CHANNEL = 'debrief_reports';
// NOTIFY payloads are limited to 8000 bytes; larger reports travel by id and are read back.
const MAX_INLINE_PAYLOAD = 7500;
/** A NOTIFY carries a JSON array of notices up to this size (one, if it is the only one). */
const MAX_PACKED_PAYLOAD = 7900;

interface Notice {
  p: string;
  r?: Report;
  id?: string;
  /** An issue event; small (a summary), always inline. */
  i?: IssueEvent;
}

/**
 * A notice waiting to be sent: its JSON and that JSON's size in bytes, measured once; `sent`
 * resolves its publisher's wait.
 */
interface Outgoing {
  text: string;
  bytes: number;
  sent?: () => void;
}

function outgoing(notice: Notice): Outgoing {
  const text = JSON.stringify(notice);
  return { text, bytes: Buffer.byteLength(text) };
}

/** Notices one pg_notify statement carries at most. */
const MAX_NOTICES_PER_STATEMENT = 500;

/**
 * Sends a statement's notices: one JSON text parameter (pg would escape each element of a
 * text[] in JavaScript). Run after every ingest batch, so prepared by name (~1.2 µs of
 * PostgreSQL's planning a report otherwise, pg_stat_statements under the bench's ingest).
 */
const NOTIFY_STATEMENT = namedOnPostgres(
  'select pg_notify($1, p) from json_array_elements_text($2::json) as p',
);

/**
 * Notices packed into as few NOTIFY payloads as fit (a JSON array each, in order): every
 * NOTIFY costs PostgreSQL a queue entry and every listening instance a message, so a batch's
 * ~600-byte reports go ~12 to a notification instead of one each.
 */
function packNotices(notices: readonly Outgoing[]): string[] {
  const packed: string[] = [];
  let parts: string[] = [];
  let bytes = 2;
  for (const notice of notices) {
    const size = notice.bytes + 1;
    if (parts.length > 0 && bytes + size > MAX_PACKED_PAYLOAD) {
      packed.push(`[${parts.join(',')}]`);
      parts = [];
      bytes = 2;
    }
    parts.push(notice.text);
    bytes += size;
  }
  if (parts.length > 0) packed.push(`[${parts.join(',')}]`);
  return packed;
}

/**
 * How long a publisher waits for its NOTIFY at most: a 201 follows its report's announcement,
 * but never waits long on a live update (a statement held up by a struggling database).
 */
const SENT_WAIT_MS = 1000;

/** Reconnecting the LISTEN connection waits this long first, doubling up to the maximum. */
const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 10_000;

/**
 * Cross-instance delivery over PostgreSQL LISTEN/NOTIFY: every server process, this one
 * included, hears each NOTIFY and hands the report to its own subscribers.
 *
 * The LISTEN connection is one long-lived client outside the pool. When it drops (a restart or
 * failover of PostgreSQL, `pg_terminate_backend`, a proxy closing it), it is replaced and LISTEN
 * issued again, after 250 ms, then 0.5, 1 … 10 s while PostgreSQL cannot be reached. Notices
 * sent while it is down are not heard; dashboards see those reports on their next load.
 *
 * Order is kept end to end, because a stream's Last-Event-ID resume trusts it: notices leave
 * in publish order (one statement at a time, carrying every notice queued meanwhile, packed
 * in order into as few NOTIFYs as fit; separate pool connections would race), and arrive at
 * subscribers in notice order even when a large report must be read back first (reads run
 * side by side, deliveries wait their turn). Across instances, `publish` resolves once its
 * NOTIFY has run, and the submitter's 201 waits for it: a report sent after that 201, to any
 * instance, is notified after it. (When the 201 went out first, a report sent to another
 * instance right after it could overtake it there, under load: the cross-instance test saw it.)
 */
export class PgEventBus implements EventBus {
  private readonly local = new LocalEventBus();
  private client: pg.Client | null = null;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;
  private retryMs = 0;
  /** Notices waiting for the statement in flight to finish. */
  private outbox: Outgoing[] = [];
  private sending: Promise<void> | null = null;
  /** The last delivery in line: each notice's delivery follows the one before. */
  private delivered: Promise<void> = Promise.resolve();

  constructor(
    private readonly url: string,
    private readonly db: Kysely<DB>,
    private readonly loadReport: (
      id: string,
    ) => Promise<{ projectId: string; report: Report } | null>,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Connects and LISTENs; rejects if it cannot (start-up fails then, with the cause). */
  async start(): Promise<void> {
    await this.listen();
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, keepAlive: true });
    let connected = false;
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost) return;
      lost = true;
      client.end().catch(() => {});
      // Before it is connected, the failure rejects listen() instead; after close(), it is no
      // longer the bus's client.
      if (!connected || this.client !== client) return;
      this.client = null;
      this.log.warn(
        error ? { err: error } : {},
        'the realtime LISTEN connection was lost; reconnecting',
      );
      this.scheduleReconnect();
    };
    // A listener on 'error' is what keeps a dropped connection from ending the process.
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (message) => {
      if (message.channel === CHANNEL && message.payload) this.onNotice(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      onLost();
      throw error;
    }
    if (lost) throw new Error('The LISTEN connection closed as it was set up.');
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    connected = true;
    this.client = client;
    this.retryMs = 0;
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retry) return;
    this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs ? this.retryMs * 2 : RETRY_MIN_MS);
    this.retry = setTimeout(() => {
      this.retry = null;
      this.listen().then(
        () => {
          if (!this.closed) this.log.info('the realtime LISTEN connection is back');
        },
        () => this.scheduleReconnect(),
      );
    }, this.retryMs);
  }

  /** A notification: an array of notices, or one (as an instance before packing sent it). */
  private onNotice(payload: string): void {
    let notices: Notice[];
    try {
      const parsed = JSON.parse(payload) as Notice | Notice[];
      notices = Array.isArray(parsed) ? parsed : [parsed];
    } catch (error) {
      this.log.warn({ err: error }, 'could not read a realtime notification');
      return;
    }
    for (const notice of notices) this.handle(notice);
  }

  private handle(notice: Notice): void {
    // A report too large to travel inline is read back only where a stream wants it; the
    // read starts now, its delivery waits for the notices before it.
    const loading =
      notice.id && !notice.r && this.local.hasSubscribers(notice.p)
        ? this.loadReport(notice.id)
        : null;
    this.delivered = this.delivered.then(async () => {
      try {
        if (notice.r) return this.local.deliver(notice.p, { type: 'report', report: notice.r });
        if (notice.i) return this.local.deliver(notice.p, { type: 'issue', issue: notice.i });
        const loaded = await loading;
        if (loaded) this.local.deliver(loaded.projectId, { type: 'report', report: loaded.report });
      } catch (error) {
        this.log.warn({ err: error }, 'could not deliver a realtime notification');
      }
    });
  }

  publish(projectId: string, report: Report): Promise<void> {
    const inline = JSON.stringify({ p: projectId, r: report } satisfies Notice);
    const bytes = Buffer.byteLength(inline);
    return bytes <= MAX_INLINE_PAYLOAD
      ? this.notify({ text: inline, bytes })
      : this.notify(outgoing({ p: projectId, id: report.id }));
  }

  publishIssue(projectId: string, issue: IssueEvent): void {
    void this.notify(outgoing({ p: projectId, i: issue }));
  }

  /** Queues a notice; resolves once the statement carrying it has run (SENT_WAIT_MS at most). */
  private notify(notice: Outgoing): Promise<void> {
    const sent = new Promise<void>((resolve) => {
      notice.sent = resolve;
    });
    this.outbox.push(notice);
    // After this turn's I/O callbacks: a batch's 201s publish one by one as their handlers
    // resume, and all of them then leave in the first statement, packed.
    this.sending ??= new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.send())
      .finally(() => {
        this.sending = null;
      });
    return sent;
  }

  /** Sends the outbox in order, one statement at a time; NOTIFY keeps a statement's order. */
  private async send(): Promise<void> {
    while (this.outbox.length > 0) {
      const notices = this.outbox.slice(0, MAX_NOTICES_PER_STATEMENT);
      this.outbox = this.outbox.slice(notices.length);
      const payloads = packNotices(notices);
      const release = () => {
        for (const notice of notices) notice.sent?.();
      };
      const late = setTimeout(release, SENT_WAIT_MS);
      try {
        await this.db.executeQuery(
          CompiledQuery.raw(NOTIFY_STATEMENT, [CHANNEL, JSON.stringify(payloads)]),
        );
      } catch (error) {
        this.log.warn(
          { err: error, notices: notices.length },
          'could not publish realtime notifications',
        );
      } finally {
        clearTimeout(late);
        release();
      }
    }
  }

  subscribe(projectId: string, listener: BusListener): () => void {
    return this.local.subscribe(projectId, listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    // What was published before close still leaves, while the pool is there.
    await this.sending;
    await this.local.close();
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }
}
