import { spawn } from 'node:child_process';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapCli, REPO_ROOT, runCli } from '../../../../test/harness/cli-process.js';
import {
  createTestDatabase,
  DIALECTS,
  type TestDatabase,
} from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';
import { expectIssueDaysExact } from '../support/issue-days.js';
import { SECRET_FIXTURES } from '../support/redaction-fixtures.js';
import { type Browser, signUp } from '../support/session-client.js';

/**
 * `debrief copy --to postgres://…` moves a SQLite database to an empty
 * PostgreSQL database. Seeded through the API, copied by the real CLI, then a server on the
 * PostgreSQL database must give the same answers as the one on SQLite did.
 */
const ENV = { SIGNUPS: 'open', SIGNUPS_PER_ADDRESS: '1000', FREE_TIER_MONTHLY_REPORTS: '100000' };
const REPORTS = 1234; // more than one insert batch (1,000 rows)

interface Seeded {
  email: string;
  password: string;
  projectIds: string[];
  apiKey: string;
  oldCookie: string;
}

/** Every answer the comparison looks at, read through the API. */
async function answers(server: TestServer, seeded: Seeded, browser: Browser) {
  const out: Record<string, unknown> = {};
  const read = async (path: string, viaSession = false) => {
    const res = viaSession
      ? await browser.call(path)
      : await call(`${server.url}${path}`, { headers: bearer(seeded.apiKey) });
    expect(res.status, path).toBe(200);
    out[path] = res.body;
  };
  await read('/v1/projects');
  await read('/v1/console/projects', true);
  for (const id of seeded.projectIds) {
    for (let page = 1; page <= Math.ceil(REPORTS / 100) + 1; page++)
      await read(`/v1/dashboard/${id}/reports?limit=100&page=${page}`);
    await read(`/v1/dashboard/${id}/reports?outcome=failure&tool_name=search`);
    await read(`/v1/dashboard/${id}/reports?source=cli&from=2000-01-01`);
    for (const what of ['tools', 'sources', 'timeseries'])
      await read(`/v1/console/projects/${id}/${what}`, true);
  }
  const session = await browser.call('/v1/auth/session');
  out.usage = (session.body as { usage: unknown }).usage;
  return out;
}

/**
 * The CLI's commands in this process (a child costs seconds to start); the writer whose lock
 * refuses a copy is a plain node child, since SQLite's locks are per process.
 */
const cli = (args: string[], env: Record<string, string>) => runCli(args, env, 'in-process');

describe.skipIf(!DIALECTS.includes('postgres'))(
  'debrief copy (SQLite → PostgreSQL)',
  { timeout: 120_000 },
  () => {
    let sqliteDb: TestDatabase;
    let seeded: Seeded;
    let before: Record<string, unknown>;
    const targets: TestDatabase[] = [];
    const target = async () => {
      const db = await createTestDatabase('postgres');
      targets.push(db);
      return db;
    };
    const count = async (url: string, table: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query(`select count(*)::int as n from ${table}`);
        return rows[0].n as number;
      } finally {
        await client.end();
      }
    };

    beforeAll(async () => {
      sqliteDb = await createTestDatabase('sqlite');
      const server = await startTestServer('sqlite', ENV, { databaseUrl: sqliteDb.url });
      try {
        const browser = await signUp(server, 'a long enough password');
        // The instance's own project (made on first need, as a running instance would have it):
        // instance_settings is copied too, so the PostgreSQL server does not make a second one.
        expect((await call(`${server.url}/skill.md`)).status).toBe(200);
        const projectIds: string[] = [];
        const ingestKeys: string[] = [];
        for (const name of ['Search tool', 'Edit tool']) {
          const res = await browser.call('/v1/console/projects', { body: { name } });
          expect(res.status).toBe(201);
          projectIds.push(res.body.project.id);
          ingestKeys.push(res.body.ingest_key);
        }
        const key = await browser.call('/v1/console/api-keys', { body: { name: 'reader' } });
        expect(key.status).toBe(201);
        const outcomes = ['success', 'failure', 'confusing', 'gave_up', 'request'];
        const secret = SECRET_FIXTURES[0]?.secret ?? '';
        for (let start = 0; start < REPORTS; start += 50) {
          const batch = Array.from({ length: Math.min(50, REPORTS - start) }, (_, j) => {
            const i = start + j;
            return call(`${server.url}/v1/reports`, {
              body: {
                ingest_key: ingestKeys[i % 7 === 0 ? 1 : 0],
                outcome: outcomes[i % 5],
                details: i % 100 === 0 ? `report ${i} leaked ${secret}` : `report ${i} «ünïcode»`,
                tool_name: i % 3 === 0 ? null : ['search', 'edit'][i % 2],
                source: i % 4 === 0 ? undefined : ['cli', 'mcp'][i % 2],
                metadata:
                  i % 2 ? { client: 'claude-code', version: i, beta: i % 4 === 1 } : undefined,
              },
            });
          });
          for (const res of await Promise.all(batch)) expect(res.status).toBe(201);
        }
        seeded = {
          email: browser.email,
          password: browser.password,
          projectIds,
          apiKey: key.body.key,
          oldCookie: browser.cookie,
        };
        before = await answers(server, seeded, browser);
      } finally {
        await server.app.close();
        await server.ctx.close();
      }
    });
    afterAll(async () => {
      for (const db of targets) await db.drop();
      await sqliteDb?.drop();
    });

    it('copies everything but sessions, and the API answers the same on PostgreSQL', async () => {
      const pgDb = await target();
      const result = await cli(['copy', '--to', pgDb.url], { DATABASE_URL: sqliteDb.url });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/copy: reports: \d+ rows/);
      expect(result.stdout).toMatch(/Copied \d+ rows/);
      expect(await count(pgDb.url, 'sessions')).toBe(0);

      const server = await startTestServer('postgres', ENV, { databaseUrl: pgDb.url });
      try {
        // Sessions stay behind: the old cookie signs nobody in; the password still does.
        const old = await call(`${server.url}/v1/auth/session`, {
          headers: { cookie: seeded.oldCookie },
        });
        expect(old.status).toBe(401);
        const signin = await call(`${server.url}/v1/auth/signin`, {
          body: { email: seeded.email, password: seeded.password },
        });
        expect(signin.status).toBe(200);
        const { browserFor } = await import('../support/session-client.js');
        const browser = browserFor(server, seeded.email, seeded.password, signin);
        const after = await answers(server, seeded, browser);
        expect(after).toEqual(before);
        // The reports per issue and day came along, and still count the copied placements.
        for (const id of seeded.projectIds) {
          const days = await expectIssueDaysExact(server.ctx.db, id);
          expect(Object.keys(days).length).toBeGreaterThan(0);
        }
      } finally {
        await server.app.close();
        await server.ctx.close();
      }

      // A second copy into the now filled database is refused, and changes nothing.
      const again = await cli(['copy', '--to', pgDb.url], { DATABASE_URL: sqliteDb.url });
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('not empty');
      expect(await count(pgDb.url, 'reports')).toBe(REPORTS);
    });

    it('exits non-zero and leaves the target empty when a count does not match', async () => {
      const pgDb = await target();
      expect((await cli(['migrate'], { DATABASE_URL: pgDb.url })).code).toBe(0);
      // Something on the target that drops rows silently (here a trigger): the counts catch it.
      const client = new pg.Client({ connectionString: pgDb.url });
      await client.connect();
      await client.query(`
      create function drop_gave_up() returns trigger language plpgsql as
        $$ begin if new.outcome = 'gave_up' then return null; end if; return new; end $$;
      create trigger drop_gave_up before insert on reports
        for each row execute function drop_gave_up();
    `);
      await client.end();
      const result = await cli(['copy', '--from', sqliteDb.url, '--to', pgDb.url], {});
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/does not match.*reports: 1234 in SQLite, \d+ in PostgreSQL/);
      expect(await count(pgDb.url, 'accounts')).toBe(0);
      expect(await count(pgDb.url, 'reports')).toBe(0);
    });

    it("copies the reports still waiting in the SQLite writer's inbox into reports", async () => {
      const small = await createTestDatabase('sqlite');
      try {
        const env = { DATABASE_URL: small.url };
        const boot = await bootstrapCli(env, { email: 'inbox@example.test', project: 'Inbox' });
        // As a kill -9 leaves it: a committed report not yet moved out of the inbox.
        const sqlite = new SQLite(small.url);
        sqlite
          .prepare(
            `insert into report_inbox (id, project_id, outcome, tool_name, source, details, metadata, created_at, redactions)
           values (?, ?, 'failure', 'search', 'cli', 'waiting in the inbox', '{"a":1}', ?, 1)`,
          )
          .run(`${'0'.repeat(31)}1`, boot.project.id, new Date().toISOString());
        sqlite.close();
        const pgDb = await target();
        const result = await cli(['copy', '--to', pgDb.url], env);
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toMatch(/report_inbox → reports\t1/);
        const client = new pg.Client({ connectionString: pgDb.url });
        await client.connect();
        const { rows } = await client.query('select details, metadata, redactions from reports');
        await client.end();
        expect(rows).toEqual([
          { details: 'waiting in the inbox', metadata: '{"a":1}', redactions: 1 },
        ]);
      } finally {
        await small.drop();
      }
    });

    it('refuses a source with a table it does not know, and a source another process writes to', async () => {
      const small = await createTestDatabase('sqlite');
      try {
        expect((await cli(['migrate'], { DATABASE_URL: small.url })).code).toBe(0);
        // Another process holds a write transaction while the copy starts.
        const writer = spawn(
          process.execPath,
          [
            '-e',
            `const db = new (require('better-sqlite3'))(process.argv[1]);
            db.exec('begin immediate');
            process.stdout.write('locked\\n');
            process.stdin.on('data', () => {});
            process.stdin.on('end', () => { db.exec('rollback'); db.close(); });`,
            small.url,
          ],
          { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
        );
        const exited = new Promise((done) => writer.once('exit', done));
        try {
          await new Promise<void>((locked, failed) => {
            writer.stdout.once('data', () => locked());
            writer.once('exit', (code) => failed(new Error(`the writer exited (${code})`)));
          });
          const locked = await cli(['copy', '--to', (await target()).url], {
            DATABASE_URL: small.url,
          });
          expect(locked.code).toBe(1);
          expect(locked.stderr).toContain('Another process is writing');
        } finally {
          writer.stdin.end();
          await exited;
        }
        const sqlite = new SQLite(small.url);
        sqlite.exec('create table mystery (x text)');
        sqlite.close();
        const unknown = await cli(['copy', '--to', (await target()).url], {
          DATABASE_URL: small.url,
        });
        expect(unknown.code).toBe(1);
        expect(unknown.stderr).toContain('tables this copy does not know: mystery');
      } finally {
        await small.drop();
      }
    });

    it('refuses a SQLite file that is not a Debrief database, and leaves it unchanged', async () => {
      const other = await createTestDatabase('sqlite');
      try {
        const sqlite = new SQLite(other.url);
        sqlite.exec('create table notes (body text)');
        sqlite.close();
        const result = await cli(['copy', '--from', other.url, '--to', (await target()).url], {});
        expect(result.code).toBe(1);
        expect(result.stderr).toContain('is not a Debrief database');
        const after = new SQLite(other.url, { readonly: true });
        const tables = after.prepare(`select name from sqlite_master where type = 'table'`).pluck();
        expect(tables.all()).toEqual(['notes']);
        after.close();
      } finally {
        await other.drop();
      }
    });
  },
);
