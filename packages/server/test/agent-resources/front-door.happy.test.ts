import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OUTCOMES, ServiceIndex } from '@debrief/protocol';
import { buildContext, createApp, createLogger, loadConfig } from '@debrief/server';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../../test/harness/cli-process.js';
import { createTestDatabase, type TestDatabase } from '../../../../test/harness/databases.js';

const PUBLIC_URL = 'https://debrief.example.test';
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** `rel` → target of each link in a `Link` header (RFC 8288), with its `type`. */
function parseLinks(header: string | null): Map<string, { target: string; type?: string }> {
  const links = new Map<string, { target: string; type?: string }>();
  for (const part of (header ?? '').split(/,\s*(?=<)/)) {
    const target = /^<([^>]*)>/.exec(part)?.[1];
    const rel = /;\s*rel="([^"]+)"/.exec(part)?.[1];
    const type = /;\s*type="([^"]+)"/.exec(part)?.[1];
    if (target !== undefined && rel) links.set(rel, { target, ...(type ? { type } : {}) });
  }
  return links;
}

/**
 * `/` for an agent given only the instance URL, over real HTTP. The app shell served is the
 * dashboard's real `index.html` (the source file: its <noscript> block is what ships), so no
 * dashboard build is needed; storage plays no part, so SQLite only.
 */
describe('the front door GET /', () => {
  let dir: string;
  let database: TestDatabase;
  let app: FastifyInstance;
  let ctx: { close(): Promise<void> };
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'debrief-front-door-'));
    copyFileSync(join(REPO_ROOT, 'packages/dashboard/index.html'), join(dir, 'index.html'));
    database = await createTestDatabase('sqlite');
    const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent', PUBLIC_URL });
    const built = await buildContext(config, createLogger(config));
    ctx = built;
    app = await createApp(built, { dashboardDir: dir });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await app.close();
    await ctx.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('names the agent resources in Link headers, whatever the representation', async () => {
    for (const accept of [BROWSER, '*/*', 'application/json', 'text/markdown', 'text/plain']) {
      const res = await fetch(`${url}/`, { headers: { accept } });
      expect(res.status, accept).toBe(200);
      expect(res.headers.get('vary'), accept).toMatch(/accept/i);
      const links = parseLinks(res.headers.get('link'));
      expect(links.get('service-desc'), accept).toEqual({
        target: '/openapi.json',
        type: 'application/json',
      });
      expect(links.get('service-doc')?.target, accept).toBe('/docs');
      expect(links.get('describedby'), accept).toEqual({
        target: '/skill.md',
        type: 'text/markdown',
      });
      // The type /llms.txt is served with.
      expect(links.get('alternate'), accept).toEqual({ target: '/llms.txt', type: 'text/plain' });
    }
    // curl -I: HEAD carries the same links.
    const head = await fetch(`${url}/`, { method: 'HEAD' });
    expect(parseLinks(head.headers.get('link')).get('service-desc')?.target).toBe('/openapi.json');
  });

  it('gives browsers and curl the app, with the links in a <noscript> block under the CSP', async () => {
    for (const accept of [BROWSER, '*/*', 'image/png']) {
      const res = await fetch(`${url}/`, { headers: { accept } });
      expect(res.headers.get('content-type'), accept).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      const html = await res.text();
      expect(html).toContain('<div id="root">');
      const noscript = /<noscript>([\s\S]*?)<\/noscript>/.exec(html)?.[1] ?? '';
      for (const path of ['/skill.md', '/llms.txt', '/openapi.json', '/docs'])
        expect(noscript).toContain(`<a href="${path}">`);
      expect(noscript).toMatch(/Accept: application\/json/);
      // Nothing the CSP would block: no inline script, style or event handler.
      expect(noscript).not.toMatch(/<script|<style|style=|\bon[a-z]+=/i);
    }
  });

  it('answers Accept: text/markdown or text/plain with the llms.txt index', async () => {
    const llms = await (await fetch(`${url}/llms.txt`)).text();
    for (const [accept, type] of [
      ['text/markdown', 'text/markdown; charset=utf-8'],
      ['text/plain', 'text/plain; charset=utf-8'],
      ['text/markdown, text/html;q=0.5', 'text/markdown; charset=utf-8'],
    ] as const) {
      const res = await fetch(`${url}/`, { headers: { accept } });
      expect(res.headers.get('content-type'), accept).toBe(type);
      expect(await res.text(), accept).toBe(llms);
    }
  });

  it('answers Accept: application/json with an index of the resources and the five outcomes', async () => {
    const res = await fetch(`${url}/`, { headers: { accept: 'application/json' } });
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const index = ServiceIndex.parse(await res.json());
    const urls = index.resources.map((r) => r.url);
    for (const path of ['/skill.md', '/llms.txt', '/openapi.json', '/docs', '/v1/reports'])
      expect(urls).toContain(`${PUBLIC_URL}${path}`);
    for (const resource of index.resources) expect(resource.description).not.toContain('\n');
    expect(index.outcomes.map((o) => o.value)).toEqual([...OUTCOMES]);
    for (const outcome of index.outcomes) expect(outcome.description.length).toBeGreaterThan(10);
    // Each resource the index names answers with the type it says.
    for (const resource of index.resources.filter((r) => r.name !== 'submit_report')) {
      const path = resource.url.slice(PUBLIC_URL.length);
      const answer = await fetch(`${url}${path}`, { headers: { accept: resource.type } });
      expect(answer.status, path).toBe(path === '/v1/projects' ? 401 : 200);
      if (answer.status === 200)
        expect(answer.headers.get('content-type'), path).toContain(resource.type);
    }
  });

  it('prefers the app on a tie and honours q-values', async () => {
    const html = await fetch(`${url}/`, { headers: { accept: 'text/html, application/json' } });
    expect(html.headers.get('content-type')).toContain('text/html');
    const json = await fetch(`${url}/`, {
      headers: { accept: 'text/html;q=0.1, application/json' },
    });
    expect(json.headers.get('content-type')).toContain('application/json');
  });
});
