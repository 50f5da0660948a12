import type { Report } from '@debrief/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Below the idle timeouts of common proxies (nginx 60 s, AWS ALB 60 s). */
export const DEFAULT_HEARTBEAT_MS = 15_000;

/** Open event streams, so that shutdown can end them instead of waiting for clients to leave. */
export class StreamRegistry {
  private readonly open = new Set<() => void>();

  add(end: () => void): () => void {
    this.open.add(end);
    return () => this.open.delete(end);
  }

  closeAll(): void {
    for (const end of [...this.open]) end();
  }

  get size(): number {
    return this.open.size;
  }
}

export function formatReportEvent(report: Report): string {
  return `id: ${report.id}\nevent: report\ndata: ${JSON.stringify(report)}\n\n`;
}

/**
 * Takes over the response as a Server-Sent Events stream: headers, a retry hint, heartbeat
 * comments that keep proxies from closing an idle connection, and clean-up when either side ends.
 */
export function openEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  registry: StreamRegistry,
  onClose: () => void,
  heartbeatMs: number = DEFAULT_HEARTBEAT_MS,
): { write(chunk: string): void; end(): void } {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write('retry: 2000\n\n');
  let ended = false;
  const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), heartbeatMs);
  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(heartbeat);
    unregister();
    onClose();
    res.end();
  };
  const unregister = registry.add(end);
  request.raw.on('close', end);
  res.on('error', end);
  return {
    write: (chunk) => {
      if (!ended) res.write(chunk);
    },
    end,
  };
}
