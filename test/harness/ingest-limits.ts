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
  // Every test and bench client is one address (127.0.0.1), where real traffic comes from many:
  // the bench's 1,000 event streams would otherwise meet the per-address connection cap.
  // http-limits.security.test.ts sets its own cap.
  MAX_CONNECTIONS_PER_ADDRESS: '0',
};
