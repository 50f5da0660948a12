import { ProblemDetails } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { call } from '../support/http.js';

function minute(minutesAgo = 0): string {
  const ms = Math.floor(Date.now() / 60_000) * 60_000 - minutesAgo * 60_000;
  return new Date(ms).toISOString();
}

/** What POST /v1/usage refuses, each with a problem an agent or a developer can act on. */
describe('POST /v1/usage refusals', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', {
      TRUST_PROXY: 'true',
      MAX_TOOL_NAMES_PER_PROJECT: '3',
      INGEST_RATE_PER_ADDRESS: '1',
      INGEST_BURST_PER_ADDRESS: '3',
    });
  });
  afterAll(() => server.close());

  const send = (body: unknown, address = '192.0.2.1') =>
    call(`${server.url}/v1/usage`, { body, headers: { 'x-forwarded-for': address } });

  it('checks the key first', async () => {
    const missing = await send({ window_start: 'nonsense', tools: 3 });
    expect(missing.status).toBe(401);
    expect(ProblemDetails.parse(missing.body).code).toBe('missing_ingest_key');
    const unknown = await send({
      ingest_key: `wk_${'0'.repeat(32)}`,
      window_start: minute(),
      tools: {},
    });
    expect(unknown.status).toBe(401);
    expect(unknown.body.code).toBe('invalid_ingest_key');
  });

  it('refuses windows that are not a past UTC minute within 7 days, and counts out of bounds', async () => {
    const t = await server.tenant();
    let address = 0;
    const check = async (body: Record<string, unknown>, field: string, pattern: RegExp) => {
      const res = await send({ ingest_key: t.ingestKey, ...body }, `198.51.100.${++address}`);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      const problem = ProblemDetails.parse(res.body);
      expect(problem.code).toBe('validation_failed');
      expect(
        problem.errors?.some((e) => e.field.startsWith(field)),
        JSON.stringify(problem),
      ).toBe(true);
      expect(problem.detail).toMatch(pattern);
    };
    const tools = { t: { calls: 1, errors: 0 } };
    await check({ window_start: '2026-11-28T14:05:30Z', tools }, 'window_start', /UTC minute/);
    await check({ window_start: minute(-10), tools }, 'window_start', /future/);
    await check({ window_start: minute(8 * 24 * 60), tools }, 'window_start', /7 days/);
    await check(
      { window_start: minute(), tools: { t: { calls: 1, errors: 2 } } },
      'tools.t.errors',
      /calls/,
    );
    await check(
      { window_start: minute(), tools: { t: { calls: 1e10, errors: 0 } } },
      'tools.t.calls',
      /1000000000/,
    );
    await check(
      { window_start: minute(), tools: { ['x'.repeat(201)]: { calls: 1, errors: 0 } } },
      'tools',
      /at most 200 characters/,
    );
    const many = Object.fromEntries(
      Array.from({ length: 201 }, (_, i) => [`tool_${i}`, { calls: 1, errors: 0 }]),
    );
    await check({ window_start: minute(), tools: many }, 'tools', /at most 200 tools/);
  });

  it('refuses a window that brings tool names past the project cap, and keeps accepting known ones', async () => {
    const t = await server.tenant();
    const counts = (names: string[]) =>
      Object.fromEntries(names.map((name) => [name, { calls: 1, errors: 0 }]));
    const first = await send(
      { ingest_key: t.ingestKey, window_start: minute(3), tools: counts(['a', 'b']) },
      '198.51.100.200',
    );
    expect(first.status).toBe(200);
    const over = await send(
      { ingest_key: t.ingestKey, window_start: minute(2), tools: counts(['a', 'c', 'd']) },
      '198.51.100.201',
    );
    expect(over.status).toBe(400);
    expect(ProblemDetails.parse(over.body).code).toBe('too_many_tool_names');
    expect(over.body.detail).toMatch(/"c", "d"/);
    const known = await send(
      { ingest_key: t.ingestKey, window_start: minute(2), tools: counts(['a', 'b', 'c']) },
      '198.51.100.202',
    );
    expect(known.status).toBe(200);
  });

  it('is rate-limited per address like reports: 429 rate_limited, nothing stored', async () => {
    const t = await server.tenant();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await send(
        { ingest_key: t.ingestKey, window_start: minute(i), tools: { t: { calls: 1, errors: 0 } } },
        '203.0.113.50',
      );
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.body.code).toBe('rate_limited');
        expect(res.headers.get('retry-after')).not.toBeNull();
      }
    }
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
    const stored = await server.ctx.db
      .selectFrom('tool_usage_windows')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('project_id', '=', t.projectId)
      .executeTakeFirstOrThrow();
    expect(Number(stored.n)).toBe(statuses.filter((s) => s === 200).length);
  });
});
