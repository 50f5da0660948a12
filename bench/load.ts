import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  connections: number;
  /** Seconds of unmeasured load first, so JIT, caches and connection setup settle. */
  warmupSeconds: number;
  seconds: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  total: number;
  /** Responses that were not 2xx, plus socket errors and timeouts: must be 0 for a valid run. */
  failures: number;
}

function run(options: LoadOptions, seconds: number) {
  return autocannon({
    url: options.url,
    connections: options.connections,
    pipelining: 1,
    duration: seconds,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body !== undefined ? { body: options.body } : {}),
    timeout: 10,
  });
}

/** autocannon (programmatic), one warm-up then one measured run against the same URL. */
export async function measure(options: LoadOptions): Promise<LoadResult> {
  if (options.warmupSeconds > 0) await run(options, options.warmupSeconds);
  const result = await run(options, options.seconds);
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    total: result.requests.total,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}
