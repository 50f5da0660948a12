import { ProblemDetails, ProjectList, ReportList, SubmitReportResponse } from '@debrief/protocol';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../../test/harness/test-server.js';
import { createApiKey } from '../../src/keys/key.service.js';
import { bearer, call, type HttpResult } from '../support/http.js';
import { seedIssue } from '../support/seed-issue.js';

// ajv-formats is CommonJS: its default export arrives wrapped under ESM interop.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: Ajv2020) => void;

type Dict = Record<string, any>;

/**
 * Checks real responses against the document the server publishes: the status must be
 * documented for the operation, the Content-Type must be one of its media types, and a JSON
 * body must validate against the media schema (components resolved as $defs).
 */
class Contract {
  private ajv = new Ajv2020({ strict: false, allErrors: true });
  readonly covered = new Set<string>();
  constructor(readonly doc: Dict) {
    addFormats(this.ajv);
  }

  schemaFor(schema: Dict) {
    const text = JSON.stringify({ ...schema, $defs: this.doc.components.schemas });
    return this.ajv.compile(JSON.parse(text.replaceAll('#/components/schemas/', '#/$defs/')));
  }

  check(res: HttpResult<any>, path: string, method: string): HttpResult<any> {
    const operation = this.doc.paths[path]?.[method];
    expect(operation, `${method} ${path} is documented`).toBeDefined();
    const response = operation.responses[String(res.status)];
    expect(response, `${method} ${path} documents status ${res.status}`).toBeDefined();
    if (res.status === 204) {
      expect(Object.keys(response.content ?? {}), `${method} ${path} 204 has no body`).toEqual([]);
      this.covered.add(`${method} ${path} ${res.status}`);
      return res;
    }
    const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
    const media = response.content?.[type];
    // A 204 has no body, so nothing to document but its status.
    if (res.status === 204) expect(response.content).toBeUndefined();
    else expect(media, `${method} ${path} ${res.status} documents ${type}`).toBeDefined();
    if (type.endsWith('json') && typeof res.body === 'object') {
      const validate = this.schemaFor(media.schema);
      expect(validate(res.body), JSON.stringify(validate.errors)).toBe(true);
    }
    for (const [name, header] of Object.entries<Dict>(response.headers ?? {})) {
      if (!header.required) continue;
      expect(res.headers.get(name), `${method} ${path} ${res.status} sends ${name}`).not.toBeNull();
    }
    this.covered.add(`${method} ${path} ${res.status}`);
    return res;
  }
}

describe.each(DIALECTS)('responses match /openapi.json on %s', (dialect) => {
  let server: TestServer;
  let contract: Contract;
  let t: Tenant;
  const REPORTS = '/v1/dashboard/{projectId}/reports';
  const EVENTS = '/v1/dashboard/{projectId}/events';

  beforeAll(async () => {
    server = await startTestServer(dialect);
    contract = new Contract((await call(`${server.url}/openapi.json`)).body);
    t = await server.tenant();
  });
  afterAll(() => server.close());

  const submit = (body: unknown, raw?: string) =>
    call(`${server.url}/v1/reports`, raw === undefined ? { body } : { raw });

  it('POST /v1/reports: 201 and every error the agent can meet', async () => {
    const ok = contract.check(
      await submit({
        ingest_key: t.ingestKey,
        outcome: 'success',
        details: 'worked',
        tool_name: 'x',
        metadata: { model: 'm', n: 1, b: true },
      }),
      '/v1/reports',
      'post',
    );
    expect(ok.status).toBe(201);
    SubmitReportResponse.parse(ok.body);
    const cases: [unknown, string | undefined, string][] = [
      [undefined, '{"ingest_key":', 'invalid_json'],
      [[1, 2], undefined, 'invalid_body'],
      [undefined, '', 'invalid_body'],
      [{ outcome: 'success', details: 'x' }, undefined, 'missing_ingest_key'],
      [
        { ingest_key: `wk_${'0'.repeat(32)}`, outcome: 'success', details: 'x' },
        undefined,
        'invalid_ingest_key',
      ],
      [
        { ingest_key: t.apiKey, outcome: 'success', details: 'x' },
        undefined,
        'secret_key_not_allowed',
      ],
      [{ ingest_key: t.ingestKey, outcome: 'great', details: ' ' }, undefined, 'validation_failed'],
      [
        { ingest_key: t.ingestKey, outcome: 'success', details: 'x'.repeat(70_000) },
        undefined,
        'payload_too_large',
      ],
    ];
    for (const [body, raw, code] of cases) {
      const res = contract.check(await submit(body, raw), '/v1/reports', 'post');
      expect(ProblemDetails.parse(res.body).code).toBe(code);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    const full = await server.tenant({ monthlyQuota: 0 });
    const quota = contract.check(
      await submit({ ingest_key: full.ingestKey, outcome: 'success', details: 'x' }),
      '/v1/reports',
      'post',
    );
    expect(quota.body.code).toBe('quota_exceeded');
    expect(Number(quota.headers.get('retry-after'))).toBeGreaterThan(0);

    // A project with a bucket of one report per address: the second is rate_limited.
    const tight = await server.tenant();
    await server.ctx.db
      .updateTable('projects')
      .set({ address_rate: 1, address_burst: 1 })
      .where('id', '=', tight.projectId)
      .execute();
    server.ctx.ingestGate.forget(tight.projectId);
    const body = { ingest_key: tight.ingestKey, outcome: 'success', details: 'x' };
    expect((await submit(body)).status).toBe(201);
    const limited = contract.check(await submit(body), '/v1/reports', 'post');
    expect(limited.body.code).toBe('rate_limited');
    const documented = contract.doc.paths['/v1/reports'].post.responses['429'].headers;
    for (const name of Object.keys(documented)) expect(limited.headers.get(name)).not.toBeNull();
  });

  it('GET /v1/projects: 200 and its authentication errors', async () => {
    const ok = contract.check(
      await call(`${server.url}/v1/projects`, { headers: bearer(t.apiKey) }),
      '/v1/projects',
      'get',
    );
    expect(ProjectList.parse(ok.body).map((p) => p.id)).toContain(t.projectId);
    for (const [headers, code] of [
      [{}, 'missing_api_key'],
      [bearer(t.ingestKey), 'ingest_key_cannot_read'],
      [bearer(`wk_sk_${'A'.repeat(38)}`), 'invalid_api_key'],
      [{ cookie: `debrief_session=${'x'.repeat(43)}` }, 'not_authenticated'],
    ] as const) {
      const res = contract.check(
        await call(`${server.url}/v1/projects`, { headers }),
        '/v1/projects',
        'get',
      );
      expect(res.body.code).toBe(code);
    }
  });

  it('GET /v1/dashboard/{projectId}/reports: 200 with every filter, 400 and 404', async () => {
    const url = `${server.url}/v1/dashboard/${t.projectId}/reports`;
    const filters =
      'outcome=success&tool_name=x&source=s&from=2020-01-01&to=2100-01-01T00:00:00Z&page=1&limit=500';
    const ok = contract.check(
      await call(`${url}?${filters}`, { headers: bearer(t.apiKey) }),
      REPORTS,
      'get',
    );
    expect(ReportList.parse(ok.body).pagination.limit).toBe(100);
    const all = contract.check(await call(url, { headers: bearer(t.apiKey) }), REPORTS, 'get');
    expect(ReportList.parse(all.body).reports.length).toBeGreaterThan(0);
    const bad = contract.check(
      await call(`${url}?page=0&outcome=nope&from=yesterday`, { headers: bearer(t.apiKey) }),
      REPORTS,
      'get',
    );
    expect(bad.body.code).toBe('invalid_query');
    const other = await server.tenant();
    for (const id of [other.projectId, 'nope']) {
      const res = contract.check(
        await call(`${server.url}/v1/dashboard/${id}/reports`, { headers: bearer(t.apiKey) }),
        REPORTS,
        'get',
      );
      expect(res.body.code).toBe('project_not_found');
    }
    contract.check(await call(url), REPORTS, 'get');
  });

  it('GET /v1/dashboard/{projectId}/events: an event stream, and 404 for a foreign project', async () => {
    const abort = new AbortController();
    const res = await fetch(`${server.url}/v1/dashboard/${t.projectId}/events`, {
      headers: bearer(t.apiKey),
      signal: abort.signal,
    });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    contract.check({ status: res.status, headers: res.headers, body: first }, EVENTS, 'get');
    expect(first).toContain('event: ready');
    const unknown = contract.check(
      await call(`${server.url}/v1/dashboard/${t.projectId}/events?bogus=1`, {
        headers: bearer(t.apiKey),
      }),
      EVENTS,
      'get',
    );
    expect(unknown.body.code).toBe('invalid_query');
    const other = await server.tenant();
    contract.check(
      await call(`${server.url}/v1/dashboard/${other.projectId}/events`, {
        headers: bearer(t.apiKey),
      }),
      EVENTS,
      'get',
    );
  });

  it('health probes and agent resources answer with their documented types', async () => {
    for (const path of [
      '/healthz',
      '/readyz',
      '/skill.md',
      '/openapi.json',
      '/docs',
      '/llms.txt',
    ]) {
      const res = contract.check(await call(`${server.url}${path}`), path, 'get');
      expect(res.status).toBe(200);
    }
    // The front door, as an agent asks for it (the app shell needs a dashboard build).
    for (const accept of ['application/json', 'text/markdown', 'text/plain']) {
      const res = contract.check(await call(`${server.url}/`, { headers: { accept } }), '/', 'get');
      expect(res.status).toBe(200);
    }
  });

  it('POST /v1/usage and GET /v1/dashboard/{projectId}/tools: 200 and their errors', async () => {
    const USAGE = '/v1/usage';
    const TOOLS = '/v1/dashboard/{projectId}/tools';
    const window = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 60_000).toISOString();
    const usage = (body: unknown, raw?: string) =>
      call(`${server.url}/v1/usage`, raw === undefined ? { body } : { raw });
    const ok = contract.check(
      await usage({
        ingest_key: t.ingestKey,
        window_start: window,
        instance: 'contract',
        server_version: '1.0.0',
        tools: { x: { calls: 10, errors: 1 } },
      }),
      USAGE,
      'post',
    );
    expect(ok.status).toBe(200);
    const cases: [unknown, string | undefined, string][] = [
      [undefined, '{"ingest_key":', 'invalid_json'],
      [[1], undefined, 'invalid_body'],
      [{ window_start: window, tools: {} }, undefined, 'missing_ingest_key'],
      [
        { ingest_key: `wk_${'0'.repeat(32)}`, window_start: window, tools: {} },
        undefined,
        'invalid_ingest_key',
      ],
      [
        { ingest_key: t.apiKey, window_start: window, tools: {} },
        undefined,
        'secret_key_not_allowed',
      ],
      [
        { ingest_key: t.ingestKey, window_start: 'yesterday', tools: {} },
        undefined,
        'validation_failed',
      ],
    ];
    for (const [body, raw, code] of cases) {
      const res = contract.check(await usage(body, raw), USAGE, 'post');
      expect(ProblemDetails.parse(res.body).code).toBe(code);
    }
    const forwarded = contract.check(
      await call(`${server.url}/v1/usage`, {
        body: { ingest_key: t.ingestKey, window_start: window, tools: {} },
        headers: {
          'debrief-forwarding-secret': `wf_${'0'.repeat(48)}`,
          'debrief-forwarded-for': '198.51.100.1',
        },
      }),
      USAGE,
      'post',
    );
    expect(forwarded.body.code).toBe('invalid_forwarding_secret');

    const tools = contract.check(
      await call(`${server.url}/v1/dashboard/${t.projectId}/tools?tool_name=x&by=server_version`, {
        headers: bearer(t.apiKey),
      }),
      TOOLS,
      'get',
    );
    expect(tools.body.tools[0]).toMatchObject({ tool_name: 'x', calls: 10, error_rate: 0.1 });
    const bad = contract.check(
      await call(`${server.url}/v1/dashboard/${t.projectId}/tools?by=server_version`, {
        headers: bearer(t.apiKey),
      }),
      TOOLS,
      'get',
    );
    expect(bad.body.code).toBe('invalid_query');
    const foreign = await server.tenant();
    const missing = contract.check(
      await call(`${server.url}/v1/dashboard/${t.projectId}/tools`, {
        headers: bearer(foreign.apiKey),
      }),
      TOOLS,
      'get',
    );
    expect(missing.body.code).toBe('project_not_found');
    const anonymous = contract.check(
      await call(`${server.url}/v1/dashboard/${t.projectId}/tools`),
      TOOLS,
      'get',
    );
    expect(anonymous.body.code).toBe('missing_api_key');
  });

  it('the issues API: every operation, 200 and its errors', async () => {
    const key = (await createApiKey(server.ctx.db, t.accountId, 'triage', ['read', 'triage'])).key;
    const base = `${server.url}/v1/dashboard/${t.projectId}`;
    const LIST = '/v1/dashboard/{projectId}/issues';
    const ONE = '/v1/dashboard/{projectId}/issues/{issueId}';
    const MERGE = '/v1/dashboard/{projectId}/issues/{issueId}/merge';
    const ACTIVITY = '/v1/dashboard/{projectId}/issues/{issueId}/activity';
    const MOVE = '/v1/dashboard/{projectId}/reports/{reportId}/move';
    const ids: string[] = [];
    // Two unrelated problems of one tool: the grouping engine keeps them apart.
    for (const details of [
      'Page 2 of the results repeats page 1: the pagination cursor is ignored',
      'Permission denied (403) when the token lacks the write scope for this board',
    ]) {
      const res = await submit({
        ingest_key: t.ingestKey,
        outcome: 'failure',
        details,
        tool_name: 'c',
      });
      ids.push(res.body.id);
    }
    let issues: string[] = [];
    for (let i = 0; i < 60 && issues.length < 2; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const res = await call(`${base}/issues?tool_name=c`, { headers: bearer(key) });
      issues = res.body.issues.map((issue: { id: string }) => issue.id);
    }
    expect(issues).toHaveLength(2);
    contract.check(
      await call(`${base}/issues?status=all&sort=count&outcome=failure&page=1&limit=5`, {
        headers: bearer(t.apiKey),
      }),
      LIST,
      'get',
    );
    contract.check(await call(`${base}/issues?sort=worst`, { headers: bearer(key) }), LIST, 'get');
    contract.check(
      await call(`${base}/issues?kind=problem&q=page&status=all`, { headers: bearer(key) }),
      LIST,
      'get',
    );
    contract.check(await call(`${base}/issues/${issues[0]}`, { headers: bearer(key) }), ONE, 'get');
    contract.check(
      await call(`${base}/issues/${'0'.repeat(32)}`, { headers: bearer(key) }),
      ONE,
      'get',
    );
    const patch = (body: unknown, apiKey = key) =>
      call(`${base}/issues/${issues[0]}`, { method: 'PATCH', body, headers: bearer(apiKey) });
    contract.check(await patch({ status: 'resolved', note: 'n' }), ONE, 'patch');
    contract.check(await patch({ title: 'Renamed' }), ONE, 'patch');
    contract.check(await patch({ title: '' }), ONE, 'patch');
    contract.check(
      await call(`${base}/issues/${issues[0]}/activity`, { headers: bearer(key) }),
      ACTIVITY,
      'get',
    );
    contract.check(
      await call(`${base}/issues/${'0'.repeat(32)}/activity`, { headers: bearer(key) }),
      ACTIVITY,
      'get',
    );
    contract.check(await patch({ status: 'nope' }), ONE, 'patch');
    const readOnly = contract.check(await patch({ status: 'open' }, t.apiKey), ONE, 'patch');
    expect(readOnly.body.code).toBe('missing_scope');
    contract.check(
      await call(`${base}/reports/${ids[1]}/move`, {
        body: { new_issue: true },
        headers: bearer(key),
      }),
      MOVE,
      'post',
    );
    contract.check(
      await call(`${base}/reports/${ids[1]}/move`, { body: {}, headers: bearer(key) }),
      MOVE,
      'post',
    );
    const current = await call(`${base}/issues?tool_name=c`, { headers: bearer(key) });
    const [from, into] = current.body.issues.map((issue: { id: string }) => issue.id);
    contract.check(
      await call(`${base}/issues/${from}/merge`, { body: { into }, headers: bearer(key) }),
      MERGE,
      'post',
    );
    contract.check(
      await call(`${base}/issues/${into}/merge`, { body: { into }, headers: bearer(key) }),
      MERGE,
      'post',
    );
  });

  it('grouping control: similar issues, rejections, rules, merges and unmerge', async () => {
    const key = (await createApiKey(server.ctx.db, t.accountId, 'triage', ['read', 'triage'])).key;
    const base = `${server.url}/v1/dashboard/${t.projectId}`;
    const ISSUE = '/v1/dashboard/{projectId}/issues/{issueId}';
    const RULES = '/v1/dashboard/{projectId}/grouping-rules';
    const RULE = '/v1/dashboard/{projectId}/grouping-rules/{ruleId}';
    for (const details of [
      'Upload failed: the file size limit of 10 MB was exceeded for attachments',
      'Login rejected because the session cookie expired overnight',
    ]) {
      await submit({ ingest_key: t.ingestKey, outcome: 'failure', details, tool_name: 'gc' });
    }
    let issues: string[] = [];
    for (let i = 0; i < 60 && issues.length < 2; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const res = await call(`${base}/issues?tool_name=gc`, { headers: bearer(key) });
      issues = res.body.issues.map((issue: { id: string }) => issue.id);
    }
    const [a, b] = issues as [string, string];
    const get = (path: string) => call(`${base}${path}`, { headers: bearer(key) });
    const post = (path: string, body: unknown, apiKey = key) =>
      call(`${base}${path}`, { body, headers: bearer(apiKey) });
    contract.check(await get(`/issues/${a}/similar`), `${ISSUE}/similar`, 'get');
    contract.check(await get(`/issues/${'0'.repeat(32)}/similar`), `${ISSUE}/similar`, 'get');
    contract.check(
      await post(`/issues/${a}/similar/reject`, { issue_id: b }),
      `${ISSUE}/similar/reject`,
      'post',
    );
    contract.check(
      await post(`/issues/${a}/similar/reject`, { issue_id: a }),
      `${ISSUE}/similar/reject`,
      'post',
    );
    const rule = contract.check(
      await post('/grouping-rules', {
        type: 'route',
        name: 'uploads',
        pattern: 'size limit',
        tool_name: 'gc',
        issue_id: a,
      }),
      RULES,
      'post',
    );
    contract.check(
      await post('/grouping-rules', {
        type: 'route',
        name: 'bad',
        pattern: '(a+)+$',
        pattern_type: 'regex',
        issue_id: a,
      }),
      RULES,
      'post',
    );
    contract.check(await get('/grouping-rules'), RULES, 'get');
    const ruleUrl = `${base}/grouping-rules/${rule.body.id}`;
    contract.check(
      await call(ruleUrl, {
        method: 'PATCH',
        body: { name: 'uploads (gc)' },
        headers: bearer(key),
      }),
      RULE,
      'patch',
    );
    contract.check(
      await call(ruleUrl, { method: 'PATCH', body: { tools: ['x', 'y'] }, headers: bearer(key) }),
      RULE,
      'patch',
    );
    contract.check(await call(ruleUrl, { method: 'DELETE', headers: bearer(key) }), RULE, 'delete');
    contract.check(await call(ruleUrl, { method: 'DELETE', headers: bearer(key) }), RULE, 'delete');
    contract.check(await post(`/issues/${b}/merge`, { into: a }), `${ISSUE}/merge`, 'post');
    const merges = contract.check(await get(`/issues/${a}/merges`), `${ISSUE}/merges`, 'get');
    expect(merges.body.merged.map((m: { id: string }) => m.id)).toEqual([b]);
    contract.check(
      await post(`/issues/${a}/unmerge`, { issue_ids: ['f'.repeat(32)] }),
      `${ISSUE}/unmerge`,
      'post',
    );
    const split = contract.check(
      await post(`/issues/${a}/unmerge`, {}),
      `${ISSUE}/unmerge`,
      'post',
    );
    expect(split.body.restored.map((i: { id: string }) => i.id)).toEqual([b]);
  });

  it('the destinations API: every operation, its success and its errors', async () => {
    const admin = (await createApiKey(server.ctx.db, t.accountId, 'admin', ['read', 'admin'])).key;
    const base = `${server.url}/v1/dashboard/${t.projectId}/destinations`;
    const LIST = '/v1/dashboard/{projectId}/destinations';
    const ONE = '/v1/dashboard/{projectId}/destinations/{destinationId}';
    const TEST = '/v1/dashboard/{projectId}/destinations/{destinationId}/test';
    const LOG = '/v1/dashboard/{projectId}/destinations/{destinationId}/deliveries';
    const hook = { type: 'webhook', url: 'https://hooks.example.com/x', events: ['issue.created'] };
    const created = contract.check(
      await call(base, { body: hook, headers: bearer(admin) }),
      LIST,
      'post',
    );
    const id = created.body.id as string;
    contract.check(
      await call(base, { body: { ...hook, url: 'http://127.0.0.1/x' }, headers: bearer(admin) }),
      LIST,
      'post',
    );
    contract.check(await call(base, { body: hook, headers: bearer(t.apiKey) }), LIST, 'post');
    contract.check(await call(base, { headers: bearer(admin) }), LIST, 'get');
    contract.check(await call(`${base}/${id}`, { headers: bearer(admin) }), ONE, 'get');
    contract.check(await call(`${base}/${'0'.repeat(32)}`, { headers: bearer(admin) }), ONE, 'get');
    contract.check(
      await call(`${base}/${id}`, {
        method: 'PATCH',
        body: { paused: true },
        headers: bearer(admin),
      }),
      ONE,
      'patch',
    );
    contract.check(
      await call(`${base}/${id}`, { method: 'PATCH', body: {}, headers: bearer(admin) }),
      ONE,
      'patch',
    );
    // The example.com receiver is not reached from the test machine: the attempt fails, and says so.
    const tested = contract.check(
      await call(`${base}/${id}/test`, { body: {}, headers: bearer(admin) }),
      TEST,
      'post',
    );
    expect(tested.body.attempt).toBe(1);
    contract.check(await call(`${base}/${id}/deliveries`, { headers: bearer(admin) }), LOG, 'get');
    contract.check(
      await call(`${base}/${id}`, { method: 'DELETE', headers: bearer(admin) }),
      ONE,
      'delete',
    );
    contract.check(
      await call(`${base}/${id}`, { method: 'DELETE', headers: bearer(admin) }),
      ONE,
      'delete',
    );
  });

  it('the mutes API: list, mute and unmute an issue, with their errors', async () => {
    const key = (await createApiKey(server.ctx.db, t.accountId, 'triage', ['read', 'triage'])).key;
    const issueId = await seedIssue(server.ctx.db, t.projectId, { at: [new Date()] });
    const MUTES = '/v1/dashboard/{projectId}/issues/{issueId}/mutes';
    const ONE_MUTE = '/v1/dashboard/{projectId}/issues/{issueId}/mutes/{muteId}';
    const url = `${server.url}/v1/dashboard/${t.projectId}/issues/${issueId}/mutes`;
    const created = contract.check(
      await call(url, { body: { hours: 24, reports: 10 }, headers: bearer(key) }),
      MUTES,
      'post',
    );
    contract.check(await call(url, { body: { hours: 0 }, headers: bearer(key) }), MUTES, 'post');
    contract.check(
      await call(url, { body: { hours: 1 }, headers: bearer(t.apiKey) }),
      MUTES,
      'post',
    );
    contract.check(await call(url, { headers: bearer(t.apiKey) }), MUTES, 'get');
    const del = (id: string) => call(`${url}/${id}`, { method: 'DELETE', headers: bearer(key) });
    contract.check(await del(created.body.id), ONE_MUTE, 'delete');
    contract.check(await del(created.body.id), ONE_MUTE, 'delete');
  });

  it('the document refuses what the server refuses, and types what clients send', async () => {
    const doc = contract.doc;
    const submitBody = contract.schemaFor(
      doc.paths['/v1/reports'].post.requestBody.content['application/json'].schema,
    );
    const metadata = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i]));
    const tooManyKeys = { ingest_key: t.ingestKey, outcome: 'success', details: 'x', metadata };
    expect(submitBody(tooManyKeys)).toBe(false);
    expect((await submit(tooManyKeys)).body.code).toBe('validation_failed');
    expect(submitBody({ ...tooManyKeys, metadata: { k: 1 } })).toBe(true);
    // The body is read as JSON whatever its type says: the document lists every type.
    const anyType = doc.paths['/v1/reports'].post.requestBody.content['*/*'];
    expect(anyType.schema).toEqual(
      doc.paths['/v1/reports'].post.requestBody.content['application/json'].schema,
    );
    const plain = await fetch(`${server.url}/v1/reports`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ ingest_key: t.ingestKey, outcome: 'success', details: 'plain' }),
    });
    expect(plain.status).toBe(201);

    const parameter = (path: string, name: string) =>
      contract.schemaFor(doc.paths[path].get.parameters.find((p: Dict) => p.name === name).schema);
    for (const path of [REPORTS, '/v1/dashboard/{projectId}/issues']) {
      for (const name of ['page', 'limit']) {
        const valid = parameter(path, name);
        expect(valid(2), `${path} ${name}=2`).toBe(true);
        expect(valid(0), `${path} ${name}=0`).toBe(false);
        const res = await call(
          `${server.url}${path.replace('{projectId}', t.projectId)}?${name}=0`,
          {
            headers: bearer(t.apiKey),
          },
        );
        expect(res.body.code).toBe('invalid_query');
      }
      for (const name of ['from', 'to']) {
        const schema = doc.paths[path].get.parameters.find((p: Dict) => p.name === name).schema;
        expect(schema.anyOf).toEqual([{ format: 'date' }, { format: 'date-time' }]);
        const valid = parameter(path, name);
        expect(valid('2026-11-21')).toBe(true);
        expect(valid('2026-11-21T14:30:00Z')).toBe(true);
        expect(valid('yesterday')).toBe(false);
      }
    }

    const ONE = '/v1/dashboard/{projectId}/issues/{issueId}';
    const patchBody = contract.schemaFor(
      doc.paths[ONE].patch.requestBody.content['application/json'].schema,
    );
    expect(patchBody({})).toBe(false);
    expect(patchBody({ status: 'resolved' })).toBe(true);

    // Named schemas are referenced where they appear, not restated.
    const schemas = doc.components.schemas;
    expect(schemas.ReportList.properties.reports.items).toEqual({
      $ref: '#/components/schemas/Report',
    });
    expect(schemas.ProjectList.items).toEqual({ $ref: '#/components/schemas/Project' });
    expect(doc.jsonSchemaDialect).toBeUndefined();

    for (const [path, item] of Object.entries(doc.paths as Dict)) {
      for (const [method, operation] of Object.entries(item as Dict)) {
        const statuses = Object.keys(operation.responses);
        expect(
          statuses.some((s) => s.startsWith('4')),
          `${method} ${path} has a 4XX`,
        ).toBe(true);
      }
    }
  });

  it('401 answers name the credentials they want (WWW-Authenticate)', async () => {
    const projects = await call(`${server.url}/v1/projects`);
    expect(projects.headers.get('www-authenticate')).toBe('Bearer realm="Debrief"');
    const wrongKey = await call(`${server.url}/v1/projects`, {
      headers: bearer(`wk_sk_${'A'.repeat(38)}`),
    });
    expect(wrongKey.headers.get('www-authenticate')).toBe(
      'Bearer realm="Debrief", error="invalid_token"',
    );
    const keyless = await submit({ outcome: 'success', details: 'x' });
    expect(keyless.headers.get('www-authenticate')).toBe('IngestKey realm="Debrief"');
    const documented = contract.doc.paths['/v1/projects'].get.responses['401'].headers;
    expect(documented['WWW-Authenticate'].required).toBe(true);
  });

  it('every documented operation was exercised with its success status', () => {
    for (const [path, item] of Object.entries(contract.doc.paths as Dict)) {
      for (const [method, operation] of Object.entries(item as Dict)) {
        const success = Object.keys(operation.responses).find((s) => s.startsWith('2'));
        expect(contract.covered, `${method} ${path}`).toContain(`${method} ${path} ${success}`);
      }
    }
  });
});
