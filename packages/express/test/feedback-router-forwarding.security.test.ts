import { createReader } from '@debrief/client';
import { CreatedForwardingSecret, ProblemDetails } from '@debrief/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../test/harness/test-server.js';
import { sessionFor } from '../../server/test/support/session-client.js';
import { EXPRESS_VERSIONS, type HostApp, post, startHostApp } from './host-app.js';

/**
 * A host app forwarding for many agents through the router, against a real Debrief with the
 * production defaults of the per-address limits (10 a second, bursts of 60, a daily share of
 * 10 % of the month). The key bucket is raised, as an owner expecting a host's traffic would.
 * Agents reach the host through its proxy, which names them in X-Forwarded-For.
 */
const LIMITS = {
  INGEST_RATE_PER_KEY: '100000',
  INGEST_BURST_PER_KEY: '100000',
  INGEST_RATE_PER_ADDRESS: '10',
  INGEST_BURST_PER_ADDRESS: '60',
  ADDRESS_DAILY_SHARE: '10',
};

type Answer = Awaited<ReturnType<typeof post>>;

function statuses(answers: Answer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

describe.each(EXPRESS_VERSIONS)('a host forwarding for many agents in %s', (_v, express) => {
  let debrief: TestServer;
  let host: HostApp | undefined;
  beforeAll(async () => {
    debrief = await startTestServer('sqlite', LIMITS);
  });
  afterAll(() => debrief.close());
  afterEach(async () => {
    await host?.router.close();
    await host?.close();
    host = undefined;
  });

  /** A report from the agent at `agent`, through the host. */
  const feedback = (url: string, agent: string, i: number) =>
    post(`${url}/feedback`, JSON.stringify({ outcome: 'success', details: `forwarded #${i}` }), {
      'content-type': 'application/json',
      'x-forwarded-for': agent,
    });

  const storedOf = async (t: Tenant) =>
    (
      await createReader({ apiKey: t.apiKey, baseUrl: debrief.url }).getReports(t.projectId, {
        limit: 1,
      })
    ).pagination.total;

  /** A forwarding secret, made by the project's owner in the dashboard (Keys). */
  async function secretFor(t: Tenant): Promise<string> {
    const owner = await sessionFor(debrief, t.accountId);
    const res = await owner.call(`/v1/console/projects/${t.projectId}/forwarding-secrets`, {
      body: { name: 'docs site' },
    });
    expect(res.status).toBe(201);
    return CreatedForwardingSecret.parse(res.body).secret;
  }

  it('stores every report of a trusted host at 100 reports/s for 50 agents', async () => {
    const t = await debrief.tenant();
    const secret = await secretFor(t);
    host = await startHostApp(express, {
      ingestKey: t.ingestKey,
      baseUrl: debrief.url,
      json: true,
      trustProxy: true,
      countRequests: false,
      forwardingSecret: secret,
    });
    const url = host.url;
    // 100 reports at 100 a second: ten every 100 ms, each ten sent at once. Through one
    // address they would be refused past its burst of 60; per agent, two each.
    const answers: Answer[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const started = Date.now();
      answers.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, (_, j) => {
            const i = batch * 10 + j;
            return feedback(url, `198.51.100.${i % 50}`, i);
          }),
        )),
      );
      await new Promise((r) => setTimeout(r, Math.max(0, 100 - (Date.now() - started))));
    }
    expect(statuses(answers)).toEqual({ 201: 100 });
    expect(await storedOf(t)).toBe(100);
    // The secret stays between the host and Debrief: never in an answer or a stored report.
    expect(JSON.stringify(answers.map((a) => a.body))).not.toContain(secret);
    const reports = await createReader({ apiKey: t.apiKey, baseUrl: debrief.url }).getReports(
      t.projectId,
      { limit: 100 },
    );
    expect(JSON.stringify(reports)).not.toContain('wf_');
  });

  it('tells the agents the host is misconfigured when its secret is not the project’s', async () => {
    const t = await debrief.tenant();
    const errors: string[] = [];
    host = await startHostApp(express, {
      ingestKey: t.ingestKey,
      baseUrl: debrief.url,
      json: true,
      trustProxy: true,
      countRequests: false,
      forwardingSecret: `wf_${'0'.repeat(48)}`,
      onError: (r) => errors.push(r.error.code),
    });
    const res = await feedback(host.url, '198.51.100.1', 0);
    expect(res.status).toBe(502);
    expect(res.body.detail).toMatch(/misconfigured \(invalid_forwarding_secret\)/);
    expect(errors).toEqual(['invalid_forwarding_secret']);
    expect(await storedOf(t)).toBe(0);
  });

  it('refuses a flood through an untrusted host, whatever its agents claim to be', async () => {
    const t = await debrief.tenant();
    host = await startHostApp(express, {
      ingestKey: t.ingestKey,
      baseUrl: debrief.url,
      json: true,
      trustProxy: true,
      countRequests: false,
      onError: () => {},
    });
    const url = host.url;
    // Without the secret the router names no agent: the host's one address takes it all.
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => feedback(url, `198.51.100.${i % 50}`, i)),
    );
    const counts = statuses(answers);
    expect(Object.keys(counts).sort()).toEqual(['201', '429']);
    expect(counts[201]).toBeGreaterThanOrEqual(60);
    expect(counts[201]).toBeLessThan(200);
    const refused = answers.find((a) => a.status === 429)!;
    expect(ProblemDetails.parse(refused.body).code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await storedOf(t)).toBe(counts[201]);
  });
});
