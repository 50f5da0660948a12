import { expect } from 'vitest';
import type { Tenant, TestServer } from '../../../../test/harness/test-server.js';
import { createApiKey } from '../../src/keys/key.service.js';
import { bearer, call } from './http.js';

/** Helpers of the issue tests: submit, wait for grouping, triage keys. */

export async function submit(
  server: TestServer,
  t: Tenant,
  body: {
    outcome: string;
    details: string;
    tool_name?: string;
    source?: string;
    metadata?: object;
  },
): Promise<string> {
  const res = await call(`${server.url}/v1/reports`, {
    body: { ingest_key: t.ingestKey, ...body },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/**
 * The issue of a report, once grouped (polls the reports list). `ms` bounds a hang, not the
 * grouper's speed: the lag target is measured by `npm run bench`.
 */
export async function issueOf(
  server: TestServer,
  t: Tenant,
  reportId: string,
  ms = 15_000,
): Promise<string> {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await call(`${server.url}/v1/dashboard/${t.projectId}/reports?limit=100`, {
      headers: bearer(t.apiKey),
    });
    const report = (res.body.reports as { id: string; issue_id: string | null }[]).find(
      (r) => r.id === reportId,
    );
    if (report?.issue_id) return report.issue_id;
    if (Date.now() > deadline) throw new Error(`report ${reportId} not grouped within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** An API key of the tenant's account with the `triage` scope. */
export async function triageKey(server: TestServer, t: Tenant): Promise<string> {
  return (await createApiKey(server.ctx.db, t.accountId, 'triage', ['read', 'triage'])).key;
}

export function issuesUrl(server: TestServer, t: Tenant, rest = ''): string {
  return `${server.url}/v1/dashboard/${t.projectId}/issues${rest}`;
}
