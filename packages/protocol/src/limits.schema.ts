import { z } from 'zod';

/**
 * Ingest limits of a project (dashboard: Keys → Rate limits; `/v1/console/projects/{id}/limits`
 * and `/throttled`). Each setting is the project's own value, or null for the instance's
 * default (configuration); `monthly_cap` null means no cap of its own.
 */

/** Above this a bucket no longer protects anything: say `null` (the default) or lower it. */
export const RATE_SETTING_MAX = 1_000_000;

function rate(what: string) {
  return z
    .number({ error: `must be a whole number of ${what} (1 to ${RATE_SETTING_MAX}) or null` })
    .int({ error: 'must be a whole number' })
    .min(1, { error: 'must be at least 1' })
    .max(RATE_SETTING_MAX, { error: `must be at most ${RATE_SETTING_MAX}` })
    .nullable()
    .default(null);
}

export const ProjectLimitSettings = z.object({
  /** Reports per second one ingest key may send, sustained. */
  key_rate: rate('reports per second'),
  /** Reports one ingest key may send at once, above the sustained rate. */
  key_burst: rate('reports'),
  /** Reports per second one client address may send to this project. */
  address_rate: rate('reports per second'),
  address_burst: rate('reports'),
  /** Share of the account's monthly quota one address may store per UTC day, in percent. */
  address_daily_share: z
    .number({ error: 'must be a whole percentage from 1 to 100, or null' })
    .int({ error: 'must be a whole number' })
    .min(1, { error: 'must be at least 1' })
    .max(100, { error: 'must be at most 100' })
    .nullable()
    .default(null),
  /** Reports this project may store per UTC month, within the account's quota; null = no cap. */
  monthly_cap: z
    .number({ error: 'must be a whole number of reports (0 or more), or null for no cap' })
    .int({ error: 'must be a whole number' })
    .min(0, { error: 'must be 0 or more' })
    .max(1_000_000_000, { error: 'must be at most 1000000000' })
    .nullable()
    .default(null),
});
export type ProjectLimitSettings = z.output<typeof ProjectLimitSettings>;
export type ProjectLimitSettingsBody = z.input<typeof ProjectLimitSettings>;

export const ProjectLimits = z.object({
  settings: ProjectLimitSettings,
  /** The instance's defaults (null = no such bucket). */
  defaults: z.object({
    key_rate: z.number().int().nullable(),
    key_burst: z.number().int().nullable(),
    address_rate: z.number().int().nullable(),
    address_burst: z.number().int().nullable(),
    address_daily_share: z.number().int(),
  }),
  /** What applies now: reports one address may store per UTC day (null = no limit). */
  address_daily_limit: z.number().int().nullable(),
  /** The account's monthly quota (null = unlimited), and this project's reports this month. */
  account_monthly_quota: z.number().int().nullable(),
  month: z.string().regex(/^\d{4}-\d{2}$/),
  month_used: z.number().int(),
});
export type ProjectLimits = z.infer<typeof ProjectLimits>;

/** Why a submission was refused: which bucket, or which stored-report limit. */
export const THROTTLE_REASONS = [
  'key_rate',
  'address_rate',
  'address_daily',
  'project_cap',
] as const;
export const ThrottleReason = z.enum(THROTTLE_REASONS);
export type ThrottleReason = z.infer<typeof ThrottleReason>;

export const ThrottledStats = z.object({
  /** UTC days covered, today included. */
  days: z.number().int(),
  total: z.number().int(),
  by_reason: z.record(ThrottleReason, z.number().int()),
  /** Most throttled first; an IPv6 address stands for its /64. */
  top_addresses: z.array(
    z.object({ address: z.string(), count: z.number().int(), last_day: z.string() }),
  ),
});
export type ThrottledStats = z.infer<typeof ThrottledStats>;
