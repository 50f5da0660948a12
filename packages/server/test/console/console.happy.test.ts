import {
  type ApiKeyInfo,
  ApiKeyList,
  ConsoleProjectList,
  CreatedApiKey,
  CreatedProject,
  DEBRIEF_INSTRUCTIONS,
  feedbackOpenApiPaths,
  IntegrateInfo,
  Project,
  ReportList,
  SOURCES_LIMIT,
  SourceStats,
  Timeseries,
  ToolStats,
} from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';
import { seedReport } from '../support/seed.js';
import { type Browser, signUp } from '../support/session-client.js';
import { fillPlaceholders, runLikeAnAgent } from '../support/skill-agent.js';

describe.each(DIALECTS)('dashboard console API on %s', (dialect) => {
  let server: TestServer;
  let user: Browser;
  beforeAll(async () => {
    server = await startTestServer(dialect);
    user = await signUp(server);
  });
  afterAll(() => server.close());

  const newProject = async (name = 'Weather tools') => {
    const res = await user.call('/v1/console/projects', { body: { name } });
    expect(res.status).toBe(201);
    return CreatedProject.parse(res.body);
  };
  const submit = (ingestKey: string, outcome: string, tool_name?: string) =>
    call(`${server.url}/v1/reports`, {
      body: { ingest_key: ingestKey, outcome, details: 'd', tool_name },
    });
  /** A report at a chosen time (the API stamps "now"). */
  const storeAt = (projectId: string, at: string, outcome: string, toolName?: string) =>
    seedReport(server.ctx.db, projectId, { outcome, at, tool_name: toolName });

  it('creates a project (trimmed name) with an ingest key that accepts reports', async () => {
    const created = await newProject('  Search API  ');
    expect(created.project.name).toBe('Search API');
    expect(created.ingest_key).toMatch(/^wk_[0-9a-f]{32}$/);
    expect((await submit(created.ingest_key, 'success')).status).toBe(201);
  });

  it('lists projects oldest first with per-outcome counts of the last 7 days', async () => {
    const a = await newProject('A');
    const b = await newProject('B');
    await submit(a.ingest_key, 'success');
    await submit(a.ingest_key, 'gave_up');
    await submit(a.ingest_key, 'gave_up');
    await storeAt(a.project.id, new Date(Date.now() - 8 * 86_400_000).toISOString(), 'failure');
    const res = await user.call('/v1/console/projects');
    expect(res.status).toBe(200);
    const list = ConsoleProjectList.parse(res.body);
    const ids = list.map((p) => p.id);
    expect(ids.indexOf(a.project.id)).toBeLessThan(ids.indexOf(b.project.id));
    expect(list.find((p) => p.id === a.project.id)!.last_7_days).toEqual({
      total: 3,
      success: 1,
      failure: 0,
      confusing: 0,
      gave_up: 2,
      request: 0,
    });
    expect(list.find((p) => p.id === b.project.id)!.last_7_days.total).toBe(0);
  });

  it('renames a project', async () => {
    const { project } = await newProject('Old');
    const res = await user.call(`/v1/console/projects/${project.id}`, {
      method: 'PATCH',
      body: { name: ' New name ' },
    });
    expect(res.status).toBe(200);
    expect(Project.parse(res.body)).toEqual({ ...project, name: 'New name' });
  });

  it('shows the ingest key, and rotating it makes the old one fail at once', async () => {
    const { project, ingest_key } = await newProject();
    const shown = await user.call(`/v1/console/projects/${project.id}/ingest-key`);
    expect(shown.body).toEqual({ ingest_key });
    const rotated = await user.call(`/v1/console/projects/${project.id}/ingest-key/rotate`, {
      method: 'POST',
    });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.ingest_key as string;
    expect(fresh).toMatch(/^wk_[0-9a-f]{32}$/);
    expect(fresh).not.toBe(ingest_key);
    const old = await submit(ingest_key, 'success');
    expect(old.status).toBe(401);
    expect(old.body.code).toBe('invalid_ingest_key');
    expect((await submit(fresh, 'success')).status).toBe(201);
    expect((await user.call(`/v1/console/projects/${project.id}/ingest-key`)).body).toEqual({
      ingest_key: fresh,
    });
  });

  it('creates an API key shown once, lists it by prefix, and revoking it stops it', async () => {
    const res = await user.call('/v1/console/api-keys', { body: { name: 'CI' } });
    expect(res.status).toBe(201);
    const created = CreatedApiKey.parse(res.body);
    expect(created.key.startsWith(created.prefix)).toBe(true);
    expect((await call(`${server.url}/v1/projects`, { headers: bearer(created.key) })).status).toBe(
      200,
    );

    const list = ApiKeyList.parse((await user.call('/v1/console/api-keys')).body);
    expect(list[0]).toMatchObject({ id: created.id, name: 'CI', prefix: created.prefix });
    expect(JSON.stringify(list)).not.toContain(created.key);
    expect(list[0]!.last_used_at).not.toBeNull();

    const revoked = await user.call(`/v1/console/api-keys/${created.id}`, { method: 'DELETE' });
    expect(revoked.status).toBe(204);
    const after = await call(`${server.url}/v1/projects`, { headers: bearer(created.key) });
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('invalid_api_key');
    const listed = (await user.call('/v1/console/api-keys')).body as ApiKeyInfo[];
    expect(listed.find((k) => k.id === created.id)!.revoked_at).not.toBeNull();
  });

  it('counts outcomes per UTC day, zero-filled, honouring the filters', async () => {
    const { project } = await newProject();
    await storeAt(project.id, '2026-01-10T23:59:59.999Z', 'failure', 'search');
    await storeAt(project.id, '2026-01-11T00:00:00.000Z', 'success', 'search');
    await storeAt(project.id, '2026-01-11T12:00:00.000Z', 'success', 'fetch');
    await storeAt(project.id, '2026-01-13T08:00:00.000Z', 'confusing', 'search');
    await storeAt(project.id, '2026-01-14T00:00:00.000Z', 'request', 'search');
    const base = `/v1/console/projects/${project.id}/timeseries`;
    const res = await user.call(`${base}?from=2026-01-10&to=2026-01-13`);
    expect(res.status).toBe(200);
    const zero = { success: 0, failure: 0, confusing: 0, gave_up: 0, request: 0 };
    expect(Timeseries.parse(res.body).days).toEqual([
      { date: '2026-01-10', ...zero, failure: 1 },
      { date: '2026-01-11', ...zero, success: 2 },
      { date: '2026-01-12', ...zero },
      { date: '2026-01-13', ...zero, confusing: 1 },
    ]);
    const search = Timeseries.parse(
      (await user.call(`${base}?from=2026-01-11&to=2026-01-11&tool_name=search`)).body,
    );
    expect(search.days).toEqual([{ date: '2026-01-11', ...zero, success: 1 }]);
  });

  it('defaults the timeseries to the last 14 days, ending today', async () => {
    const { project, ingest_key } = await newProject();
    await submit(ingest_key, 'failure');
    const { days } = Timeseries.parse(
      (await user.call(`/v1/console/projects/${project.id}/timeseries`)).body,
    );
    expect(days).toHaveLength(14);
    expect(days.at(-1)).toMatchObject({ date: new Date().toISOString().slice(0, 10), failure: 1 });
  });

  it('lists tools worst success rate first, with "no tool" as null', async () => {
    const { project, ingest_key } = await newProject();
    for (const [outcome, tool] of [
      ['success', 'good'],
      ['success', 'good'],
      ['success', 'mixed'],
      ['failure', 'mixed'],
      ['gave_up', undefined],
    ] as const) {
      await submit(ingest_key, outcome, tool);
    }
    const res = await user.call(`/v1/console/projects/${project.id}/tools`);
    expect(res.status).toBe(200);
    const { tools } = ToolStats.parse(res.body);
    expect(tools.map((t) => [t.tool_name, t.total, t.success_rate])).toEqual([
      [null, 1, 0],
      ['mixed', 2, 0.5],
      ['good', 2, 1],
    ]);
    expect(tools[1]).toMatchObject({ success: 1, failure: 1, confusing: 0, gave_up: 0 });
    const none = ToolStats.parse(
      (await user.call(`/v1/console/projects/${project.id}/tools?to=2020-01-01`)).body,
    );
    expect(none.tools).toEqual([]);
  });

  it('rates tools over their uses: a request is no use, and only requests give no rate', async () => {
    const { project, ingest_key } = await newProject();
    for (const [outcome, tool] of [
      ['request', 'wishlist'],
      ['request', 'wishlist'],
      ['request', 'wishlist'],
      ['success', 'asked'],
      ['request', 'asked'],
      ['success', 'mixed'],
      ['confusing', 'mixed'],
      ['gave_up', 'mixed'],
      ['failure', 'mixed'],
    ] as const) {
      await submit(ingest_key, outcome, tool);
    }
    for (const query of ['', 'from=2020-01-01']) {
      // Both the running counters (all time) and counting (a range) answer.
      const res = await user.call(`/v1/console/projects/${project.id}/tools?${query}`);
      const { tools } = ToolStats.parse(res.body);
      expect(tools.map((t) => [t.tool_name, t.total, t.success_rate])).toEqual([
        ['mixed', 4, 0.25],
        ['asked', 2, 1],
        ['wishlist', 3, null],
      ]);
    }
  });

  it('gives the same tools from the running counters (all time) as from counting (a range)', async () => {
    const { project, ingest_key } = await newProject();
    for (let i = 0; i < 12; i++) {
      await call(`${server.url}/v1/reports`, {
        body: {
          ingest_key,
          outcome: ['success', 'failure', 'gave_up'][i % 3],
          details: 'd',
          tool_name: ['search', 'edit', undefined][i % 3 === 0 ? 0 : i % 2],
          source: ['cli', undefined][i % 2],
        },
      });
    }
    const tools = async (query: string) =>
      ToolStats.parse((await user.call(`/v1/console/projects/${project.id}/tools?${query}`)).body)
        .tools;
    for (const filter of ['', 'source=cli', 'source=nope']) {
      expect(await tools(filter), filter).toEqual(await tools(`${filter}&from=2000-01-01`));
    }
    expect((await tools('')).reduce((sum, t) => sum + t.total, 0)).toBe(12);
    expect((await tools('source=cli')).reduce((sum, t) => sum + t.total, 0)).toBe(6);
    expect(await tools('source=')).toEqual([]);
  });

  it('lists sources busiest first, the same from the counters as from counting', async () => {
    const { project, ingest_key } = await newProject();
    const sent: [string | undefined, string | undefined][] = [
      ['cursor', 'search'],
      ['cursor', 'search'],
      ['cursor', 'edit'],
      ['Claude', 'search'],
      ['Claude', 'edit'],
      ['b', 'edit'],
      ['a', 'edit'],
      [undefined, 'search'],
    ];
    for (const [source, tool_name] of sent) {
      await call(`${server.url}/v1/reports`, {
        body: { ingest_key, outcome: 'success', details: 'd', source, tool_name },
      });
    }
    const sources = async (query: string) => {
      const res = await user.call(`/v1/console/projects/${project.id}/sources?${query}`);
      expect(res.status, query).toBe(200);
      return SourceStats.parse(res.body);
    };
    // Ties in code-point order on both dialects: capitals before lower case.
    expect(await sources('')).toEqual({
      sources: [
        { source: 'cursor', total: 3 },
        { source: 'Claude', total: 2 },
        { source: 'a', total: 1 },
        { source: 'b', total: 1 },
      ],
      truncated: false,
    });
    expect((await sources('tool_name=search')).sources).toEqual([
      { source: 'cursor', total: 2 },
      { source: 'Claude', total: 1 },
    ]);
    // The source filter itself does not narrow its own choices.
    expect(await sources('source=a')).toEqual(await sources(''));
    for (const filter of ['', 'tool_name=search', 'tool_name=nope']) {
      expect(await sources(filter), filter).toEqual(await sources(`${filter}&from=2000-01-01`));
    }
    expect((await sources('to=2020-01-01')).sources).toEqual([]);
  });

  it(`lists at most ${SOURCES_LIMIT} sources, and says when it left some out`, async () => {
    const { project } = await newProject();
    const at = new Date().toISOString();
    for (let i = 0; i <= SOURCES_LIMIT; i++) {
      const source = `agent-${String(i).padStart(3, '0')}`;
      await seedReport(server.ctx.db, project.id, { outcome: 'success', at, source });
      if (i === SOURCES_LIMIT)
        await seedReport(server.ctx.db, project.id, { outcome: 'success', at, source });
    }
    for (const query of ['', '?from=2000-01-01']) {
      const { sources, truncated } = SourceStats.parse(
        (await user.call(`/v1/console/projects/${project.id}/sources${query}`)).body,
      );
      expect(truncated, query).toBe(true);
      expect(sources).toHaveLength(SOURCES_LIMIT);
      expect(sources[0]).toEqual({
        source: `agent-${String(SOURCES_LIMIT).padStart(3, '0')}`,
        total: 2,
      });
      expect(sources.at(-1)).toEqual({ source: 'agent-048', total: 1 });
    }
  });

  it('gives the integrate page the skill block and snippets with the real key and URL', async () => {
    const { project, ingest_key } = await newProject();
    const res = await user.call(`/v1/console/projects/${project.id}/integrate`);
    expect(res.status).toBe(200);
    const info = IntegrateInfo.parse(res.body);
    expect(info.public_url).toBe(server.url);
    expect(info.ingest_key).toBe(ingest_key);
    for (const text of [info.skill_block, info.mcp_snippet, info.express_snippet]) {
      expect(text).toContain(ingest_key);
      expect(text).toContain(server.url);
    }
    const fragment = JSON.parse(info.openapi_fragment);
    expect(fragment['/feedback'].post.requestBody.content['application/json'].schema).toMatchObject(
      { type: 'object', required: ['outcome', 'details'] },
    );
    // The fragment is the router's own, which needs no credentials.
    expect(fragment).toEqual(feedbackOpenApiPaths('/feedback'));
    expect(fragment['/feedback'].post.security).toEqual([]);
    expect(info.mcp_instructions).toBe(DEBRIEF_INSTRUCTIONS);
    expect(info.mcp_snippet).toContain('withDebriefInstructions');
  });

  it("puts the skill's name in the SKILL.md block as source, so its reports carry it", async () => {
    const { project } = await newProject('Skill source');
    const plain = IntegrateInfo.parse(
      (await user.call(`/v1/console/projects/${project.id}/integrate`)).body,
    );
    expect(plain.skill_block).not.toContain('"source"');
    const blank = IntegrateInfo.parse(
      (await user.call(`/v1/console/projects/${project.id}/integrate?source=%20%20`)).body,
    );
    expect(blank.skill_block).toBe(plain.skill_block);
    const name = 'weather-skill "v2" ünïcode';
    const res = await user.call(
      `/v1/console/projects/${project.id}/integrate?source=${encodeURIComponent(` ${name} `)}`,
    );
    expect(res.status).toBe(200);
    const info = IntegrateInfo.parse(res.body);
    expect(info.skill_block).toContain(`"source": ${JSON.stringify(name)}`);
    expect(info.mcp_snippet).toBe(plain.mcp_snippet);

    // An agent runs the block as written: the report arrives with the skill's name.
    const command = /```bash\n([\s\S]*?)\n```/.exec(info.skill_block)![1]!;
    const answer = (await runLikeAnAgent(
      fillPlaceholders(command, { outcome: 'success', tool_name: 'get_forecast', details: 'ok' }),
    )) as { ok: boolean };
    expect(answer.ok).toBe(true);
    const list = ReportList.parse((await user.call(`/v1/dashboard/${project.id}/reports`)).body);
    expect(list.reports[0]).toMatchObject({ source: name, tool_name: 'get_forecast' });
  });

  it('lets the session read reports and open the event stream of its project', async () => {
    const { project, ingest_key } = await newProject();
    await submit(ingest_key, 'confusing');
    const res = await user.call(`/v1/dashboard/${project.id}/reports`);
    expect(res.status).toBe(200);
    expect(ReportList.parse(res.body).stats.confusing).toBe(1);
    const controller = new AbortController();
    const events = await fetch(`${server.url}/v1/dashboard/${project.id}/events`, {
      headers: { cookie: user.cookie },
      signal: controller.signal,
    });
    expect(events.status).toBe(200);
    expect(events.headers.get('content-type')).toContain('text/event-stream');
    controller.abort();
  });
});
