import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INGEST_KEY_PATTERN, isApiKeyWellFormed, Project } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../../test/harness/cli-process.js';
import {
  createTestDatabase,
  DIALECTS,
  type TestDatabase,
} from '../../../../test/harness/databases.js';
import { freePort } from '../../../../test/harness/ports.js';
import { createTenant } from '../../../../test/harness/test-server.js';
import { bearer } from '../support/http.js';

/**
 * The commands run in this process (cli-commands.ts's runCli, with the environment a child
 * would get): a child costs seconds to start. The start-up failures of `serve` run the real
 * `debrief` entry as a child, so its exit codes and streams are covered too.
 */
const cli = (args: string[], env: Record<string, string>) => runCli(args, env, 'in-process');

describe.each(DIALECTS)('debrief CLI on %s', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(() => database.drop());

  it('bootstrap --json creates an account, a project, its ingest key and an API key that work', async () => {
    const env = { DATABASE_URL: database.url };
    const res = await cli(
      [
        'bootstrap',
        '--email',
        'Ops@Example.test',
        '--password',
        'correct horse',
        '--project',
        'Search tools',
        '--json',
      ],
      env,
    );
    // A new SQLite file is announced (a wrong path must not pass unnoticed).
    expect(res.stderr).toBe(
      dialect === 'sqlite'
        ? `debrief: created a new, empty SQLite database at ${database.url}\n`
        : '',
    );
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(Object.keys(out).sort()).toEqual(['account_id', 'api_key', 'ingest_key', 'project']);
    expect(Project.parse(out.project).name).toBe('Search tools');
    expect(out.ingest_key).toMatch(INGEST_KEY_PATTERN);
    expect(isApiKeyWellFormed(out.api_key)).toBe(true);

    const second = await cli(
      [
        'bootstrap',
        '--email',
        'ops@example.test',
        '--password',
        'x',
        '--project',
        'Second',
        '--json',
      ],
      env,
    );
    expect(second.stderr).toBe('');
    const again = JSON.parse(second.stdout);
    expect(again.account_id).toBe(out.account_id);
    expect(again.project.id).not.toBe(out.project.id);
  });

  it('account set-quota limits, lifts and resets the monthly quota', async () => {
    const env = { DATABASE_URL: database.url };
    const { buildContext, createApp, createLogger, loadConfig } = await import('@debrief/server');
    const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent' });
    const ctx = await buildContext(config, createLogger(config));
    const app = await createApp(ctx);
    try {
      // Made in the database (bootstrap is the test above): no password to hash.
      const tenant = await createTenant(ctx);
      expect(
        (await cli(['account', 'set-quota', '--email', tenant.email, '--monthly', '0'], env)).code,
      ).toBe(0);
      const submit = () =>
        app.inject({
          method: 'POST',
          url: '/v1/reports',
          payload: { ingest_key: tenant.ingestKey, outcome: 'success', details: 'x' },
        });
      expect((await submit()).statusCode).toBe(429);
      await cli(['account', 'set-quota', '--email', tenant.email, '--monthly', 'unlimited'], env);
      expect((await submit()).statusCode).toBe(201);
      await cli(['account', 'set-quota', '--email', tenant.email, '--monthly', 'default'], env);
      expect((await submit()).statusCode).toBe(201);
      const list = await app.inject({
        url: `/v1/dashboard/${tenant.projectId}/reports`,
        headers: bearer(tenant.apiKey),
      });
      expect(list.json().stats.total).toBe(2);
    } finally {
      await app.close();
      await ctx.close();
    }
  });

  it('refuses bad usage and unknown accounts with a message and exit code 1', async () => {
    const env = { DATABASE_URL: database.url };
    const missing = await cli(['bootstrap', '--email', 'a@b.test'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('--password is required');
    const unknown = await cli(
      ['account', 'set-quota', '--email', 'nobody@example.test', '--monthly', '5'],
      env,
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No account');
    const bad = await cli(
      ['account', 'set-quota', '--email', 'a@b.test', '--monthly', 'lots'],
      env,
    );
    expect(bad.code).toBe(1);
    expect((await cli(['frobnicate'], env)).stderr).toContain('unknown command');
  });

  it('migrate brings the schema up to date and is idempotent', async () => {
    const fresh = await createTestDatabase(dialect);
    try {
      expect((await cli(['migrate'], { DATABASE_URL: fresh.url })).stdout).toMatch(
        /Applied 0001-initial/,
      );
      expect((await cli(['migrate'], { DATABASE_URL: fresh.url })).stdout).toMatch(/up to date/);
    } finally {
      await fresh.drop();
    }
  });
});

describe('debrief CLI configuration and start-up errors', () => {
  it('stops with a message naming the wrong variable', async () => {
    const res = await cli(['migrate'], { PORT: 'eighty', SIGNUPS: 'maybe' });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/PORT/);
    expect(res.stderr).toMatch(/SIGNUPS must be "invite", "open" or "closed"/);
  });

  /** One line for the operator: no stack trace. */
  const expectOneLine = (stderr: string) => {
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).not.toMatch(/^\s+at /m);
  };

  it('stops with a message naming DATABASE_URL when it is not a database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'debrief-cli-'));
    try {
      const path = join(dir, 'notes.txt');
      writeFileSync(path, 'not a database, only text\n'.repeat(100));
      for (const command of ['serve', 'migrate']) {
        const env = { DATABASE_URL: path, PORT: '0', HOST: '127.0.0.1' };
        const res = command === 'serve' ? await runCli([command], env) : await cli([command], env);
        expect(res.code, command).toBe(1);
        expect(res.stderr, command).toContain(`DATABASE_URL=${path}: file is not a database`);
        expectOneLine(res.stderr);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops with a message naming DATABASE_URL, password masked, when PostgreSQL is unreachable', async () => {
    const port = await freePort();
    const res = await cli(['migrate'], {
      DATABASE_URL: `postgres://debrief:s3cret@127.0.0.1:${port}/debrief`,
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`DATABASE_URL=postgres://debrief:***@127.0.0.1:${port}/debrief`);
    expect(res.stderr).toMatch(/ECONNREFUSED.*PostgreSQL is running/);
    expect(res.stderr).not.toContain('s3cret');
    expectOneLine(res.stderr);
  });

  it('stops with a message naming PORT when the port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const dir = mkdtempSync(join(tmpdir(), 'debrief-cli-'));
    try {
      const { port } = taken.address() as AddressInfo;
      const res = await runCli(['serve'], {
        DATABASE_URL: join(dir, 'debrief.db'),
        HOST: '127.0.0.1',
        PORT: String(port),
      });
      expect(res.code).toBe(1);
      expect(res.stderr).toContain(`127.0.0.1:${port} is already in use`);
      expect(res.stderr).toContain('set PORT');
      expectOneLine(res.stderr);
    } finally {
      taken.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // The built entry's `--help` runs as a child in cli-bin.happy.test.ts.
  it('prints usage', async () => {
    const res = await cli(['--help'], {});
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(
      'bootstrap --email E --password P --project NAME [--scopes read,triage,admin] [--json]',
    );
  });
});
