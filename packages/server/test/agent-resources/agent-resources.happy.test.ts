import { DEFAULT_PAGE_LIMIT, ERROR_CODES, OUTCOMES, problemType } from '@debrief/protocol';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { renderDocsPage } from '../../src/agent-resources/docs-page.js';
import { SUBMIT_ERROR_CODES } from '../../src/agent-resources/error-guide.js';
import { renderFeedbackBlock } from '../../src/agent-resources/feedback-block.js';
import { buildOpenApiDocument } from '../../src/agent-resources/openapi-document.js';
import { call } from '../support/http.js';

type Dict = Record<string, any>;
const PUBLIC_URL = 'https://debrief.example.test';

// Agent resources are documents: one SQLite server, with a public URL unlike the listen address.
describe('agent resources', () => {
  let server: TestServer;
  let doc: Dict;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { PUBLIC_URL });
    doc = (await call(`${server.url}/openapi.json`)).body;
  });
  afterAll(() => server.close());

  it('/openapi.json is a valid OpenAPI 3.1 document for this instance', async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: PUBLIC_URL }]);
    expect(Object.keys(doc.components.securitySchemes)).toEqual(
      expect.arrayContaining(['ApiKey', 'DashboardSession']),
    );
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('documents every public endpoint, and every error with problem details', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/',
        '/v1/reports',
        '/v1/usage',
        '/v1/projects',
        '/v1/dashboard/{projectId}/tools',
        '/v1/dashboard/{projectId}/reports',
        '/v1/dashboard/{projectId}/events',
        '/v1/dashboard/{projectId}/issues',
        '/v1/dashboard/{projectId}/issues/{issueId}',
        '/v1/dashboard/{projectId}/issues/{issueId}/activity',
        '/v1/dashboard/{projectId}/issues/{issueId}/merge',
        '/v1/dashboard/{projectId}/issues/{issueId}/mutes',
        '/v1/dashboard/{projectId}/issues/{issueId}/mutes/{muteId}',
        '/v1/dashboard/{projectId}/reports/{reportId}/move',
        '/v1/dashboard/{projectId}/issues/{issueId}/similar',
        '/v1/dashboard/{projectId}/issues/{issueId}/similar/reject',
        '/v1/dashboard/{projectId}/issues/{issueId}/merges',
        '/v1/dashboard/{projectId}/issues/{issueId}/unmerge',
        '/v1/dashboard/{projectId}/grouping-rules',
        '/v1/dashboard/{projectId}/grouping-rules/{ruleId}',
        '/v1/dashboard/{projectId}/destinations',
        '/v1/dashboard/{projectId}/destinations/{destinationId}',
        '/v1/dashboard/{projectId}/destinations/{destinationId}/test',
        '/v1/dashboard/{projectId}/destinations/{destinationId}/deliveries',
        '/healthz',
        '/readyz',
        '/skill.md',
        '/openapi.json',
        '/docs',
        '/llms.txt',
      ].sort(),
    );
    const submitCodes = Object.entries(doc.paths['/v1/reports'].post.responses as Dict)
      .filter(([status]) => Number(status) >= 400)
      .flatMap(
        ([, r]) => r.content['application/problem+json'].schema.allOf[1].properties.code.enum,
      );
    expect(submitCodes.sort()).toEqual([...SUBMIT_ERROR_CODES].sort());
    const query = doc.paths['/v1/dashboard/{projectId}/reports'].get.parameters.map(
      (p: Dict) => p.name,
    );
    expect(query).toEqual([
      'projectId',
      'outcome',
      'tool_name',
      'source',
      'from',
      'to',
      'issue_id',
      'page',
      'limit',
      'cursor',
    ]);
    expect(
      doc.paths['/v1/dashboard/{projectId}/events'].get.responses['200'].content,
    ).toHaveProperty('text/event-stream');
  });

  it('every JSON example validates against its schema', () => {
    const ajv = new Ajv2020({ strict: false });
    const compile = (schema: Dict) =>
      ajv.compile(
        JSON.parse(
          JSON.stringify({ ...schema, $defs: doc.components.schemas }).replaceAll(
            '#/components/schemas/',
            '#/$defs/',
          ),
        ),
      );
    let checked = 0;
    for (const item of Object.values(doc.paths as Dict)) {
      for (const operation of Object.values(item as Dict)) {
        const media = [
          ...Object.entries((operation.requestBody?.content ?? {}) as Dict),
          ...Object.values(operation.responses as Dict).flatMap((r) =>
            Object.entries((r.content ?? {}) as Dict),
          ),
        ].filter(([type]) => type.endsWith('json'));
        for (const [, m] of media) {
          const values =
            m.example !== undefined
              ? [m.example]
              : Object.values((m.examples ?? {}) as Dict).map((e) => e.value);
          for (const value of values) {
            const validate = compile(m.schema);
            expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('/docs is a self-contained page with an anchor per error code, and problem types point there', async () => {
    const res = await fetch(`${server.url}/docs`);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    for (const code of ERROR_CODES) expect(html).toContain(`id="error-${code}"`);
    for (const id of [
      'op-submitReport',
      'op-listReports',
      'op-streamReportEvents',
      'auth-ApiKey',
    ]) {
      expect(html).toContain(`id="${id}"`);
    }
    // Example hosts (RFC 2606 example.com, in request examples) are not links out.
    expect(html).not.toMatch(
      /<script|<link|https?:\/\/(?!debrief\.example\.test|[a-z.]*example\.com\/)[a-z]/i,
    );
    expect(problemType(PUBLIC_URL, 'validation_failed')).toBe(
      `${PUBLIC_URL}/docs#error-validation_failed`,
    );
    const problem = await call(`${server.url}/v1/reports`, { body: { outcome: 'success' } });
    expect(html).toContain(`id="${problem.body.type.split('#')[1]}"`);
  });

  it('/docs escapes what it renders', async () => {
    const html = await (await fetch(`${server.url}/docs`)).text();
    expect(html).toContain('<code>&lt;PUBLIC_URL&gt;/docs#error-&lt;code&gt;</code>');
    const hostile = buildOpenApiDocument(PUBLIC_URL, server.app.routeContracts) as Dict;
    hostile.info.title = '<script>alert(1)</script>';
    hostile.paths['/healthz'].get.summary = '`<img src=x onerror=alert(1)>` & "quotes"';
    const page = renderDocsPage(hostile);
    expect(page).not.toMatch(/<script|<img/);
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain(
      '<code>&lt;img src=x onerror=alert(1)&gt;</code> &amp; &quot;quotes&quot;',
    );
  });

  it('/skill.md tells an agent everything it needs, with this instance URL', async () => {
    const res = await fetch(`${server.url}/skill.md`);
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const text = await res.text();
    for (const outcome of OUTCOMES)
      expect(text).toMatch(new RegExp(`- \`${outcome}\`: .+ Example: "`));
    for (const code of SUBMIT_ERROR_CODES) expect(text).toContain(`\`${code}\``);
    expect(text).toContain(`curl -sS -X POST '${PUBLIC_URL}/v1/reports'`);
    expect(text).toContain(`await fetch('${PUBLIC_URL}/v1/reports'`);
    expect(text).toMatch(/even when you could not use the tools at all/);
    expect(text).toMatch(/## Never put in a report[\s\S]*Secrets[\s\S]*Personal data/);
    expect(text).toContain('attach(server, { ingestKey');
    expect(text).toContain('feedbackRouter({ ingestKey');
    expect(text).not.toContain(server.url);
    expect(text.trimEnd().split('\n').at(-1)).toMatch(/not set up yet|Never put secrets/);
  });

  it('says everywhere that a page of reports holds 50 unless `limit` says otherwise', async () => {
    expect(DEFAULT_PAGE_LIMIT).toBe(50);
    const limit = doc.paths['/v1/dashboard/{projectId}/reports'].get.parameters.find(
      (p: Dict) => p.name === 'limit',
    );
    expect(limit.description).toContain('default 50');
    expect(
      doc.paths['/v1/dashboard/{projectId}/reports'].get.responses['200'].content[
        'application/json'
      ].example.pagination.limit,
    ).toBe(50);
    const docs = await (await fetch(`${server.url}/docs`)).text();
    expect(docs).toContain('default 50');
    const skill = await (await fetch(`${server.url}/skill.md`)).text();
    expect(skill).toContain('50 reports a page unless you pass `limit`');
    const llms = await (await fetch(`${server.url}/llms.txt`)).text();
    expect(llms).toContain('50 reports a page unless `limit` says otherwise');
    for (const text of [docs, skill, llms])
      expect(text).not.toMatch(/default 20|20 reports a page/);
  });

  it('documents that unknown query parameters are refused with invalid_query', async () => {
    for (const path of ['/v1/dashboard/{projectId}/reports', '/v1/dashboard/{projectId}/events']) {
      const operation = doc.paths[path].get;
      expect(operation.description, path).toMatch(/invalid_query/);
      expect(
        operation.responses['400'].content['application/problem+json'].schema.allOf[1].properties
          .code.enum,
        path,
      ).toContain('invalid_query');
    }
    const docs = await (await fetch(`${server.url}/docs`)).text();
    const section = /id="error-invalid_query"[\s\S]*?<\/section>/.exec(docs)?.[0] ?? '';
    expect(section).toMatch(/unknown parameter is refused/i);
  });

  it('/llms.txt links the three agent resources', async () => {
    const res = await fetch(`${server.url}/llms.txt`);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const text = await res.text();
    expect(text.startsWith('# Debrief\n\n> ')).toBe(true);
    for (const path of ['/skill.md', '/openapi.json', '/docs'])
      expect(text).toContain(`](${PUBLIC_URL}${path})`);
  });

  it('renderFeedbackBlock fills in the URL, key and source, and quotes the URL for the shell', () => {
    const block = renderFeedbackBlock({
      publicUrl: "https://x.test/it's/",
      ingestKey: `wk_${'a'.repeat(32)}`,
      source: 'my-tool',
    });
    expect(block).toContain(`curl -sS -X POST 'https://x.test/it'\\''s/v1/reports'`);
    expect(block).toContain(`"ingest_key": "wk_${'a'.repeat(32)}"`);
    expect(block).toContain('"source": "my-tool"');
    for (const outcome of OUTCOMES) expect(block).toContain(`\`${outcome}\``);
    expect(block).toMatch(/Never put secrets/);
    expect(renderFeedbackBlock({ publicUrl: 'https://x.test', ingestKey: 'wk_1' })).not.toContain(
      '"source"',
    );
  });
});
