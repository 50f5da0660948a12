/**
 * A fixed request rate, evenly spaced: the open-loop load of the steady bench. autocannon's
 * `overallRate` gives each connection a quota per second that it sends back to back as soon as
 * the second starts, so the server sees a saturating burst and then silence every second; a
 * CPU figure taken under that measures bursts, not a steady stream. Here each request leaves at
 * its own time (start + i / rate, on 1-ms timers) over keep-alive connections of node:http.
 * Bounded: `rate × seconds` requests at most, and the run stops sending at twice its duration.
 */
import { Agent, request } from 'node:http';

export interface PacedOptions {
  url: string;
  body: string;
  headers: Record<string, string>;
  /** Requests a second. */
  rate: number;
  seconds: number;
  /** Keep-alive connections reused across runs (the warm-up and the measured window). */
  agent: Agent;
}

export interface PacedResult {
  sent: number;
  /** Responses with a 2xx status. */
  ok: number;
  /** Responses that were not 2xx, plus socket errors and requests unanswered after 10 s. */
  failures: number;
  failedStatuses: Record<string, number>;
  /** From the first request sent to the last response. */
  elapsedSeconds: number;
  /** The requests' sent rate: below `rate` when the server could not keep the schedule. */
  sentPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * Keep-alive connections: past them, requests wait in the agent's queue and still leave on
 * schedule, their wait counted in their latency. A pause of the server (a checkpoint waiting on a
 * busy disk) then shows in p99 instead of slowing the load, as real clients would not slow down.
 */
export const SOCKETS = 64;
/** The most requests outstanding at once (sent or queued); past it the schedule slips. */
export const MAX_OUTSTANDING = 2000;
const REQUEST_TIMEOUT_MS = 10_000;

export function pacedAgent(): Agent {
  return new Agent({ keepAlive: true, maxSockets: SOCKETS });
}

export function pacedLoad(options: PacedOptions): Promise<PacedResult> {
  const url = new URL(options.url);
  const body = Buffer.from(options.body);
  const headers = { ...options.headers, 'content-length': String(body.length) };
  const total = Math.round(options.rate * options.seconds);
  const giveUpMs = options.seconds * 2000;
  const latencies: number[] = [];
  const failedStatuses: Record<string, number> = {};
  let sent = 0;
  let ok = 0;
  let failures = 0;
  let inFlight = 0;
  let lastAnswer = 0;
  let lastSent = 0;
  const started = performance.now();

  return new Promise((resolve) => {
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      const elapsedSeconds = ((lastAnswer || performance.now()) - started) / 1000;
      latencies.sort((a, b) => a - b);
      const at = (q: number) =>
        latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
      resolve({
        sent,
        ok,
        failures,
        failedStatuses,
        elapsedSeconds,
        // Over the schedule's length, or over the time the sending took when it slipped.
        sentPerSecond:
          sent / Math.max(options.seconds, (lastSent - started) / 1000 + 1 / options.rate),
        p50Ms: round2(at(0.5)),
        p99Ms: round2(at(0.99)),
        maxMs: round2(latencies.at(-1) ?? 0),
      });
    };
    const fail = (status: string) => {
      failures++;
      failedStatuses[status] = (failedStatuses[status] ?? 0) + 1;
    };
    const settle = () => {
      inFlight--;
      lastAnswer = performance.now();
      if (inFlight === 0 && (sent >= total || lastAnswer - started > giveUpMs)) finish();
    };
    const send = () => {
      const at = performance.now();
      let settled = false;
      const once = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        outcome();
        settle();
      };
      const req = request(
        {
          agent: options.agent,
          method: 'POST',
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          headers,
        },
        (res) => {
          res.resume();
          res.once('end', () =>
            once(() => {
              const status = res.statusCode ?? 0;
              if (status >= 200 && status < 300) {
                ok++;
                latencies.push(performance.now() - at);
              } else fail(String(status));
            }),
          );
          res.once('error', () => once(() => fail('socket error')));
        },
      );
      req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error('timeout')));
      req.once('error', (error) =>
        once(() => fail(error.message === 'timeout' ? 'timeout' : 'socket error')),
      );
      req.end(body);
      inFlight++;
      sent++;
      lastSent = at;
    };
    const tick = () => {
      const now = performance.now() - started;
      if (now > giveUpMs) {
        if (inFlight === 0) finish();
        return;
      }
      // Every request whose time has come, unless MAX_OUTSTANDING are still waiting.
      const due = Math.min(total, Math.floor((now / 1000) * options.rate) + 1);
      while (sent < due && inFlight < MAX_OUTSTANDING) send();
      if (sent < total) setTimeout(tick, 1);
    };
    tick();
  });
}

const round2 = (ms: number) => Math.round(ms * 100) / 100;
