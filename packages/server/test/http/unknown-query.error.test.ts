import { ProblemDetails } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../../test/harness/test-server.js';
import { bearer, call, type HttpResult } from '../support/http.js';
import { type Browser, sessionFor } from '../support/session-client.js';

const REPORTS_PARAMS = [
  'outcome',
  'tool_name',
  'source',
  'from',
  'to',
  'issue_id',
  'page',
  'limit',
];
const STATS_PARAMS = ['from', 'to', 'tool_name', 'source'];

/**
 * An unknown query parameter is refused by name on every endpoint that reads one, so that a
 * client expecting a filter the server does not have never gets unfiltered data. The check
 * runs before any storage is touched: SQLite only.
 */
describe('unknown query parameters', () => {
  let server: TestServer;
  let t: Tenant;
  let user: Browser;

  /** Every endpoint that takes a query, with the parameters it accepts ([] = none). */
  const endpoints = (): Array<[string, (query: string) => Promise<HttpResult<any>>, string[]]> => [
    [
      'reports (API key)',
      (q) =>
        call(`${server.url}/v1/dashboard/${t.projectId}/reports${q}`, {
          headers: bearer(t.apiKey),
        }),
      REPORTS_PARAMS,
    ],
    [
      'reports (session)',
      (q) => user.call(`/v1/dashboard/${t.projectId}/reports${q}`),
      REPORTS_PARAMS,
    ],
    [
      'events (API key)',
      (q) =>
        call(`${server.url}/v1/dashboard/${t.projectId}/events${q}`, { headers: bearer(t.apiKey) }),
      [],
    ],
    ['events (session)', (q) => user.call(`/v1/dashboard/${t.projectId}/events${q}`), []],
    [
      'timeseries',
      (q) => user.call(`/v1/console/projects/${t.projectId}/timeseries${q}`),
      STATS_PARAMS,
    ],
    ['tools', (q) => user.call(`/v1/console/projects/${t.projectId}/tools${q}`), STATS_PARAMS],
    [
      'issues',
      (q) =>
        call(`${server.url}/v1/dashboard/${t.projectId}/issues${q}`, { headers: bearer(t.apiKey) }),
      ['status', 'outcome', 'kind', 'tool_name', 'q', 'sort', 'page', 'limit'],
    ],
    [
      'integrate',
      (q) => user.call(`/v1/console/projects/${t.projectId}/integrate${q}`),
      ['source'],
    ],
  ];

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    t = await server.tenant();
    user = await sessionFor(server, t.accountId);
  });
  afterAll(() => server.close());

  it('refuses ?bogus=1 with 400 invalid_query naming it and listing the accepted ones', async () => {
    for (const [name, get, accepted] of endpoints()) {
      const res = await get('?bogus=1');
      expect(res.status, name).toBe(400);
      expect(res.headers.get('content-type'), name).toMatch(/^application\/problem\+json/);
      const problem = ProblemDetails.parse(res.body);
      expect(problem.code, name).toBe('invalid_query');
      expect(problem.errors, name).toEqual([
        { field: 'bogus', message: expect.stringContaining('is not a query parameter') },
      ]);
      expect(problem.detail, name).toContain('Unknown query parameter bogus');
      if (accepted.length === 0)
        expect(problem.detail, name).toContain('takes no query parameters');
      else expect(problem.detail, name).toContain(`accepts only ${accepted.join(', ')}`);
    }
  });

  it('names every unknown parameter, and still reports the invalid known ones', async () => {
    const [, reports] = endpoints()[0]!;
    const res = await reports('?q=x&order=asc&page=0');
    expect(res.status).toBe(400);
    const problem = ProblemDetails.parse(res.body);
    expect(problem.errors?.map((e) => e.field)).toEqual(['q', 'order', 'page']);
    expect(problem.detail).toMatch(
      /^Unknown query parameters q, order: this endpoint accepts only outcome, tool_name, source, from, to, issue_id, page, limit, cursor\. page must be/,
    );
    const repeated = await reports('?bogus=1&bogus=2');
    expect(ProblemDetails.parse(repeated.body).errors?.map((e) => e.field)).toEqual(['bogus']);
  });

  it('still answers the accepted parameters, and no query at all', async () => {
    for (const [name, get, accepted] of endpoints()) {
      if (name.startsWith('events')) continue; // an accepted stream stays open
      expect((await get('')).status, name).toBe(200);
      const known = accepted.includes('source') ? '?source=claude' : '';
      expect((await get(known)).status, name).toBe(200);
    }
  });
});
