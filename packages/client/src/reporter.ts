import {
  describeFieldErrors,
  fieldErrors,
  problem,
  type ReportInput,
  ReportInput as ReportInputSchema,
  type SubmitReportIssue,
  SubmitReportResponse,
} from '@debrief/protocol';
import { resolveBaseUrl } from './base-url.js';
import { clientProblem, DebriefError, type DebriefProblem } from './client-error.js';
import { localKeyProblem, resolveIngestKey } from './ingest-key.js';
import { request } from './request.js';
import type { FetchLike } from './transport.js';

export const DEFAULT_REPORT_TIMEOUT_MS = 10_000;
export const DEFAULT_REPORT_RETRIES = 2;

export interface ReporterOptions {
  /**
   * The project's public ingest key, `wk_` + 32 hex; else `DEBRIEF_INGEST_KEY`. Never a secret
   * `wk_sk_` key: one is refused locally, without being sent.
   */
  ingestKey?: string | undefined;
  /** Debrief's base URL; else `DEBRIEF_URL`, else `http://localhost:8080`. */
  baseUrl?: string;
  /** Default `source` of every report (a report's own `source` wins). */
  source?: string;
  /** Longest one `report()` may take, all attempts and waits included. Default 10,000 ms. */
  timeoutMs?: number;
  /** Extra attempts after the first, on network errors, 5xx and a short 429. Default 2. */
  retries?: number;
  /** Reject with a `DebriefError` instead of resolving `{ ok: false }`. Default false. */
  throwOnError?: boolean;
  /** A fetch implementation; defaults to the global one. */
  fetch?: FetchLike;
}

export type ReportResult =
  | {
      ok: true;
      id: string;
      attempts: number;
      /**
       * What the developer already knows of the problem the report joined (an agent note, or
       * resolved or ignored): for the agent to read. Absent for most reports.
       */
      issue?: SubmitReportIssue;
    }
  | {
      ok: false;
      /** The server's problem details, or a client-side one (`network_error`, `timeout`, …). */
      error: DebriefProblem;
      /** Requests sent; 0 when the input was refused locally. */
      attempts: number;
      /** Present when Debrief asked to wait longer than the bound allowed (e.g. a 429). */
      retry_after_seconds?: number;
    };

export interface Reporter {
  readonly baseUrl: string;
  report(input: ReportInput): Promise<ReportResult>;
}

export function createReporter(options: ReporterOptions): Reporter {
  const baseUrl = resolveBaseUrl(options.baseUrl);
  const timeoutMs = options.timeoutMs ?? DEFAULT_REPORT_TIMEOUT_MS;
  const retries = Math.max(0, options.retries ?? DEFAULT_REPORT_RETRIES);
  const fetchFn = options.fetch ?? globalThis.fetch;
  const ingestKey = resolveIngestKey(options.ingestKey);
  const keyProblem = localKeyProblem(ingestKey, baseUrl);

  async function send(input: ReportInput): Promise<ReportResult> {
    // The key first, as the server does, so a keyless setup learns that before anything else.
    if (keyProblem) return { ok: false, error: keyProblem, attempts: 0 };
    // Same schema and messages as the server, so a bad report fails here without a request.
    const parsed = ReportInputSchema.safeParse({
      ...input,
      source: input?.source ?? options.source,
    });
    if (!parsed.success) {
      const errors = fieldErrors(parsed.error);
      return {
        ok: false,
        error: problem(baseUrl, 'validation_failed', `${describeFieldErrors(errors)}.`, errors),
        attempts: 0,
      };
    }
    const result = await request({
      fetch: fetchFn,
      url: `${baseUrl}/v1/reports`,
      init: {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ ingest_key: ingestKey, ...parsed.data }),
      },
      retries,
      deadline: Date.now() + timeoutMs,
    });
    if (!result.ok) {
      return {
        ok: false,
        error: result.problem,
        attempts: result.attempts,
        ...(result.retryAfterSeconds !== undefined
          ? { retry_after_seconds: result.retryAfterSeconds }
          : {}),
      };
    }
    const body = SubmitReportResponse.safeParse(result.body);
    if (!body.success) {
      return {
        ok: false,
        error: clientProblem(
          'invalid_response',
          `HTTP ${result.status} without a report id. Is the base URL a Debrief server?`,
          result.status,
        ),
        attempts: result.attempts,
      };
    }
    const { id, issue } = body.data;
    return { ok: true, id, attempts: result.attempts, ...(issue ? { issue } : {}) };
  }

  return {
    baseUrl,
    async report(input) {
      let result: ReportResult;
      try {
        result = await send(input);
      } catch (error) {
        // A guest in someone else's process: even a bug here must not throw into the host.
        result = {
          ok: false,
          error: clientProblem(
            'network_error',
            `The report could not be sent: ${error instanceof Error ? error.message : String(error)}`,
          ),
          attempts: 0,
        };
      }
      if (!result.ok && options.throwOnError) {
        throw new DebriefError(result.error, result.retry_after_seconds);
      }
      return result;
    },
  };
}
