import { formatWireTimestamp } from '@debrief/protocol';
import { ApiError } from '../errors/api-error.js';
import { DAY_MS } from '../time/utc-time.js';
import { rateLimitHeaders } from './ingest-gate.js';
import { type LimitReached, limitResetAt, usageMonth } from './storage-limits.js';

function secondsUntil(from: Date, to: Date): number {
  return Math.max(1, Math.ceil((to.getTime() - from.getTime()) / 1000));
}

/**
 * The 429 of a report refused at `now` because it would pass a limit on stored reports
 * (storage-limits.ts): nothing was stored, and `Retry-After` points at the start of the window
 * after the one that is full. The daily share is a rate limit to the client (`rate_limited`,
 * with the IETF RateLimit headers); the account's quota and the project's cap are
 * `quota_exceeded`.
 */
export function storageLimitError(reached: LimitReached, limit: number, now: Date): ApiError {
  const resetAt = limitResetAt(reached, now);
  const wait = secondsUntil(now, resetAt);
  const month = usageMonth(now);
  switch (reached) {
    case 'address_daily':
      return new ApiError(
        'rate_limited',
        `Your address has stored ${limit} reports for this account today (UTC), its daily share of the account's monthly quota, so this report was not stored. The share resets at ${formatWireTimestamp(resetAt)}; send it again after that (Retry-After), or ask the developer of this tool to raise the limit.`,
        { headers: rateLimitHeaders('daily', limit, DAY_MS / 1000, 0, wait) },
      );
    case 'project_cap':
      return new ApiError(
        'quota_exceeded',
        `This project has stored its ${limit} reports for ${month} (UTC), the monthly cap its developer set, so this report was not stored. The cap resets at ${formatWireTimestamp(resetAt)}; retry after that, or ask the developer of this tool to raise it.`,
        { headers: { 'Retry-After': String(wait) } },
      );
    case 'quota_exceeded':
      return new ApiError(
        'quota_exceeded',
        `This account has stored its ${limit} reports for ${month} (UTC), so this report was not stored. The quota resets at ${formatWireTimestamp(resetAt)}; retry after that, or ask the developer of this tool to raise the limit.`,
        { headers: { 'Retry-After': String(wait) } },
      );
  }
}
