import { z } from 'zod';
import { describeValue, LABEL_MAX_LENGTH, Outcome, validText } from './report.schema.js';

/** The original specification's default page size of the read API. */
export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 100;
/** Cursors the server makes are under 200 characters; anything far longer is not one. */
export const CURSOR_MAX_LENGTH = 512;

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|z|[+-]\d{2}:?\d{2})?$/;

/**
 * A parsed `from`/`to` bound. `end` is the first instant after the bound at the precision the
 * caller wrote: `to=2026-11-21` covers the whole day, `to=…T10:00:00Z` the whole second (the
 * wire shows whole seconds, so a report shown as 10:00:00Z is inside `to=…T10:00:00Z`).
 */
export interface TimeBound {
  start: Date;
  end: Date;
}

function validCalendarDate(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/**
 * An unencoded `+` in a query string decodes to a space, so `…T10:00:00+02:00` typed into a URL
 * arrives as `…T10:00:00 02:00`. A space before a trailing offset can only have been a `+`.
 */
const PLUS_DECODED_AS_SPACE = /(T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?) (\d{2}:?\d{2})$/i;

export function parseTimeBound(input: string): TimeBound | null {
  const text = input.replace(PLUS_DECODED_AS_SPACE, '$1+$2');
  const dateOnly = DATE_ONLY.exec(text);
  if (dateOnly) {
    const [y, m, d] = dateOnly.slice(1, 4).map(Number) as [number, number, number];
    if (!validCalendarDate(y, m, d)) return null;
    const start = new Date(Date.UTC(y, m - 1, d));
    return { start, end: new Date(start.getTime() + 86_400_000) };
  }
  const match = DATE_TIME.exec(text);
  if (!match) return null;
  const [, ys, ms, ds, hs, mins, secs, frac, offset] = match;
  const [y, m, d, h, min] = [ys, ms, ds, hs, mins].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const s = secs === undefined ? 0 : Number(secs);
  if (!validCalendarDate(y, m, d) || h > 23 || min > 59 || s > 59) return null;
  const millis = frac === undefined ? 0 : Number(frac.slice(0, 3).padEnd(3, '0'));
  let offsetMinutes = 0;
  if (offset && offset.toUpperCase() !== 'Z') {
    const digits = offset.replace(':', '');
    const sign = digits.startsWith('-') ? -1 : 1;
    const oh = Number(digits.slice(1, 3));
    const om = Number(digits.slice(3, 5));
    if (oh > 23 || om > 59) return null;
    offsetMinutes = sign * (oh * 60 + om);
  }
  const startMs = Date.UTC(y, m - 1, d, h, min, s, millis) - offsetMinutes * 60_000;
  const precisionMs = frac !== undefined ? 1 : secs !== undefined ? 1000 : 60_000;
  return { start: new Date(startMs), end: new Date(startMs + precisionMs) };
}

export const positiveInt = (name: string) =>
  z
    .string()
    .regex(/^\d+$/, {
      error: (i) => `must be a positive integer (received ${describeValue(i.input)})`,
    })
    .transform(Number)
    .refine((n) => Number.isSafeInteger(n) && n >= 1, {
      error: `must be a positive integer, 1 or more`,
    })
    .describe(name);

/**
 * The `limit` of every paged list: a positive integer, DEFAULT_PAGE_LIMIT when absent, and
 * above MAX_PAGE_LIMIT clamped to it (so `pagination.limit` says what the page holds at most).
 */
export const pageLimit = () =>
  positiveInt('limit')
    .optional()
    .transform((n) => Math.min(n ?? DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT));

/**
 * A `from` or `to` query parameter: the reports list's and the issues list's, one parser and one
 * message so both endpoints read dates alike. `from` keeps its `start`, `to` its `end`.
 */
export const TimeBoundParam = z.string().transform((text, ctx) => {
  const bound = parseTimeBound(text);
  if (!bound) {
    ctx.addIssue({
      code: 'custom',
      message: `must be an ISO 8601 date (2026-11-21) or date-time (2026-11-21T14:30:00Z, offset optional, UTC when absent); received ${describeValue(text)}`,
    });
    return z.NEVER;
  }
  return bound;
});

/**
 * The refinement of a query with `from` and `to`: a range that ends before it starts is refused
 * rather than answered with nothing. Spread into `.refine(...)`.
 */
export const fromNotAfterTo: [
  (q: { from?: TimeBound; to?: TimeBound }) => boolean,
  { error: string; path: string[] },
] = [
  (q) => !q.from || !q.to || q.from.start.getTime() < q.to.end.getTime(),
  // The field name leads the detail ("from must not be after to"), so it is not repeated.
  { error: 'must not be after to', path: ['from'] },
];

const label = validText(
  z.string().max(LABEL_MAX_LENGTH, { error: `must be at most ${LABEL_MAX_LENGTH} characters` }),
);

/**
 * Query of `GET /v1/dashboard/{projectId}/reports`. Every value arrives as a string; repeated
 * parameters are refused rather than silently picking one.
 */
export const ListReportsQuery = z
  .object({
    outcome: Outcome.optional(),
    tool_name: label.optional(),
    source: label.optional(),
    from: TimeBoundParam.optional(),
    to: TimeBoundParam.optional(),
    /** Only the reports of this issue (32 hex). */
    issue_id: z
      .string()
      .regex(/^[0-9a-f]{32}$/, {
        error: (i) =>
          `must be an issue id of 32 lowercase hex characters (received ${describeValue(i.input)})`,
      })
      .optional(),
    /** Absent: the first page, or the page after `cursor`. */
    page: positiveInt('page').optional(),
    limit: pageLimit(),
    /**
     * Extension: `pagination.next_cursor` of the previous page, opaque. The server checks that
     * it was made for the same project and filters (it is refused otherwise).
     */
    cursor: z
      .string()
      .min(1, { error: 'must not be empty: leave it out for the first page' })
      .max(CURSOR_MAX_LENGTH, {
        error: `must be at most ${CURSOR_MAX_LENGTH} characters: pass pagination.next_cursor as it came`,
      })
      .optional(),
  })
  .refine(...fromNotAfterTo)
  .refine((q) => q.page === undefined || q.cursor === undefined, {
    error:
      'cannot be combined with cursor: a cursor already says where its page starts; send page for a page by number or cursor to continue a walk, not both',
    path: ['page'],
  });
export type ListReportsQuery = z.output<typeof ListReportsQuery>;
export type ListReportsQueryInput = z.input<typeof ListReportsQuery>;

/**
 * Query of `GET /v1/dashboard/{projectId}/events`: none. Resuming uses the `Last-Event-ID`
 * header, which EventSource sends by itself; any parameter is refused as unknown.
 */
export const ReportEventsQuery = z.object({});
