import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FailureCapture, UsageCounter } from '@debrief/client';

/** How much of a 5xx answer's body is kept as the failure's text. */
const BODY_PREVIEW_MAX = 2_000;

type RoutedRequest = IncomingMessage & {
  route?: { path?: unknown };
  baseUrl?: string;
  originalUrl?: string;
};

export interface ObserverParts {
  capture?: FailureCapture | undefined;
  counter?: UsageCounter | undefined;
  /** `source` of captured reports: the option, else the request's Host. */
  sourceOf: (req: IncomingMessage) => string | undefined;
}

/**
 * Watches one host request to its end: counts it under its route, and turns a 5xx answer into
 * a `failure` report. Everything happens on `finish`, after the answer is written, so the host's
 * response is never delayed; only a 5xx answer's first 2 KB are kept for the report's text.
 */
export function observeResponse(
  req: RoutedRequest,
  res: ServerResponse,
  parts: ObserverParts,
): void {
  const preview: Buffer[] = [];
  let kept = 0;
  if (parts.capture) {
    const keep = (chunk: unknown, encoding?: unknown) => {
      if (res.statusCode < 500 || kept >= BODY_PREVIEW_MAX || chunk == null) return;
      if (typeof chunk === 'function') return;
      const buffer = Buffer.isBuffer(chunk)
        ? chunk
        : typeof chunk === 'string'
          ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
          : chunk instanceof Uint8Array
            ? Buffer.from(chunk)
            : undefined;
      if (!buffer) return;
      const slice = buffer.subarray(0, BODY_PREVIEW_MAX - kept);
      preview.push(slice);
      kept += slice.length;
    };
    const write = res.write;
    const end = res.end;
    res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
      try {
        keep(chunk, rest[0]);
      } catch {}
      return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof res.write;
    res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
      try {
        keep(chunk, rest[0]);
      } catch {}
      return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    } as typeof res.end;
  }
  res.once('finish', () => {
    try {
      const name = routeName(req);
      const failed = res.statusCode >= 500;
      parts.counter?.record(name, failed);
      if (failed && parts.capture) {
        const body = Buffer.concat(preview).toString('utf8').trim();
        parts.capture.capture({
          name,
          error: `${name} answered ${res.statusCode}${body ? `: ${body}` : ''}`,
          source: parts.sourceOf(req),
          metadata: req.headers['user-agent']
            ? { user_agent: req.headers['user-agent'].slice(0, 256) }
            : {},
        });
      }
    } catch {
      // Observing is a guest in the host's request path.
    }
  });
}

/**
 * The route a request matched, as the host wrote it (`GET /users/:id`), so counts group by
 * endpoint rather than by URL; a request no route took counts under `GET (no route)`.
 */
export function routeName(req: RoutedRequest): string {
  const method = req.method ?? 'GET';
  const path = req.route?.path;
  if (typeof path === 'string') return `${method} ${(req.baseUrl ?? '') + path}`;
  if (path !== undefined) return `${method} ${req.baseUrl ?? ''}${String(path)}`;
  return `${method} (no route)`;
}
