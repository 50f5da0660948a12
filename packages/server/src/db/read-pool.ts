import type { CompiledQuery, QueryResult } from 'kysely';
import { ApiError } from '../errors/api-error.js';
import type { ReadCancel } from './read-cancel.js';

/**
 * Where report reads run off the main connection: reader processes on a SQLite file
 * (sqlite-reader-pool.ts), a second pg pool with a statement time limit on PostgreSQL
 * (pg-read-pool.ts). Each read is bounded in time and stopped when its request is abandoned.
 */
export interface ReadPool {
  execute(query: CompiledQuery, cancel: ReadCancel | undefined): Promise<QueryResult<unknown>>;
  close(): Promise<void>;
}

/** Seconds a client is told to wait before retrying a read that ran out of time. */
const READ_RETRY_AFTER_SECONDS = 5;

/** A read ran past READ_TIMEOUT_MS and was stopped: 503 `read_timeout`, retry later or narrower. */
export function readTimedOut(timeoutMs: number): ApiError {
  return new ApiError(
    'read_timeout',
    `This read took longer than ${timeoutMs} ms and was stopped, so the server stays responsive. Retry after ${READ_RETRY_AFTER_SECONDS} seconds (Retry-After); if it happens again, narrow the query (a shorter from/to range, or a filter).`,
    { headers: { 'Retry-After': String(READ_RETRY_AFTER_SECONDS) } },
  );
}

/**
 * The client closed the request, so its read was stopped. Nobody receives the answer; it is an
 * ApiError only so that the error handler does not log it as a fault.
 */
export function readCancelled(): ApiError {
  return new ApiError(
    'service_unavailable',
    'The client closed the request before the read finished, so the read was stopped.',
  );
}
