import {
  type ErrorCode,
  type FieldError,
  PROBLEM_CONTENT_TYPE,
  type ProblemDetails,
  problem,
} from '@debrief/protocol';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './api-error.js';
import { classifyStorageFault, type StorageFault } from './storage-fault.js';

/**
 * The challenge of a 401 (RFC 9110 requires one): which credentials the request lacked. The
 * ingest key travels in the body, which no registered scheme covers: `IngestKey` names it.
 */
function challengeOf(code: string): string {
  switch (code) {
    case 'missing_ingest_key':
    case 'invalid_ingest_key':
    case 'secret_key_not_allowed':
      return 'IngestKey realm="Debrief"';
    case 'invalid_credentials':
      return 'Session realm="Debrief"';
    case 'invalid_api_key':
    case 'ingest_key_cannot_read':
      return 'Bearer realm="Debrief", error="invalid_token"';
    default:
      return 'Bearer realm="Debrief"';
  }
}

export function sendProblem(
  reply: FastifyReply,
  body: ProblemDetails,
  headers: Record<string, string> = {},
): FastifyReply {
  if (body.status === 401) reply.header('www-authenticate', challengeOf(body.code));
  return reply.code(body.status).headers(headers).type(PROBLEM_CONTENT_TYPE).send(body);
}

/** Framework errors (body limit, bad URL, …) keep their status but get our shape and a code. */
function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 413:
      return 'payload_too_large';
    case 429:
      return 'rate_limited';
    case 503:
      return 'service_unavailable';
    default:
      return status >= 400 && status < 500 ? 'invalid_body' : 'internal_error';
  }
}

function frameworkDetail(error: FastifyError, code: ErrorCode, bodyLimit: number): string {
  if (code === 'payload_too_large') {
    return `The request body is larger than ${bodyLimit / 1024} KiB. Shorten details (at most 10,000 characters) and metadata (at most 2 KiB).`;
  }
  return error.message;
}

/**
 * Errors Fastify raises before routing (a path that is not valid percent-encoding, a path
 * parameter longer than `maxParamLength`), which bypass the error handler: without this they
 * answer Fastify's own JSON instead of problem details (found by the fuzz test). Such a path
 * names no resource, so it is a 404.
 */
export function frameworkErrorHandler(publicUrl: string) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '';
    sendProblem(
      reply,
      problem(
        publicUrl,
        'not_found',
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? `There is no resource at ${path.slice(0, 80)}…: a path segment is too long. Project ids are 32 hex characters; GET /v1/projects lists yours.`
          : `The path ${JSON.stringify(path.slice(0, 80))} is not valid percent-encoding, so it names no resource. The endpoints are listed in /openapi.json.`,
      ),
    );
  };
}

/** What a caller is told when the database cannot be used: no path, no driver message. */
export function storageUnavailableDetail(fault: StorageFault): string {
  return `The database of this service cannot be used right now, so nothing was stored or changed. Retry after ${fault.retryAfterSeconds} seconds (Retry-After).`;
}

/** At most one log line per this many ms and fault code: an outage must not flood the log. */
const FAULT_LOG_INTERVAL_MS = 10_000;

/** One handler for every error of the app, so every failure has the one problem-details shape. */
export function registerErrorHandling(app: FastifyInstance, publicUrl: string): void {
  const faultLoggedAt = new Map<string, number>();
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ApiError) {
      return sendProblem(
        reply,
        problem(publicUrl, error.code, error.detail, error.options.errors as FieldError[]),
        error.options.headers,
      );
    }
    // A database that cannot be reached, a full disk, a read-only file: a 503 the caller can
    // retry, never a 500 (errors/storage-fault.ts decides which errors those are).
    const fault = classifyStorageFault(error);
    if (fault) {
      const now = Date.now();
      if (now - (faultLoggedAt.get(fault.code) ?? 0) >= FAULT_LOG_INTERVAL_MS) {
        faultLoggedAt.set(fault.code, now);
        request.log.warn(
          { err: error, storageFault: fault.code },
          'the database cannot be used: answering 503 (logged once per 10 s per cause)',
        );
      }
      return sendProblem(
        reply,
        problem(publicUrl, 'service_unavailable', storageUnavailableDetail(fault)),
        { 'Retry-After': String(fault.retryAfterSeconds) },
      );
    }
    const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
    const code = codeForStatus(status);
    if (code === 'internal_error') {
      request.log.error({ err: error }, 'unhandled error');
      return sendProblem(
        reply,
        problem(
          publicUrl,
          code,
          'Something went wrong on our side and nothing was changed. Retry in a moment; if it persists, tell the operator of this Debrief instance.',
        ),
      );
    }
    return sendProblem(
      reply,
      problem(publicUrl, code, frameworkDetail(error, code, app.initialConfig.bodyLimit ?? 0)),
    );
  });

  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      problem(
        publicUrl,
        'not_found',
        `There is no endpoint ${request.method} ${request.url.split('?')[0]}. The endpoints are listed in /openapi.json; reports are sent with POST /v1/reports.`,
      ),
    ),
  );
}
