import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { processStat, TICKS } from './process-cpu.js';

export interface LoadOptions {
  url: string;
  connections: number;
  /** Seconds of unmeasured load first, so JIT, caches and connection setup settle. */
  warmupSeconds: number;
  seconds: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Paths (on `url`'s origin) each connection requests in turn, instead of `url` alone. */
  paths?: string[];
  /** The server process, whose CPU time is read from /proc (Linux) around the measured run. */
  serverPid?: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  total: number;
  /** Responses that were not 2xx, plus socket errors (timeouts included). */
  failures: number;
  /**
   * Requests unanswered after autocannon's 10 s timeout (within `failures`): a measure of a
   * slow server, not a broken run, so a read row may have them and still be valid.
   */
  timeouts: number;
  /** The status codes that were not 2xx, with their counts ({} when every response was 2xx). */
  failedStatuses: Record<string, number>;
  /**
   * Server CPU time (user + system) per request, in microseconds: unlike req/s it does not
   * depend on how busy the rest of the machine is. null where /proc is not available.
   */
  cpuMicrosPerRequest: number | null;
  /**
   * The whole machine's busy CPU time per request, in microseconds: the server, its database
   * (PostgreSQL's processes) and the load generator. What a request costs the shared cores.
   */
  machineCpuMicrosPerRequest?: number | null;
}

/** The machine's busy CPU seconds so far (all cores), from /proc/stat; null elsewhere. */
export function machineCpuSeconds(): number | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    // cpu user nice system idle iowait irq softirq steal …: all but idle and iowait are busy.
    const [user, nice, system, , , irq, softirq, steal] = line
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    return (
      ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) / 100
    );
  } catch {
    return null;
  }
}

/** utime + stime of a process in seconds (bench/process-cpu.ts reads /proc). */
export function cpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  const stat = processStat(pid);
  return stat ? stat.own / TICKS : null;
}

/** One autocannon run of `seconds` (no warm-up); `.stop()` ends it early. */
export function run(options: LoadOptions, seconds: number) {
  return autocannon({
    url: options.url,
    connections: options.connections,
    pipelining: 1,
    duration: seconds,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body !== undefined ? { body: options.body } : {}),
    ...(options.paths ? { requests: options.paths.map((path) => ({ path })) } : {}),
    timeout: 10,
  });
}

/** autocannon (programmatic), one warm-up then one measured run against the same URL. */
export async function measure(options: LoadOptions): Promise<LoadResult> {
  if (options.warmupSeconds > 0) await run(options, options.warmupSeconds);
  const cpuBefore = cpuSeconds(options.serverPid);
  const machineBefore = machineCpuSeconds();
  const result = await run(options, options.seconds);
  const cpuAfter = cpuSeconds(options.serverPid);
  const machineAfter = machineCpuSeconds();
  const requests = result.requests.total;
  return {
    ...toLoadResult(result, cpuBefore, cpuAfter),
    machineCpuMicrosPerRequest:
      machineBefore !== null && machineAfter !== null && requests > 0
        ? ((machineAfter - machineBefore) * 1e6) / requests
        : null,
  };
}

type AutocannonResult = Awaited<ReturnType<typeof run>>;

/** The figures of a run; CPU µs per request from the server's CPU seconds around it. */
export function toLoadResult(
  result: AutocannonResult,
  cpuBefore: number | null,
  cpuAfter: number | null,
  requests = result.requests.total,
): LoadResult {
  return {
    cpuMicrosPerRequest:
      cpuBefore !== null && cpuAfter !== null && requests > 0
        ? ((cpuAfter - cpuBefore) * 1e6) / requests
        : null,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    total: result.requests.total,
    // autocannon counts a timeout among its errors too.
    failures: result.non2xx + result.errors,
    timeouts: result.timeouts,
    failedStatuses: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {})
        .filter(([code]) => !code.startsWith('2'))
        .map(([code, stats]) => [code, stats.count]),
    ),
  };
}
