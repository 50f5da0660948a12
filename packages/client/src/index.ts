export { DEFAULT_BASE_URL, resolveBaseUrl } from './base-url.js';
export {
  CLIENT_ERROR_CODES,
  type ClientErrorCode,
  type ClientProblem,
  DebriefError,
  type DebriefProblem,
  isClientProblem,
} from './client-error.js';
export {
  CAPTURE_DETAILS_MAX,
  type CapturedFailure,
  createFailureCapture,
  DEFAULT_CAPTURE_DEDUPE_MS,
  DEFAULT_CAPTURE_MAX_PER_MINUTE,
  type FailureCapture,
  type FailureCaptureOptions,
} from './failure-capture.js';
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
export { type ReportIssue, reportIssueOf } from './report-issue.js';
export {
  createReporter,
  DEFAULT_REPORT_RETRIES,
  DEFAULT_REPORT_TIMEOUT_MS,
  type Reporter,
  type ReporterOptions,
  type ReportResult,
  type SendOptions,
  type UsageResult,
} from './reporter.js';
export { type SseEvent, SseParser } from './sse-parser.js';
export type { FetchLike } from './transport.js';
export type { ToolUsage, UsageInput } from './usage.js';
export {
  createUsageCounter,
  DEFAULT_USAGE_INTERVAL_MS,
  USAGE_MAX_TOOLS,
  type UsageCounter,
  type UsageCounterOptions,
} from './usage-counter.js';
