import type { ServerResponse } from 'node:http';
import type { IssueEvent, Report } from '@debrief/protocol';
import type { FastifyReply } from 'fastify';

/** Below the idle timeouts of common proxies (nginx 60 s, AWS ALB 60 s). */
export const DEFAULT_HEARTBEAT_MS = 15_000;

/**
 * How long a stream that was ended (dropped as too slow, or at shutdown) may take to hand its
 * last bytes to the reader before its socket is destroyed. Without it a reader that never reads
 * would keep the socket, and every byte queued for it, for as long as it likes.
 */
export const DEFAULT_CLOSE_GRACE_MS = 30_000;

/**
 * Heap that Node spends on each write waiting in a stream's buffer, besides its bytes (the
 * chunked-encoding framing and the buffer's entries): ~256 bytes, measured with 200 stalled
 * sockets × 3,000 writes. Charged against the cap too, or a reader stalled while reports
 * trickle in one at a time would hold ~1 MB of bookkeeping for its 1 MiB of events.
 */
const QUEUED_WRITE_OVERHEAD = 320;

export function formatReportEvent(report: Report): string {
  return `id: ${report.id}\nevent: report\ndata: ${JSON.stringify(report)}\n\n`;
}

/**
 * An issue change. No `id:` line: Last-Event-ID stays the last report's, which is
 * what a resumed stream replays from; issue events are live only (the issues list has the rest).
 */
export function formatIssueEvent(issue: IssueEvent): string {
  return `event: issue\ndata: ${JSON.stringify(issue)}\n\n`;
}

/**
 * The final event of a stream whose reader fell too far behind. EventSource reconnects by
 * itself and sends `Last-Event-ID`, which replays exactly what this stream did not carry.
 */
export function formatOverflowEvent(lastEventId: string | null, capBytes: number): string {
  const resume = lastEventId
    ? `Reconnect with the header Last-Event-ID: ${lastEventId} to receive every report after it.`
    : 'Reconnect (with the Last-Event-ID you last received, if any) to receive what was missed.';
  const data = {
    last_event_id: lastEventId,
    detail: `This stream was closed because its reader fell behind: more than ${capBytes} bytes of events were waiting for it. ${resume}`,
  };
  return `${lastEventId ? `id: ${lastEventId}\n` : ''}event: overflow\ndata: ${JSON.stringify(data)}\n\n`;
}

export interface EventStreamOptions {
  /** The stream resumes from here: the request's Last-Event-ID, then each report written. */
  lastEventId: string | null;
  /** Bytes that may wait for the reader (in Node's buffers) before the stream is dropped. */
  bufferCapBytes: number;
  closeGraceMs: number;
  /** The stream stopped taking events (dropped, ended or the reader left): free its slot. */
  onRelease(): void;
  /** The socket is finished or destroyed: nothing is buffered for it any more. */
  onGone(): void;
}

/**
 * One Server-Sent Events response that cannot hold more than `bufferCapBytes` for its reader.
 * Node buffers whatever `write()` is given without limit, so every write is checked against the
 * bytes already waiting (`writableLength`); past the cap the reader is too slow to follow, and
 * it is sent a final `overflow` event and closed instead of buffering the rest.
 */
export class EventStream {
  lastEventId: string | null;
  private state: 'open' | 'closing' | 'gone' = 'open';
  /** Writes made while earlier bytes still waited: each costs QUEUED_WRITE_OVERHEAD. */
  private queuedWrites = 0;
  private graceTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly res: ServerResponse,
    private readonly options: EventStreamOptions,
  ) {
    this.lastEventId = options.lastEventId;
    res.on('close', () => this.gone());
    res.on('error', () => this.gone());
  }

  get open(): boolean {
    return this.state === 'open';
  }

  /** Bytes written to this stream that its reader has not taken yet (0 once gone). */
  get bufferedBytes(): number {
    return this.state === 'gone' ? 0 : this.res.writableLength;
  }

  /**
   * Writes a chunk unless the reader would then be more than the cap behind, in which case
   * the stream overflows. `lastId` is the last report id the chunk carries. Returns whether the
   * chunk was written.
   */
  send(chunk: Buffer | string, lastId?: string): boolean {
    if (this.state !== 'open') return false;
    const size = typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    const waiting = this.res.writableLength;
    if (waiting === 0) this.queuedWrites = 0;
    const charged = waiting + this.queuedWrites * QUEUED_WRITE_OVERHEAD;
    if (charged + size > this.options.bufferCapBytes) {
      this.overflow();
      return false;
    }
    if (waiting > 0) this.queuedWrites += 1;
    this.res.write(chunk);
    if (lastId) this.lastEventId = lastId;
    return true;
  }

  /** Resolves once Node's buffer for this reader has drained below its high-water mark. */
  whenWritable(): Promise<void> {
    if (this.state !== 'open' || !this.res.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }

  /**
   * A reader that left while its request was being authorised closed the socket before this
   * stream listened for 'close': without this check its slot would stay taken for good.
   */
  releaseIfDisconnected(): void {
    const socket = this.res.socket;
    if (this.res.destroyed || !socket || socket.destroyed) this.gone();
  }

  /** Drops a reader that fell behind, telling it where to resume. */
  overflow(): void {
    this.finish(formatOverflowEvent(this.lastEventId, this.options.bufferCapBytes));
  }

  /** Ends the stream (shutdown); a reader that does not take the end within `graceMs` is cut. */
  end(graceMs = this.options.closeGraceMs): void {
    this.finish(undefined, graceMs);
  }

  private finish(finalChunk?: string, graceMs = this.options.closeGraceMs): void {
    if (this.state === 'gone') return;
    if (this.state === 'closing') {
      // Already ended (dropped as too slow): shutdown only shortens the wait.
      if (this.graceTimer) clearTimeout(this.graceTimer);
      this.graceTimer = setTimeout(() => this.res.destroy(), graceMs);
      this.graceTimer.unref();
      return;
    }
    this.state = 'closing';
    this.options.onRelease();
    if (finalChunk) this.res.end(finalChunk);
    else this.res.end();
    if (this.res.writableFinished) return;
    this.graceTimer = setTimeout(() => this.res.destroy(), graceMs);
    this.graceTimer.unref();
    this.res.once('finish', () => {
      if (this.graceTimer) clearTimeout(this.graceTimer);
    });
  }

  private gone(): void {
    if (this.state === 'gone') return;
    const wasOpen = this.state === 'open';
    this.state = 'gone';
    if (this.graceTimer) clearTimeout(this.graceTimer);
    if (wasOpen) this.options.onRelease();
    this.options.onGone();
  }
}

/**
 * Takes over the response as a Server-Sent Events stream: headers and a retry hint. The hub
 * keeps it alive with heartbeats and cleans up when either side ends.
 */
export function openEventStream(reply: FastifyReply, options: EventStreamOptions): EventStream {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  // The response's 'close' (the reader left, or the end was sent) is watched by the stream.
  const stream = new EventStream(res, options);
  stream.send('retry: 2000\n\n');
  return stream;
}
