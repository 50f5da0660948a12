/**
 * Prism (Stoplight's OpenAPI proxy) in front of a real server, with traffic that reaches every
 * operation of /openapi.json with its success answer and its error answers: every response must
 * match the document. Prism forwards every request (`--validate-request=false`: the error
 * traffic is invalid on purpose) and, with `--errors`, turns a response that breaks the
 * document into a 500 carrying `sl-violations`.
 *
 *   npm run check:prism            # PRISM="npx --yes @stoplight/prism-cli@5.14.2" by default
 *
 * Not part of `npm test`: it fetches Prism with npx on first use. The response-validation test
 * (test/agent-resources/openapi.contract.test.ts) checks the same answers offline with ajv.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomHex } from '@debrief/protocol';
import { GENEROUS_INGEST_LIMITS } from '../../../test/harness/ingest-limits.js';
import {
  buildContext,
  createApiKey,
  createApp,
  createLogger,
  createProject,
  ensureAccount,
  loadConfig,
  setMonthlyQuota,
} from '../src/index.js';

const PRISM = (process.env.PRISM ?? 'npx --yes @stoplight/prism-cli@5.14.2').split(' ');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

async function waitFor(url: string, prism: ChildProcess): Promise<void> {
  for (let i = 0; i < 600; i += 1) {
    if (prism.exitCode !== null) throw new Error(`prism exited with ${prism.exitCode}`);
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error('prism did not start');
}

interface Exchange {
  label: string;
  status: number;
  violations: string | null;
  /** Prism answered itself (e.g. a request its security check refused): nothing was checked. */
  byPrism: boolean;
}

/** A server on a fresh SQLite file, with the ingest limits far above this traffic. */
async function startServer() {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const databaseFile = join(tmpdir(), `debrief-prism-${process.pid}-${randomHex(4)}.db`);
  const config = loadConfig({
    DATABASE_URL: databaseFile,
    LOG_LEVEL: 'silent',
    PUBLIC_URL: url,
    ...GENEROUS_INGEST_LIMITS,
  });
  const ctx = await buildContext(config, createLogger(config), { groupingThread: false });
  const app = await createApp(ctx);
  await app.listen({ host: '127.0.0.1', port });
  return {
    url,
    ctx,
    async tenant(options: { monthlyQuota?: number } = {}) {
      const email = `prism-${randomHex(6)}@example.test`;
      const account = await ensureAccount(ctx.db, { email, password: null });
      if (options.monthlyQuota !== undefined)
        await setMonthlyQuota(ctx.db, email, options.monthlyQuota);
      const { project, ingestKey } = await createProject(ctx.db, account.id, 'Prism check');
      const apiKey = (await createApiKey(ctx.db, account.id, 'prism')).key;
      return { accountId: account.id, projectId: project.id, ingestKey, apiKey };
    },
    async close() {
      await app.close();
      await ctx.close();
      await rm(databaseFile, { force: true });
    },
  };
}

async function main(): Promise<void> {
  const server = await startServer();
  const documentFile = join(tmpdir(), `debrief-openapi-${process.pid}.json`);
  await writeFile(documentFile, await (await fetch(`${server.url}/openapi.json`)).text());
  const port = await freePort();
  const [command = 'npx', ...args] = PRISM;
  const prism = spawn(
    command,
    [
      ...args,
      'proxy',
      documentFile,
      server.url,
      '--errors',
      '--validate-request=false',
      '--port',
      String(port),
      '-v',
      'warn',
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const base = `http://127.0.0.1:${port}`;
  const exchanges: Exchange[] = [];
  try {
    await waitFor(`${base}/healthz`, prism);
    const send = async (
      label: string,
      path: string,
      init: {
        method?: string;
        body?: unknown;
        raw?: string;
        headers?: Record<string, string>;
      } = {},
    ) => {
      const hasBody = init.body !== undefined || init.raw !== undefined;
      const res = await fetch(`${base}${path}`, {
        method: init.method ?? (hasBody ? 'POST' : 'GET'),
        headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...init.headers },
        ...(hasBody ? { body: init.raw ?? JSON.stringify(init.body) } : {}),
      });
      const text = await res.text();
      exchanges.push({
        label,
        status: res.status,
        violations: res.headers.get('sl-violations'),
        byPrism: text.includes('stoplight.io/prism/errors'),
      });
      return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
    };

    const t = await server.tenant();
    const triage = (await createApiKey(server.ctx.db, t.accountId, 'triage', ['read', 'triage']))
      .key;
    const read = { authorization: `Bearer ${t.apiKey}` };
    const write = { authorization: `Bearer ${triage}` };
    const ids: string[] = [];
    for (const details of [
      'Page 2 of the results repeats page 1: the pagination cursor is ignored',
      'Permission denied (403) when the token lacks the write scope for this board',
    ]) {
      const ok = await send('submit 201', '/v1/reports', {
        body: { ingest_key: t.ingestKey, outcome: 'failure', details, tool_name: 'c' },
      });
      ids.push(ok.body.id);
    }
    await send('submit invalid_json', '/v1/reports', { raw: '{"ingest_key":' });
    await send('submit invalid_body', '/v1/reports', { body: [1] });
    await send('submit missing_ingest_key', '/v1/reports', { body: { outcome: 'success' } });
    await send('submit invalid_ingest_key', '/v1/reports', {
      body: { ingest_key: `wk_${'0'.repeat(32)}`, outcome: 'success', details: 'x' },
    });
    await send('submit secret_key_not_allowed', '/v1/reports', {
      body: { ingest_key: t.apiKey, outcome: 'success', details: 'x' },
    });
    await send('submit validation_failed', '/v1/reports', {
      body: { ingest_key: t.ingestKey, outcome: 'great', details: ' ' },
    });
    await send('submit payload_too_large', '/v1/reports', {
      body: { ingest_key: t.ingestKey, outcome: 'success', details: 'x'.repeat(70_000) },
    });
    const full = await server.tenant({ monthlyQuota: 0 });
    await send('submit quota_exceeded', '/v1/reports', {
      body: { ingest_key: full.ingestKey, outcome: 'success', details: 'x' },
    });

    await send('projects 200', '/v1/projects', { headers: read });
    // A request with no credentials at all Prism answers itself (its security check runs even
    // with request validation off): the session cookie that is no session reaches the server.
    const noSession = { cookie: `debrief_session=${'x'.repeat(43)}` };
    await send('projects not_authenticated', '/v1/projects', { headers: noSession });
    await send('projects ingest_key_cannot_read', '/v1/projects', {
      headers: { authorization: `Bearer ${t.ingestKey}` },
    });
    await send('projects invalid_api_key', '/v1/projects', {
      headers: { authorization: `Bearer wk_sk_${'A'.repeat(38)}` },
    });

    const dashboard = `/v1/dashboard/${t.projectId}`;
    await send('reports 200', `${dashboard}/reports?outcome=failure&from=2020-01-01&limit=500`, {
      headers: read,
    });
    await send('reports invalid_query', `${dashboard}/reports?page=0&bogus=1`, { headers: read });
    await send('reports project_not_found', '/v1/dashboard/nope/reports', { headers: read });
    await send('reports not_authenticated', `${dashboard}/reports`, { headers: noSession });
    await send('events invalid_query', `${dashboard}/events?bogus=1`, { headers: read });
    await send('events project_not_found', '/v1/dashboard/nope/events', { headers: read });

    let issues: string[] = [];
    for (let i = 0; i < 100 && issues.length < 2; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const res = await fetch(`${server.url}${dashboard}/issues?tool_name=c`, { headers: read });
      issues = ((await res.json()) as { issues: { id: string }[] }).issues.map((i) => i.id);
    }
    await send('issues 200', `${dashboard}/issues?status=all&sort=count&page=1&limit=5`, {
      headers: read,
    });
    await send('issues invalid_query', `${dashboard}/issues?sort=worst`, { headers: read });
    await send('issue 200', `${dashboard}/issues/${issues[0]}`, { headers: read });
    await send('issue not_found', `${dashboard}/issues/${'0'.repeat(32)}`, { headers: read });
    const issue = `${dashboard}/issues/${issues[0]}`;
    await send('patch 200', issue, {
      method: 'PATCH',
      body: { status: 'resolved' },
      headers: write,
    });
    await send('patch validation_failed', issue, { method: 'PATCH', body: {}, headers: write });
    await send('patch missing_scope', issue, {
      method: 'PATCH',
      body: { note: 'n' },
      headers: read,
    });
    await send('move 200', `${dashboard}/reports/${ids[1]}/move`, {
      body: { new_issue: true },
      headers: write,
    });
    await send('move validation_failed', `${dashboard}/reports/${ids[1]}/move`, {
      body: {},
      headers: write,
    });
    const current = await fetch(`${server.url}${dashboard}/issues?tool_name=c`, { headers: read });
    const [from, into] = ((await current.json()) as { issues: { id: string }[] }).issues.map(
      (i) => i.id,
    );
    await send('merge 200', `${dashboard}/issues/${from}/merge`, {
      body: { into },
      headers: write,
    });
    await send('merge not_found', `${dashboard}/issues/${from}/merge`, {
      body: { into },
      headers: write,
    });

    for (const path of ['/healthz', '/readyz', '/skill.md', '/openapi.json', '/docs', '/llms.txt'])
      await send(`${path} 200`, path);
    for (const accept of ['application/json', 'text/markdown', 'text/plain'])
      await send(`/ ${accept}`, '/', { headers: { accept } });
  } finally {
    prism.kill();
    await server.close();
  }
  const verdict = (e: Exchange) =>
    e.violations !== null || e.status === 500 ? 'VIOLATION' : e.byPrism ? 'UNCHECKED' : 'ok';
  for (const e of exchanges) {
    console.log(`${verdict(e).padEnd(9)} ${e.status} ${e.label}`);
    if (e.violations) console.log(`          ${e.violations}`);
  }
  const broken = exchanges.filter((e) => verdict(e) !== 'ok');
  console.log(
    `${exchanges.length} exchanges through Prism, ${broken.length} with a violation or unchecked`,
  );
  process.exitCode = broken.length === 0 ? 0 : 1;
}

await main();
