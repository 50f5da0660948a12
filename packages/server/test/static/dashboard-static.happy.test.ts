import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ProblemDetails } from '@debrief/protocol';
import { buildContext, createApp, createLogger, loadConfig } from '@debrief/server';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../test/harness/databases.js';
import { defaultDashboardDir } from '../../src/static/dashboard.route.js';

const INDEX =
  '<!doctype html><title>Debrief</title><script type="module" src="/assets/index-AbCd1234.js"></script>';
const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

/** A server on a throwaway dashboard build; storage plays no part here, so SQLite only. */
async function serverWith(dashboardDir: string) {
  const database = await createTestDatabase('sqlite');
  const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent' });
  const ctx = await buildContext(config, createLogger(config));
  const app = await createApp(ctx, { dashboardDir });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return { url, app, ctx, database };
}

describe('serving the built dashboard', () => {
  let dir: string;
  let server: {
    url: string;
    app: FastifyInstance;
    ctx: { close(): Promise<void> };
    database: TestDatabase;
  };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'debrief-dist-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), INDEX);
    writeFileSync(join(dir, 'assets', 'index-AbCd1234.js'), 'console.log(1)');
    writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    writeFileSync(join(dir, '.secret'), 'no');
    server = await serverWith(dir);
  });
  afterAll(async () => {
    await server.app.close();
    await server.ctx.close();
    await server.database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves index.html at / with a strict CSP, nosniff and no-cache', async () => {
    const res = await fetch(`${server.url}/`, { headers: html });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(INDEX);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
  });

  it('serves hashed assets with a long cache and other files with a short one', async () => {
    const js = await fetch(`${server.url}/assets/index-AbCd1234.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.headers.get('x-content-type-options')).toBe('nosniff');
    const icon = await fetch(`${server.url}/favicon.svg`);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(icon.headers.get('cache-control')).toContain('max-age=3600');
    const again = await fetch(`${server.url}/favicon.svg`, {
      headers: { 'if-none-match': icon.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
  });

  it('falls back to index.html for app pages a browser navigates to', async () => {
    for (const path of ['/projects/0123/reports?outcome=failure', '/signin', '/keys']) {
      const res = await fetch(`${server.url}${path}`, { headers: html });
      expect(res.status, path).toBe(200);
      expect(await res.text()).toBe(INDEX);
    }
  });

  it('answers problem details, never the app, for API paths and non-HTML requests', async () => {
    for (const path of ['/v1/nope', '/v1', '/v1/reports', '/healthzz/x', '/docs/x']) {
      const res = await fetch(`${server.url}${path}`, { headers: html });
      if (path === '/healthzz/x') {
        expect(res.status).toBe(200); // not reserved: an app page
        continue;
      }
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(ProblemDetails.parse(await res.json()).code).toBe('not_found');
    }
    const json = await fetch(`${server.url}/projects/x`, {
      headers: { accept: 'application/json' },
    });
    expect(json.status).toBe(404);
    expect(ProblemDetails.parse(await json.json()).code).toBe('not_found');
    const missingAsset = await fetch(`${server.url}/assets/gone-12345678.js`);
    expect(missingAsset.status).toBe(404);
    const post = await fetch(`${server.url}/projects`, { method: 'POST', headers: html });
    expect(post.status).toBe(404);
    expect(post.headers.get('content-type')).toContain('application/problem+json');
  });

  it('never serves dotfiles or files outside the build', async () => {
    for (const path of ['/.secret', '/%2e%2e/%2e%2e/package.json', '/..%2f..%2fpackage.json']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).toBe(404);
      expect(await res.text()).not.toBe('no');
    }
  });

  it('still answers the API and health routes', async () => {
    expect((await fetch(`${server.url}/healthz`, { headers: html })).status).toBe(200);
    const config = await fetch(`${server.url}/v1/auth/config`, { headers: html });
    expect(config.headers.get('content-type')).toContain('application/json');
  });
});

describe('without a dashboard build', () => {
  it('shows a page that says how to build it, and the API still works', async () => {
    const server = await serverWith(join(tmpdir(), 'debrief-no-such-dist'));
    try {
      const res = await fetch(`${server.url}/`, { headers: html });
      expect(res.status).toBe(503);
      expect(await res.text()).toContain('npm run build');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.app.close();
      await server.ctx.close();
      await server.database.drop();
    }
  });

  it('looks for the build in packages/dashboard/dist by default', () => {
    expect(resolve(defaultDashboardDir())).toBe(resolve('packages/dashboard/dist'));
  });
});
