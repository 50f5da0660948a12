import {
  describeFieldErrors,
  fieldErrors,
  problem,
  type ReportInput,
  ReportInput as ReportInputSchema,
  SubmitReportResponse,
} from '@debrief/protocol';
import { resolveBaseUrl } from './base-url.js';
import { clientProblem, DebriefError, type DebriefProblem } from './client-error.js';
import { localKeyProblem, resolveIngestKey } from './ingest-key.js';
import { type ReportIssue, reportIssueOf } from './report-issue.js';
import { type RequestResult, request } from './request.js';
import type { FetchLike } from './transport.js';
import type { UsageInput } from './usage.js';

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
  /**
   * The project's forwarding secret, for a host that submits on behalf of many agents: sent as
   * `Debrief-Forwarding-Secret` with each call's `forwardedFor`, so Debrief applies its
   * per-address limits to the agent rather than to the host. Keep it on the server.
   */
  forwardingSecret?: string;
}

/** Per call: the address of the agent this host forwards for (needs `forwardingSecret`). */
export interface SendOptions {
  forwardedFor?: string | undefined;
}

export type ReportResult =
  | {
      ok: true;
      id: string;
      attempts: number;
      /** Present when the report joined an issue with a note for agents, or a closed one. */
      issue?: ReportIssue;
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

/** The answer to `sendUsage`: accepted, or why not (same problems as a report's). */
export type UsageResult = { ok: true; attempts: number } | Extract<ReportResult, { ok: false }>;

export interface Reporter {
  readonly baseUrl: string;
  report(input: ReportInput, options?: SendOptions): Promise<ReportResult>;
  /** Sends one window of call counts to `POST /v1/usage`. Never throws (unless `throwOnError`). */
  sendUsage(input: UsageInput, options?: SendOptions): Promise<UsageResult>;
}

export function createReporter(options: ReporterOptions): Reporter {
  const baseUrl = resolveBaseUrl(options.baseUrl);
  const timeoutMs = options.timeoutMs ?? DEFAULT_REPORT_TIMEOUT_MS;
  const retries = Math.max(0, options.retries ?? DEFAULT_REPORT_RETRIES);
  const fetchFn = options.fetch ?? globalThis.fetch;
  const ingestKey = resolveIngestKey(options.ingestKey);
  const keyProblem = localKeyProblem(ingestKey, baseUrl);

  /** The forwarding pair only when both halves are known: half of it means nothing to Debrief. */
  function headers(sendOptions: SendOptions | undefined): Record<string, string> {
    const out: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (options.forwardingSecret && sendOptions?.forwardedFor) {
      out['debrief-forwarding-secret'] = options.forwardingSecret;
      out['debrief-forwarded-for'] = sendOptions.forwardedFor;
    }
    return out;
  }

  function failed(
    result: Extract<RequestResult, { ok: false }>,
  ): Extract<ReportResult, { ok: false }> {
    return {
      ok: false,
      error: result.problem,
      attempts: result.attempts,
      ...(result.retryAfterSeconds !== undefined
        ? { retry_after_seconds: result.retryAfterSeconds }
        : {}),
    };
  }

  async function send(input: ReportInput, sendOptions?: SendOptions): Promise<ReportResult> {
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
        headers: headers(sendOptions),
        body: JSON.stringify({ ingest_key: ingestKey, ...parsed.data }),
      },
      retries,
      deadline: Date.now() + timeoutMs,
    });
    if (!result.ok) return failed(result);
    // The report is stored once it has an id: an `issue` this client does not understand (a
    // newer server's status) is left out by reportIssueOf, never turned into a failure.
    const body = SubmitReportResponse.omit({ issue: true }).safeParse(result.body);
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
    const issue = reportIssueOf(result.body);
    return { ok: true, id: body.data.id, attempts: result.attempts, ...(issue ? { issue } : {}) };
  }

  async function sendUsage(input: UsageInput, sendOptions?: SendOptions): Promise<UsageResult> {
    if (keyProblem) return { ok: false, error: keyProblem, attempts: 0 };
    const result = await request({
      fetch: fetchFn,
      url: `${baseUrl}/v1/usage`,
      init: {
        method: 'POST',
        headers: headers(sendOptions),
        body: JSON.stringify({ ingest_key: ingestKey, ...input }),
      },
      retries,
      deadline: Date.now() + timeoutMs,
    });
    return result.ok ? { ok: true, attempts: result.attempts } : failed(result);
  }

  /** A guest in someone else's process: even a bug here must not throw into the host. */
  async function guarded<T extends ReportResult | UsageResult>(run: () => Promise<T>): Promise<T> {
    let result: T | Extract<ReportResult, { ok: false }>;
    try {
      result = await run();
    } catch (error) {
      result = {
        ok: false,
        error: clientProblem(
          'network_error',
          `The request could not be sent: ${error instanceof Error ? error.message : String(error)}`,
        ),
        attempts: 0,
      };
    }
    if (!result.ok && options.throwOnError) {
      throw new DebriefError(result.error, result.retry_after_seconds);
    }
    return result as T;
  }

  return {
    baseUrl,
    report: (input, sendOptions) => guarded(() => send(input, sendOptions)),
    sendUsage: (input, sendOptions) => guarded(() => sendUsage(input, sendOptions)),
  };
}
