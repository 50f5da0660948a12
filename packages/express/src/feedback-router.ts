import type { IncomingMessage, ServerResponse } from 'node:http';
import { createReporter, type DebriefProblem, isClientProblem } from '@debrief/client';
import {
  BODY_MAX_BYTES,
  describeFieldErrors,
  fieldErrors,
  LABEL_MAX_LENGTH,
  PROBLEM_CONTENT_TYPE,
  type ProblemDetails,
  problem,
} from '@debrief/protocol';
import { FeedbackBody } from './feedback-body.schema.js';
import { forwardMetadata } from './forward-metadata.js';
import { type BodyResult, readJsonBody } from './read-json-body.js';

export const DEFAULT_FEEDBACK_PATH = '/feedback';
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
}

/** The slice of Express's request the router uses; Express 4 and 5 requests both fit. */
type HostRequest = IncomingMessage & { body?: unknown };
type Next = (error?: unknown) => void;

/**
 * `app.use(feedbackRouter({ ingestKey }))` accepts `POST /feedback` and forwards it to Debrief.
 * It is a plain middleware using only Node's request and response, so one build serves
 * Express 4 and 5 alike; other methods and paths go on to the host's own routes.
 */
export function feedbackRouter(
  options: FeedbackRouterOptions,
): (req: HostRequest, res: ServerResponse, next: Next) => void {
  const path = normalizePath(options.path ?? DEFAULT_FEEDBACK_PATH);
  const reporter = createReporter({
    ingestKey: options.ingestKey,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    timeoutMs: options.timeoutMs ?? DEFAULT_FORWARD_TIMEOUT_MS,
  });
  const docsBase = reporter.baseUrl;

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
        problem(
          docsBase,
          'invalid_body',
          `The request body must be one JSON object, not ${Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`}. ${EXAMPLE}`,
        ),
      );
      return;
    }
    const parsed = FeedbackBody.safeParse(value);
    if (!parsed.success) {
      const errors = fieldErrors(parsed.error);
      send(res, problem(docsBase, 'validation_failed', `${describeFieldErrors(errors)}.`, errors));
      return;
    }
    const userAgent = req.headers['user-agent'];
    const result = await reporter.report({
      ...parsed.data,
      // A Host longer than a label allows is cut, rather than failing the caller's report.
      source: options.source ?? req.headers.host?.slice(0, LABEL_MAX_LENGTH) ?? null,
      metadata: forwardMetadata(parsed.data.metadata, { user_agent: userAgent }),
    });
    if (result.ok) {
      send(res, { ok: true, id: result.id }, 201);
      return;
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
        return problem(docsBase, 'invalid_body', `The request body is empty. ${EXAMPLE}`);
      case 'invalid_json':
        return problem(
          docsBase,
          'invalid_json',
          `The request body is not valid JSON (${body.reason}). ${EXAMPLE}`,
        );
      case 'too_large':
        return problem(
          docsBase,
          'payload_too_large',
          `The request body is larger than ${BODY_MAX_BYTES / 1024} KiB. Shorten details (at most 10,000 characters) and metadata (at most 2 KiB).`,
        );
      case 'aborted':
        return null;
    }
  }

  return (req, res, next) => {
    if (req.method !== 'POST' || normalizePath(pathOf(req)) !== path) return next();
    // Never hand an error to `next`: a failure here must not become the host's error page.
    handle(req, res).catch(() => {
      if (!res.headersSent)
        send(
          res,
          problem(
            docsBase,
            'internal_error',
            'The feedback could not be processed and was not stored. Retry in a moment.',
          ),
        );
      else res.end();
    });
  };
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
      status: 502,
      detail: `This endpoint's connection to the feedback service is misconfigured (${error.code}), so the report was not stored. It is not your fault: tell the developer of this API. ${error.detail}`,
    };
  }
  return error;
}

/** Debrief never answered: the host's endpoint is a gateway here, hence 502. */
function unreachable(error: DebriefProblem): DebriefProblem {
  return {
    ...error,
    status: 502,
    detail: `The feedback service behind this endpoint did not answer (${error.code}), so the report was not stored. Retry in a few minutes. ${error.detail}`,
  };
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
