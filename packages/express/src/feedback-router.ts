import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createFailureCapture,
  createReporter,
  createUsageCounter,
  type DebriefProblem,
  isClientProblem,
  type ReportResult,
} from '@debrief/client';
import {
  BODY_MAX_BYTES,
  DEFAULT_FEEDBACK_PATH,
  describeFieldErrors,
  FeedbackBody,
  fieldErrors,
  LABEL_MAX_LENGTH,
  PROBLEM_CONTENT_TYPE,
  type ProblemDetails,
  problem,
} from '@debrief/protocol';
import { forwardMetadata } from './forward-metadata.js';
import { observeResponse } from './host-observer.js';
import { type BodyResult, readJsonBody } from './read-json-body.js';

export { DEFAULT_FEEDBACK_PATH };
export const DEFAULT_FORWARD_TIMEOUT_MS = 5_000;

export interface FeedbackRouterOptions {
  /** The project's public ingest key, `wk_` + 32 hex; else `DEBRIEF_INGEST_KEY`. */
  ingestKey?: string | undefined;
  /** Debrief's base URL; else `DEBRIEF_URL`, else `http://localhost:8080`. */
  baseUrl?: string;
  /** `source` of the reports; defaults to the request's Host header. */
  source?: string;
  /** Path of the route, relative to where the router is mounted. Default `/feedback`. */
  path?: string;
  /** Longest a request waits for Debrief, retries included. Default 5,000 ms. */
  timeoutMs?: number;
  /**
   * Report the host's own 5xx answers as `failure` reports (route, status, the start of the
   * body). Equal failures once per 10 minutes, at most 10 a minute; an object sets those bounds.
   * Needs the router mounted before the routes it should watch. Default off.
   */
  capture?: boolean | { dedupeMs?: number; maxPerMinute?: number };
  /**
   * Count requests and 5xx answers per route and send them every minute (and at `close()`) to
   * `POST /v1/usage`, for error rates and reports per 1,000 calls. Default on.
   */
  countRequests?: boolean;
  /** The host's version, sent with the counts so rates can be compared across releases. */
  serverVersion?: string;
  /**
   * The project's forwarding secret (Debrief's project settings). With it, each report carries
   * the agent's address (`req.ip`), so Debrief's per-address limits apply to each agent rather
   * than to this host as a whole. Keep it on the server, like the key.
   */
  forwardingSecret?: string;
  /** Called when a report or counts could not be delivered. Default: one line on stderr. */
  onError?: (result: Extract<ReportResult, { ok: false }>) => void;
}

/** The middleware, plus the shutdown of what it runs in the background. */
export interface FeedbackRouter {
  (req: HostRequest, res: ServerResponse, next: Next): void;
  /** Sends the request counts gathered so far and waits for captured reports. */
  flush(): Promise<void>;
  /** Stops the minute timer and sends what is left; call it when the host shuts down. */
  close(): Promise<void>;
}

/** The slice of Express's request the router uses; Express 4 and 5 requests both fit. */
type HostRequest = IncomingMessage & { body?: unknown; ip?: string };
type Next = (error?: unknown) => void;

/**
 * `app.use(feedbackRouter({ ingestKey }))` accepts `POST /feedback` and forwards it to Debrief.
 * It is a plain middleware using only Node's request and response, so one build serves
 * Express 4 and 5 alike; other methods and paths go on to the host's own routes.
 */
export function feedbackRouter(options: FeedbackRouterOptions): FeedbackRouter {
  const path = normalizePath(options.path ?? DEFAULT_FEEDBACK_PATH);
  const reporter = createReporter({
    ingestKey: options.ingestKey,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    timeoutMs: options.timeoutMs ?? DEFAULT_FORWARD_TIMEOUT_MS,
    ...(options.forwardingSecret ? { forwardingSecret: options.forwardingSecret } : {}),
  });
  const onError = safe(options.onError ?? defaultOnError);
  const capture = options.capture
    ? createFailureCapture({
        report: (input) => reporter.report(input),
        onError,
        ...(typeof options.capture === 'object' ? options.capture : {}),
      })
    : undefined;
  const counter =
    options.countRequests === false
      ? undefined
      : createUsageCounter({
          send: (input) => reporter.sendUsage(input),
          serverVersion: options.serverVersion,
          onError,
        });
  const sourceOf = (req: IncomingMessage) =>
    // A Host longer than a label allows is cut, rather than failing the caller's report.
    options.source ?? req.headers.host?.slice(0, LABEL_MAX_LENGTH);

  async function handle(req: HostRequest, res: ServerResponse): Promise<void> {
    const body = await readJsonBody(req, BODY_MAX_BYTES);
    if (body.kind !== 'ok') {
      const failure = bodyProblem(body);
      if (failure) send(res, failure);
      else res.destroy();
      return;
    }
    const value = body.value;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      send(
        res,
        ownProblem(
          'invalid_body',
          `The request body must be one JSON object, not ${Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`}. ${EXAMPLE}`,
        ),
      );
      return;
    }
    const parsed = FeedbackBody.safeParse(value);
    if (!parsed.success) {
      const errors = fieldErrors(parsed.error);
      send(res, ownProblem('validation_failed', `${describeFieldErrors(errors)}.`, errors));
      return;
    }
    const userAgent = req.headers['user-agent'];
    const result = await reporter.report(
      {
        ...parsed.data,
        source: sourceOf(req) ?? null,
        metadata: forwardMetadata(parsed.data.metadata, { user_agent: userAgent }),
      },
      { forwardedFor: req.ip ?? req.socket.remoteAddress },
    );
    if (result.ok) {
      // The issue and its note are for the agent that reported: pass them on as Debrief sent them.
      send(res, { ok: true, id: result.id, ...(result.issue ? { issue: result.issue } : {}) }, 201);
      return;
    }
    // The host's own concerns (Debrief down, the key wrong); a caller's invalid report is not.
    if (
      isClientProblem(result.error) ||
      result.error.status >= 500 ||
      result.error.status === 401 ||
      result.error.status === 403
    ) {
      onError(result);
    }
    const headers: Record<string, string> =
      result.retry_after_seconds !== undefined
        ? { 'retry-after': String(result.retry_after_seconds) }
        : {};
    send(res, forwardedProblem(result.error), undefined, headers);
  }

  /** The problem for a body that could not be read; null when the caller hung up. */
  function bodyProblem(body: Exclude<BodyResult, { kind: 'ok' }>): ProblemDetails | null {
    switch (body.kind) {
      case 'empty':
        return ownProblem('invalid_body', `The request body is empty. ${EXAMPLE}`);
      case 'invalid_json':
        return ownProblem(
          'invalid_json',
          `The request body is not valid JSON (${body.reason}). ${EXAMPLE}`,
        );
      case 'too_large':
        return ownProblem(
          'payload_too_large',
          `The request body is larger than ${BODY_MAX_BYTES / 1024} KiB. Shorten details (at most 10,000 characters) and metadata (at most 2 KiB).`,
        );
      case 'aborted':
        return null;
    }
  }

  const router = (req: HostRequest, res: ServerResponse, next: Next) => {
    if (req.method !== 'POST' || normalizePath(pathOf(req)) !== path) {
      if (capture || counter) observeResponse(req, res, { capture, counter, sourceOf });
      return next();
    }
    // Never hand an error to `next`: a failure here must not become the host's error page.
    handle(req, res).catch(() => {
      if (!res.headersSent)
        send(
          res,
          ownProblem(
            'internal_error',
            'The feedback could not be processed and was not stored. Retry in a moment.',
          ),
        );
      else res.end();
    });
  };
  return Object.assign(router, {
    flush: async () => {
      await Promise.all([counter?.flush(), capture?.settled()]);
    },
    close: async () => {
      await Promise.all([counter?.close(), capture?.settled()]);
    },
  });
}

/**
 * A problem the router answers itself. Its `type` is `about:blank` rather than a link into
 * Debrief's docs: the caller talks to this host, and Debrief's address is this host's business.
 */
function ownProblem(
  ...args: Parameters<typeof problem> extends [string, ...infer Rest] ? Rest : never
): ProblemDetails {
  return { ...problem('', ...args), type: 'about:blank' };
}

const EXAMPLE =
  'Send one JSON object, e.g. {"outcome":"failure","details":"what happened","tool_name":"GET /v1/search"}.';

/**
 * What the caller gets for Debrief's error. Debrief's answers pass through as they came (400,
 * 413, 429 with Retry-After, 5xx), except key errors: a 401 would tell the caller to
 * authenticate, but the key is this app's configuration, so that is a 502 (bad upstream).
 */
function forwardedProblem(error: DebriefProblem): DebriefProblem {
  if (isClientProblem(error)) return unreachable(error);
  if (error.status === 401 || error.status === 403) {
    return {
      ...error,
      type: 'about:blank',
      status: 502,
      detail: `This endpoint's connection to the feedback service is misconfigured (${error.code}), so the report was not stored. It is not your fault: tell the developer of this API.`,
    };
  }
  return error;
}

/** Debrief never answered: the host's endpoint is a gateway here, hence 502. */
function unreachable(error: DebriefProblem): DebriefProblem {
  return {
    ...error,
    status: 502,
    type: 'about:blank',
    // Not Debrief's own detail: it names Debrief's address, which is this host's business.
    detail: `The feedback service behind this endpoint is unreachable right now (${error.code}), so the report was not stored. Retry in a few minutes.`,
  };
}

function safe<T>(callback: (value: T) => void): (value: T) => void {
  return (value) => {
    try {
      callback(value);
    } catch {
      // The host's callback must not break its own request.
    }
  };
}

function defaultOnError(result: Extract<ReportResult, { ok: false }>): void {
  console.warn(`[debrief] not delivered to Debrief: ${result.error.code}: ${result.error.detail}`);
}

function send(
  res: ServerResponse,
  body: object,
  status?: number,
  headers: Record<string, string> = {},
): void {
  const code = status ?? (body as { status?: number }).status ?? 500;
  res.statusCode = code;
  res.setHeader(
    'content-type',
    code >= 400 ? PROBLEM_CONTENT_TYPE : 'application/json; charset=utf-8',
  );
  res.setHeader('cache-control', 'no-store');
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.end(JSON.stringify(body));
}

/** Express rewrites `req.url` under a mount point, so this is the path relative to the mount. */
function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

function normalizePath(path: string): string {
  const withSlash = path.startsWith('/') ? path : `/${path}`;
  return withSlash.length > 1 ? withSlash.replace(/\/+$/, '') : withSlash;
}
