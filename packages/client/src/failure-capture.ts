import { type ReportInput, redactText, SECRET_PATTERNS, SECRET_PREFILTER } from '@debrief/protocol';
import type { ReportResult } from './reporter.js';

/** Longest error text sent; the stack and the tail of a long message rarely help grouping. */
export const CAPTURE_DETAILS_MAX = 2_000;
export const DEFAULT_CAPTURE_DEDUPE_MS = 10 * 60_000;
export const DEFAULT_CAPTURE_MAX_PER_MINUTE = 10;

export interface FailureCaptureOptions {
  /** Sends one report; `reporter.report` bound to the host's reporter. */
  report: (input: ReportInput) => Promise<ReportResult>;
  /** The same failure (name and text, numbers aside) is sent once per this long. Default 10 min. */
  dedupeMs?: number;
  /** At most this many captured reports per minute across all names. Default 10. */
  maxPerMinute?: number;
  onError?: (result: Extract<ReportResult, { ok: false }>) => void;
  now?: () => number;
}

export interface CapturedFailure {
  /** The tool or route that failed. */
  name: string;
  /** The error text; secrets are redacted and it is cut to 2,000 characters before it is sent. */
  error: string;
  metadata?: Record<string, string | number | boolean>;
  /** `source` of the report, when the reporter's default is not the right one. */
  source?: string | undefined;
}

export interface FailureCapture {
  /** Queues a `failure` report unless an equal one went recently. Returns at once; never throws. */
  capture(failure: CapturedFailure): void;
  /** Resolves when the reports already queued are sent (tests and shutdown). */
  settled(): Promise<void>;
}

/**
 * Turns a host's failures into `failure` reports without letting a crashing tool flood the
 * project: equal failures are sent once per `dedupeMs`, all of them at most `maxPerMinute`.
 * A failure that repeats is already one issue in Debrief; the call counts say how often.
 */
export function createFailureCapture(options: FailureCaptureOptions): FailureCapture {
  const now = options.now ?? Date.now;
  const dedupeMs = options.dedupeMs ?? DEFAULT_CAPTURE_DEDUPE_MS;
  const maxPerMinute = options.maxPerMinute ?? DEFAULT_CAPTURE_MAX_PER_MINUTE;
  const lastSent = new Map<string, number>();
  let minute = -1;
  let sentThisMinute = 0;
  const inFlight = new Set<Promise<void>>();

  function admit(key: string): boolean {
    const at = now();
    const previous = lastSent.get(key);
    if (previous !== undefined && at - previous < dedupeMs) return false;
    const thisMinute = Math.floor(at / 60_000);
    if (thisMinute !== minute) {
      minute = thisMinute;
      sentThisMinute = 0;
    }
    if (sentThisMinute >= maxPerMinute) return false;
    sentThisMinute += 1;
    lastSent.set(key, at);
    if (lastSent.size > 1_000) {
      for (const [k, t] of lastSent) if (at - t >= dedupeMs) lastSent.delete(k);
    }
    return true;
  }

  return {
    capture(failure) {
      try {
        const details = redactSecrets(
          failure.error.trim() || 'The call failed without a message.',
        ).slice(0, CAPTURE_DETAILS_MAX);
        if (!admit(`${failure.name}\n${fingerprint(details)}`)) return;
        const sent = options
          .report({
            outcome: 'failure',
            details,
            tool_name: failure.name.slice(0, 200),
            ...(failure.source ? { source: failure.source } : {}),
            metadata: { ...failure.metadata, captured: true },
          })
          .then((result) => {
            if (!result.ok) options.onError?.(result);
          })
          .catch(() => {})
          .finally(() => inFlight.delete(sent));
        inFlight.add(sent);
      } catch {
        // Capturing is a guest in the host's error path: it must never add an error of its own.
      }
    },
    async settled() {
      await Promise.all([...inFlight]);
    },
  };
}

/**
 * An error message quotes what the host had in hand — a connection string, a token in a header —
 * so secrets are taken out before the text leaves the process, with Debrief's own table (Debrief
 * redacts again before storing, with the project's settings).
 */
function redactSecrets(text: string): string {
  return SECRET_PREFILTER.test(text) ? redactText(text, SECRET_PATTERNS).text : text;
}

/** Numbers and hex ids vary between otherwise equal errors ("timeout after 5012 ms"). */
function fingerprint(text: string): string {
  return text.replace(/[0-9a-f]{8,}/gi, '#').replace(/\d+/g, '#');
}
