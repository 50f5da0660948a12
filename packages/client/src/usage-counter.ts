import type { UsageResult } from './reporter.js';
import type { ToolUsage, UsageInput } from './usage.js';

export const DEFAULT_USAGE_INTERVAL_MS = 60_000;
/** Names beyond this many in one window are counted under `(other)`, so a body stays small. */
export const USAGE_MAX_TOOLS = 200;
/** Windows kept for a retry while Debrief is unreachable: an hour of minutes, then the oldest go. */
const MAX_PENDING_WINDOWS = 60;
const OTHER = '(other)';
const NAME_MAX = 200;

export interface UsageCounterOptions {
  /** Sends one window; `reporter.sendUsage` bound to the host's reporter. */
  send: (input: UsageInput) => Promise<UsageResult>;
  /** Identifies this process's windows; default a random id. */
  instance?: string;
  serverVersion?: string | undefined;
  /** How often closed windows are sent; default every minute. */
  intervalMs?: number;
  /** Told when a window could not be sent; it is kept and sent again later. */
  onError?: (result: Extract<UsageResult, { ok: false }>) => void;
  now?: () => number;
}

export interface UsageCounter {
  /** Counts one call; `error` when it failed. Cheap and synchronous: never awaits, never throws. */
  record(name: string, error: boolean): void;
  /** Sends every window with counts, the current one included; resolves when done. */
  flush(): Promise<void>;
  /** Stops the timer and sends what is left (shutdown). Recording afterwards does nothing. */
  close(): Promise<void>;
}

/**
 * Counts calls per name in one-minute windows aligned to UTC minutes and sends each closed
 * window to `POST /v1/usage` once a minute, and everything at `flush()`/`close()`. Debrief
 * keys a window by instance and start, so a window sent again (after a lost answer, or a
 * flush of the current minute that then grows) replaces rather than adds up.
 */
export function createUsageCounter(options: UsageCounterOptions): UsageCounter {
  const now = options.now ?? Date.now;
  const instance = options.instance ?? randomInstance();
  const windows = new Map<number, Map<string, ToolUsage>>();
  /** Windows counted into since their last accepted send; the others need no send. */
  const dirty = new Set<number>();
  let closed = false;
  let stopped = false;
  let sending: Promise<void> = Promise.resolve();

  const timer = setInterval(() => {
    void sendWindows(false);
  }, options.intervalMs ?? DEFAULT_USAGE_INTERVAL_MS);
  // Counting must never keep the host's process alive.
  timer.unref?.();

  function record(name: string, error: boolean): void {
    if (closed) return;
    try {
      const start = Math.floor(now() / 60_000) * 60_000;
      let tools = windows.get(start);
      if (!tools) {
        tools = new Map();
        windows.set(start, tools);
        while (windows.size > MAX_PENDING_WINDOWS) {
          const oldest = Math.min(...windows.keys());
          windows.delete(oldest);
          dirty.delete(oldest);
        }
      }
      dirty.add(start);
      let key = name.slice(0, NAME_MAX) || OTHER;
      if (!tools.has(key) && tools.size >= USAGE_MAX_TOOLS - 1) key = OTHER;
      const usage = tools.get(key) ?? { calls: 0, errors: 0 };
      usage.calls += 1;
      if (error) usage.errors += 1;
      tools.set(key, usage);
    } catch {
      // Counting is a guest in the host's call path.
    }
  }

  /** Windows go one at a time, oldest first; sends never overlap, so none is lost or doubled. */
  function sendWindows(includeCurrent: boolean): Promise<void> {
    sending = sending.then(async () => {
      if (stopped) return;
      const current = Math.floor(now() / 60_000) * 60_000;
      const due = [...windows.keys()]
        .filter((start) => dirty.has(start) && (includeCurrent || start < current))
        .sort((a, b) => a - b);
      for (const start of due) {
        const tools = windows.get(start);
        if (!tools || tools.size === 0) continue;
        const snapshot = Object.fromEntries([...tools].map(([k, v]) => [k, { ...v }]));
        let result: UsageResult;
        try {
          result = await options.send({
            window_start: wireTime(start),
            instance,
            ...(options.serverVersion ? { server_version: options.serverVersion } : {}),
            tools: snapshot,
          });
        } catch {
          // A send that throws is kept for the next attempt, like one Debrief refused.
          return;
        }
        if (result.ok) {
          // Unless counted into again, a window is not sent twice; the current one keeps
          // counting after a flush, and its next send replaces this one.
          if (tools.size === Object.keys(snapshot).length && sameCounts(tools, snapshot)) {
            dirty.delete(start);
          }
          if (start < current || closed) windows.delete(start);
          continue;
        }
        try {
          options.onError?.(result);
        } catch {
          // The host's callback must not break counting.
        }
        // A server without the endpoint, or a refused key, will not change its mind in a minute.
        const status = result.error.status;
        if (status === 404 || status === 401 || status === 403) {
          stopped = true;
          windows.clear();
          dirty.clear();
        }
        return;
      }
    });
    // One failed round must not stop the rounds after it.
    sending = sending.catch(() => {});
    return sending;
  }

  return {
    record,
    flush: () => sendWindows(true),
    async close() {
      if (closed) return sending;
      closed = true;
      clearInterval(timer);
      await sendWindows(true);
    },
  };
}

function sameCounts(tools: Map<string, ToolUsage>, sent: Record<string, ToolUsage>): boolean {
  for (const [name, usage] of tools) {
    const was = sent[name];
    if (!was || was.calls !== usage.calls || was.errors !== usage.errors) return false;
  }
  return true;
}

function wireTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

function randomInstance(): string {
  return globalThis.crypto.randomUUID().replaceAll('-', '');
}
