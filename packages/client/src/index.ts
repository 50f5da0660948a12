export { DEFAULT_BASE_URL, resolveBaseUrl } from './base-url.js';
export {
  CLIENT_ERROR_CODES,
  type ClientErrorCode,
  type ClientProblem,
  DebriefError,
  type DebriefProblem,
  isClientProblem,
} from './client-error.js';
export { localKeyProblem, resolveIngestKey } from './ingest-key.js';
export {
  createReader,
  DEFAULT_READ_TIMEOUT_MS,
  type IssueFilters,
  type Reader,
  type ReaderOptions,
  type ReportFilters,
} from './reader.js';
export type { EventsOptions } from './report-events.js';
export {
  createReporter,
  DEFAULT_REPORT_RETRIES,
  DEFAULT_REPORT_TIMEOUT_MS,
  type Reporter,
  type ReporterOptions,
  type ReportResult,
} from './reporter.js';
export { type SseEvent, SseParser } from './sse-parser.js';
export type { FetchLike } from './transport.js';
