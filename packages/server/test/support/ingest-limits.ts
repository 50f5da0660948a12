import type { TestServer } from '../../../../test/harness/test-server.js';
import { call, type HttpResult } from './http.js';

/** A report as `address` sends it: the test server trusts X-Forwarded-For (TRUST_PROXY=true). */
export function submitFrom(
  server: TestServer,
  ingestKey: string,
  address: string,
  details = 'rate limit test',
): Promise<HttpResult<any>> {
  return call(`${server.url}/v1/reports`, {
    body: { ingest_key: ingestKey, outcome: 'success', details },
    headers: { 'x-forwarded-for': address },
  });
}

/**
 * Reports stored for the project and the account's usage counter. No flush() first: a read of
 * `reports` waits for the writer by itself (db/routed-dialect.ts).
 */
export async function storedOf(server: TestServer, projectId: string, accountId: string) {
  const reports = await server.ctx.db
    .selectFrom('reports')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  const usage = await server.ctx.db
    .selectFrom('usage_counters')
    .select((eb) => eb.fn.sum<number | string>('count').as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return { reports: Number(reports.n), usage: Number(usage.n ?? 0) };
}

export function statuses(results: HttpResult[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of results) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}
