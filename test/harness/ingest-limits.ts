/**
 * Ingest limits out of the way of tests about other things (durability bursts, quota races,
 * the benchmark): the limiter still runs on every submission, with buckets no test fills and
 * no per-address share. Tests of the limits pass their own values (rate-limits.*.test.ts);
 * the production defaults are in config.ts.
 */
export const GENEROUS_INGEST_LIMITS: Record<string, string> = {
  INGEST_RATE_PER_KEY: '1000000',
  INGEST_BURST_PER_KEY: '1000000',
  INGEST_RATE_PER_ADDRESS: '1000000',
  INGEST_BURST_PER_ADDRESS: '1000000',
  ADDRESS_DAILY_SHARE: '100',
};
