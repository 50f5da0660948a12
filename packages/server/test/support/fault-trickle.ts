import { ReportList } from '@debrief/protocol';
import { bearer, call } from './http.js';

/** One answer of a trickle: its status (0 when the connection failed), id and Retry-After. */
export interface TrickleAnswer {
  status: number;
  id: string | null;
  retryAfter: string | null;
  code: string | null;
  at: number;
}

export interface Trickle {
  answers: TrickleAnswer[];
  /** Resolves once `n` answers with `status` came after `since` (a Date.now()), or rejects. */
  waitFor(status: number, n: number, since: number, ms: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A trickle of submits, one at a time, every `everyMs`, until stopped (bounded: at most
 * `maxCount`): the load under which the database-fault tests play their faults.
 */
export function startTrickle(
  url: string,
  ingestKey: string,
  { everyMs = 25, maxCount = 3000 }: { everyMs?: number; maxCount?: number } = {},
): Trickle {
  const answers: TrickleAnswer[] = [];
  let stopped = false;
  const running = (async () => {
    for (let i = 0; !stopped && i < maxCount; i++) {
      try {
        const res = await call<{ id?: string; code?: string }>(`${url}/v1/reports`, {
          body: { ingest_key: ingestKey, outcome: 'success', details: `trickle ${i}` },
        });
        answers.push({
          status: res.status,
          id: res.status === 201 ? (res.body.id ?? null) : null,
          retryAfter: res.headers.get('retry-after'),
          code: res.body?.code ?? null,
          at: Date.now(),
        });
      } catch {
        answers.push({ status: 0, id: null, retryAfter: null, code: null, at: Date.now() });
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    answers,
    async waitFor(status, n, since, ms) {
      const deadline = Date.now() + ms;
      for (;;) {
        const seen = answers.filter((a) => a.status === status && a.at >= since).length;
        if (seen >= n) return;
        if (Date.now() > deadline) {
          const statuses = answers.filter((a) => a.at >= since).map((a) => a.status);
          throw new Error(
            `wanted ${n} × ${status} within ${ms} ms, got [${statuses.slice(-40).join(', ')}]`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async stop() {
      stopped = true;
      await running;
    },
  };
}

/** Every report id of a project, through the read API. */
export async function storedIds(url: string, projectId: string, apiKey: string) {
  const found = new Set<string>();
  for (let page = 1; ; page++) {
    const res = await call(`${url}/v1/dashboard/${projectId}/reports?limit=100&page=${page}`, {
      headers: bearer(apiKey),
    });
    if (res.status !== 200) throw new Error(`reading reports: ${res.status}`);
    const list = ReportList.parse(res.body);
    for (const report of list.reports) found.add(report.id);
    if (list.reports.length < 100) return found;
  }
}
