import type { Report } from '@debrief/protocol';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import type { BusEvent, EventBus } from './event-bus.js';
import {
  DEFAULT_CLOSE_GRACE_MS,
  DEFAULT_HEARTBEAT_MS,
  type EventStream,
  formatIssueEvent,
  formatReportEvent,
  openEventStream,
} from './event-stream.js';

/**
 * Live reports are gathered per project for this long, then written to its streams as one
 * chunk: a flood of reports costs each stream one write per window instead of one per report.
 * A write costs ~10 µs of syscalls and framing whatever its size (measured: 1,000 streams ×
 * 200 writes of 1.5 KB), so with 1,000 streams the number of writes is what matters. Well
 * inside the contract's "within a second".
 */
const FLUSH_MS = 200;
/**
 * …or sooner, once this many bytes wait: a quarter of the stream cap, so that one chunk never
 * drops a reader that keeps up.
 */
const FLUSH_MAX_BYTES = 256 * 1024;
/**
 * How long after its replay a resumed stream drops live copies of what its reader already has.
 * A report committed before the backlog was read is on its way live too — in the project's
 * pending window (up to FLUSH_MS) or, on PostgreSQL, in a notification still in flight — and
 * is either in the replay or at or before the reader's Last-Event-ID.
 */
const REPLAY_MEMORY_MS = 5000;
/** Streams still open at shutdown get this long to take their end before being cut. */
const SHUTDOWN_GRACE_MS = 1000;
/** What a refused stream is told to wait before trying again. */
const RETRY_AFTER_SECONDS = 30;
const HEARTBEAT = Buffer.from(': heartbeat\n\n');

export interface StreamHubOptions {
  perAccount: number;
  perInstance: number;
  bufferCapBytes: number;
  heartbeatMs?: number;
  closeGraceMs?: number;
}

/**
 * One event, kept as text: the window's events become one Buffer when flushed. `id` is the
 * report's; '' for an issue event, which has none (event-stream.ts, formatIssueEvent).
 */
interface EventPart {
  id: string;
  text: string;
}

/** Events of one project serialised once, and the one chunk every stream of it is sent. */
interface Batch {
  parts: EventPart[];
  bytes: Buffer;
  /** The last report id in the batch; undefined if it holds issue events only. */
  lastId: string | undefined;
}

/** A stream in its project's index; `held` collects batches while its backlog is replayed. */
export interface Subscriber {
  readonly stream: EventStream;
  held: Batch[] | null;
  heldBytes: number;
  /** The Last-Event-ID the stream resumed from, and the ids its replay sent after it. */
  resumedFrom: string | null;
  replayed: Set<string>;
  /** Until then, live copies of those (and of anything up to resumedFrom) are left out. */
  replayedUntil: number;
}

interface ProjectStreams {
  subscribers: Set<Subscriber>;
  unsubscribe: () => void;
  pending: EventPart[];
  pendingBytes: number;
}

/**
 * Every event stream of this process: admits them within the per-account and per-instance
 * limits, indexes them by project, and fans each report out serialised once, so the cost of a
 * report is one JSON.stringify and one write per stream of its own project. Also sends the
 * heartbeats and ends every stream at shutdown.
 */
export class StreamHub {
  private readonly projects = new Map<string, ProjectStreams>();
  private readonly perAccount = new Map<string, number>();
  /** Open and closing streams: what still holds buffered bytes. */
  private readonly streams = new Set<EventStream>();
  private openCount = 0;
  private heartbeat: NodeJS.Timeout | null = null;
  private flushTimer: NodeJS.Timeout | null = null;
  private readonly flushBytes: number;

  constructor(
    private readonly bus: EventBus,
    private readonly options: StreamHubOptions,
  ) {
    this.flushBytes = Math.min(FLUSH_MAX_BYTES, Math.floor(options.bufferCapBytes / 4));
  }

  /**
   * Opens a stream on the project, or answers 429 `too_many_streams` before anything is sent.
   * It starts in replay mode: live reports are held until `goLive`, so that a backlog written
   * first keeps its order.
   */
  open(
    reply: FastifyReply,
    target: { accountId: string; projectId: string; lastEventId: string | null },
  ): Subscriber {
    const { perAccount, perInstance } = this.options;
    const ofAccount = this.perAccount.get(target.accountId) ?? 0;
    if (ofAccount >= perAccount) {
      throw tooManyStreams(
        `This account already has ${ofAccount} event streams open on this server, the most one account may hold at once. Close one you no longer read (another dashboard tab, an idle client), then reconnect after the seconds in Retry-After, sending Last-Event-ID so nothing is missed.`,
      );
    }
    if (this.openCount >= perInstance) {
      throw tooManyStreams(
        `This server already holds ${this.openCount} event streams, its limit. Reconnect after the seconds in Retry-After, sending Last-Event-ID so nothing is missed; meanwhile GET /v1/dashboard/${target.projectId}/reports reads the same reports.`,
      );
    }
    this.perAccount.set(target.accountId, ofAccount + 1);
    this.openCount += 1;

    const project = this.projectOf(target.projectId);
    let released = false;
    const stream: EventStream = openEventStream(reply, {
      lastEventId: target.lastEventId,
      bufferCapBytes: this.options.bufferCapBytes,
      closeGraceMs: this.options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS,
      onRelease: () => {
        if (released) return;
        released = true;
        this.release(target.accountId, target.projectId, subscriber);
      },
      onGone: () => {
        this.streams.delete(stream);
        this.stopHeartbeatWhenIdle();
      },
    });
    const subscriber: Subscriber = {
      stream,
      held: [],
      heldBytes: 0,
      resumedFrom: target.lastEventId,
      replayed: new Set(),
      replayedUntil: 0,
    };
    this.streams.add(stream);
    project.subscribers.add(subscriber);
    this.startHeartbeat();
    stream.releaseIfDisconnected();
    return subscriber;
  }

  /** Writes one replayed report, remembering it so that a held live copy is not sent twice. */
  replay(subscriber: Subscriber, report: Report): boolean {
    subscriber.replayed.add(report.id);
    return subscriber.stream.send(formatReportEvent(report), report.id);
  }

  /**
   * Ends the replay: the held live reports are sent, then live ones, minus those replayed
   * (for REPLAY_MEMORY_MS: a replayed report's live copy may still be on its way).
   */
  goLive(subscriber: Subscriber): void {
    const held = subscriber.held ?? [];
    subscriber.held = null;
    subscriber.heldBytes = 0;
    subscriber.replayedUntil = Date.now() + REPLAY_MEMORY_MS;
    for (const batch of held) this.sendLive(subscriber, batch);
  }

  /** Writes a live batch, leaving out the reports the reader already has (REPLAY_MEMORY_MS). */
  private sendLive(subscriber: Subscriber, batch: Batch): void {
    if (subscriber.resumedFrom !== null && Date.now() > subscriber.replayedUntil) {
      subscriber.replayed.clear();
      subscriber.resumedFrom = null;
    }
    const { replayed, resumedFrom } = subscriber;
    // Report ids are UUIDv7: one at or before the resume point was stored before it.
    const had = (id: string) =>
      id !== '' && resumedFrom !== null && (id <= resumedFrom || replayed.has(id));
    // Most streams never resumed, or resumed long ago: no part to look at.
    if (resumedFrom === null || !batch.parts.some((part) => had(part.id))) {
      subscriber.stream.send(batch.bytes, batch.lastId);
      return;
    }
    for (const part of batch.parts)
      if (!had(part.id)) subscriber.stream.send(part.text, part.id || undefined);
  }

  /** Ends every stream (shutdown), instead of waiting for every dashboard to leave. */
  closeAll(): void {
    for (const stream of [...this.streams]) stream.end(SHUTDOWN_GRACE_MS);
  }

  /** Open streams, streams still handing over their last bytes, and the bytes all of them hold. */
  stats(): { open: number; closing: number; bufferedBytes: number } {
    let bufferedBytes = 0;
    for (const stream of this.streams) bufferedBytes += stream.bufferedBytes;
    return { open: this.openCount, closing: this.streams.size - this.openCount, bufferedBytes };
  }

  private projectOf(projectId: string): ProjectStreams {
    let project = this.projects.get(projectId);
    if (!project) {
      const created: ProjectStreams = {
        subscribers: new Set(),
        unsubscribe: () => {},
        pending: [],
        pendingBytes: 0,
      };
      created.unsubscribe = this.bus.subscribe(projectId, (event) =>
        this.enqueue(projectId, created, event),
      );
      this.projects.set(projectId, created);
      project = created;
    }
    return project;
  }

  private release(accountId: string, projectId: string, subscriber: Subscriber): void {
    this.openCount -= 1;
    const left = (this.perAccount.get(accountId) ?? 1) - 1;
    if (left > 0) this.perAccount.set(accountId, left);
    else this.perAccount.delete(accountId);
    subscriber.held = null;
    const project = this.projects.get(projectId);
    if (!project) return;
    project.subscribers.delete(subscriber);
    if (project.subscribers.size === 0) {
      project.unsubscribe();
      this.projects.delete(projectId);
    }
  }

  private enqueue(projectId: string, project: ProjectStreams, event: BusEvent): void {
    // Serialised here, once, whatever the number of streams; encoded once per window (flush),
    // not once per report, which halves what a flood of reports leaves to the collector.
    const text =
      event.type === 'report' ? formatReportEvent(event.report) : formatIssueEvent(event.issue);
    project.pending.push({ id: event.type === 'report' ? event.report.id : '', text });
    project.pendingBytes += Buffer.byteLength(text);
    if (project.pendingBytes >= this.flushBytes) this.flush(projectId, project);
    else this.flushTimer ??= setTimeout(() => this.flushAll(), FLUSH_MS);
  }

  private flushAll(): void {
    this.flushTimer = null;
    for (const [projectId, project] of this.projects) this.flush(projectId, project);
  }

  private flush(projectId: string, project: ProjectStreams): void {
    if (project.pending.length === 0 || this.projects.get(projectId) !== project) return;
    const parts = project.pending;
    project.pending = [];
    project.pendingBytes = 0;
    const last = parts[parts.length - 1] as EventPart;
    const batch: Batch = {
      parts,
      // Node keeps a reference to a written Buffer, not a copy: every stream shares this one.
      bytes: Buffer.from(parts.length === 1 ? last.text : parts.map((part) => part.text).join('')),
      lastId: parts.findLast((part) => part.id !== '')?.id,
    };
    const cap = this.options.bufferCapBytes;
    for (const subscriber of [...project.subscribers]) {
      if (subscriber.held) {
        // Held batches count against the cap too: a reader stalled in its replay is dropped.
        subscriber.held.push(batch);
        subscriber.heldBytes += batch.bytes.length;
        if (subscriber.stream.bufferedBytes + subscriber.heldBytes > cap)
          subscriber.stream.overflow();
      } else {
        this.sendLive(subscriber, batch);
      }
    }
  }

  private startHeartbeat(): void {
    const every = this.options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.heartbeat ??= setInterval(() => {
      for (const stream of this.streams) stream.send(HEARTBEAT);
    }, every);
  }

  private stopHeartbeatWhenIdle(): void {
    if (this.streams.size > 0 || !this.heartbeat) return;
    clearInterval(this.heartbeat);
    this.heartbeat = null;
  }
}

function tooManyStreams(detail: string): ApiError {
  return new ApiError('too_many_streams', detail, {
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  });
}
