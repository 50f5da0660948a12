import type { Report } from '@debrief/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import type { DB } from '../db/schema.js';
import { type EventBus, LocalEventBus, type ReportListener } from './event-bus.js';

const CHANNEL = 'debrief_reports';
// NOTIFY payloads are limited to 8000 bytes; larger reports travel by id and are read back.
const MAX_INLINE_PAYLOAD = 7500;

interface Notice {
  p: string;
  r?: Report;
  id?: string;
}

/**
 * Cross-instance delivery over PostgreSQL LISTEN/NOTIFY: every server process, this one
 * included, hears each NOTIFY and hands the report to its own subscribers.
 */
export class PgEventBus implements EventBus {
  private readonly local = new LocalEventBus();
  private client: pg.Client | null = null;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;

  constructor(
    private readonly url: string,
    private readonly db: Kysely<DB>,
    private readonly loadReport: (
      id: string,
    ) => Promise<{ projectId: string; report: Report } | null>,
    private readonly log: FastifyBaseLogger,
  ) {}

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on('error', (error) => {
      this.log.warn({ err: error }, 'realtime LISTEN connection failed; reconnecting');
      this.reconnect();
    });
    client.on('notification', (message) => {
      if (message.channel === CHANNEL && message.payload) void this.onNotice(message.payload);
    });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    this.client = client;
  }

  private reconnect(): void {
    const old = this.client;
    this.client = null;
    old?.end().catch(() => {});
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.start().catch(() => this.reconnect());
    }, 1000);
  }

  private async onNotice(payload: string): Promise<void> {
    try {
      const notice = JSON.parse(payload) as Notice;
      if (notice.r) return this.local.deliver(notice.p, notice.r);
      // A report too large to travel inline is read back only where a stream wants it.
      if (notice.id && this.local.hasSubscribers(notice.p)) {
        const loaded = await this.loadReport(notice.id);
        if (loaded) this.local.deliver(loaded.projectId, loaded.report);
      }
    } catch (error) {
      this.log.warn({ err: error }, 'could not deliver a realtime notification');
    }
  }

  publish(projectId: string, report: Report): void {
    let payload = JSON.stringify({ p: projectId, r: report } satisfies Notice);
    if (Buffer.byteLength(payload) > MAX_INLINE_PAYLOAD)
      payload = JSON.stringify({ p: projectId, id: report.id });
    sql`select pg_notify(${CHANNEL}, ${payload})`.execute(this.db).catch((error: unknown) => {
      this.log.warn({ err: error }, 'could not publish a realtime notification');
    });
  }

  subscribe(projectId: string, listener: ReportListener): () => void {
    return this.local.subscribe(projectId, listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    await this.local.close();
    await this.client?.end().catch(() => {});
    this.client = null;
  }
}
